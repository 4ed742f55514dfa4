/* --switch-output-state: what the recorder's dumps, triggers and
 * post-dump runs came to, rewritten whole on each change. */
#include "record/record-state.h"
#include "record/record.h"
#include "lib/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void state__print(struct record *rec, FILE *f)
{
	const struct post_dump_stats *h = &rec->post_dump.st;
	char path[ESCAPE_SIZE(PATH_MAX)];

	fprintf(f, "pid %d\ndumps %d\ndumps_failed %llu\n", (int)getpid(), rec->files,
		(unsigned long long)rec->dump_stats.failed);
	if (rec->last_dump)
		fprintf(f, "last_dump %s\nlast_dump_time %llu.%09llu\n",
			escape__str(path, sizeof(path), rec->last_dump),
			(unsigned long long)rec->last_dump_time / 1000000000,
			(unsigned long long)rec->last_dump_time % 1000000000);
	fprintf(f, "triggers_ignored %llu\ntriggers_merged %llu\n",
		(unsigned long long)rec->trigger.limited, (unsigned long long)rec->triggers_merged);
	fprintf(f, "hook_runs %llu\nhook_failed %llu\nhook_killed %llu\nhook_dropped %llu\n"
		"hook_queued %d\nhook_running %d\nhook_last_status %d\n",
		(unsigned long long)h->runs, (unsigned long long)h->failed,
		(unsigned long long)h->killed, (unsigned long long)h->dropped,
		rec->post_dump.q_nr, rec->post_dump.sp.pid > 0, h->last_status);
}

static int state__write(struct record *rec)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", rec->state_path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);	/* a recorder killed while writing left it */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	state__print(rec, f);
	if (fflush(f) || ferror(f))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, rec->state_path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

void record__write_state(struct record *rec, int now)
{
	static const char *const what = "perf record: --switch-output-state";
	u64 t;
	int err;

	if (!rec->state_path)
		return;
	rec->state_dirty |= now;
	if (!rec->state_dirty)
		return;
	t = now_ns();
	if (!now && t < rec->state_next_ns)
		return;
	err = state__write(rec);
	rec->state_next_ns = t + STATE_INTERVAL_NS;
	rec->state_dirty = 0;
	if (err && !rec->state_failed)
		pr_err("%s: %s: %s: tried again at the next change\n", what, rec->state_path,
		       strerror(-err));
	rec->state_failed = !!err;
}
