/* perf daemon's files as its clients read them (daemon/daemon-status.c):
 * BASE/status written and read back, it and a recorder's state file read
 * only when they are regular files reached through no link. */
#include "tests/tests.h"
#include "daemon/daemon-session.h"
#include "daemon/daemon-status.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* TEXT (LEN bytes) as DIR/NAME. */
static int put_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	err = fwrite(text, 1, len, f) == len ? 0 : -EIO;
	return fclose(f) || err ? -EIO : 0;
}

/* A session named "daemon" is listed as a session, and the daemon's pid
 * stays the daemon's. */
static int test_status_daemon_session(struct test_ctx *ctx)
{
	struct daemon_session named = { .name = "daemon", .run = "-a -e cpu-clock", .pid = 4242,
					.started = 1000 };
	struct daemon_session other = { .name = "cpu", .run = "-a", .pid = 4343, .started = 1001 };
	struct daemon_session *list[] = { &named, &other };
	struct session_list l = { .s = list, .nr = 2 };
	char base[] = "/tmp/frstatus.XXXXXX", err[PATH_MAX + 64], path[PATH_MAX];
	struct daemon_status *st;

	(void)ctx;
	TEST_ASSERT(mkdtemp(base), "mkdtemp: %s", strerror(errno));
	TEST_ASSERT(!daemon_status__write(base, 777, 555, "/etc/perfconfig", &l, err, sizeof(err)),
		    "%s", err);
	st = daemon_status__new(base);
	snprintf(path, sizeof(path), "%s/status", base);
	unlink(path);
	rmdir(base);
	TEST_ASSERT(st, "daemon_status__new: %s", strerror(errno));
	TEST_ASSERT(st->pid == 777 && st->started == 555, "the daemon: pid %d started %lld",
		    (int)st->pid, (long long)st->started);
	TEST_ASSERT(st->nr == 2, "%d sessions", st->nr);
	TEST_ASSERT(!strcmp(st->sessions[0].name, "daemon") && st->sessions[0].pid == 4242 &&
		    st->sessions[0].started == 1000 &&
		    !strcmp(st->sessions[0].run, "-a -e cpu-clock") &&
		    !strcmp(st->sessions[0].state, "running"),
		    "session 0: %s pid %d run '%s' state '%s'", st->sessions[0].name,
		    (int)st->sessions[0].pid, st->sessions[0].run, st->sessions[0].state);
	TEST_ASSERT(!strcmp(st->sessions[1].name, "cpu") && st->sessions[1].pid == 4343,
		    "session 1: %s pid %d", st->sessions[1].name, (int)st->sessions[1].pid);
	TEST_ASSERT(st->config && !strcmp(st->config, "/etc/perfconfig"), "config %s",
		    st->config ? st->config : "(none)");
	daemon_status__delete(st);
	return TEST_OK;
}

/* BASE/status through a link, or a fifo there, is read as no status, at
 * once. */
static int test_status_link(struct test_ctx *ctx)
{
	char base[] = "/tmp/frstatus.XXXXXX", real[64], path[64];
	struct daemon_status *st;
	int err;

	(void)ctx;
	TEST_ASSERT(mkdtemp(base), "mkdtemp: %s", strerror(errno));
	snprintf(real, sizeof(real), "%s/real", base);
	snprintf(path, sizeof(path), "%s/status", base);
	TEST_ASSERT(!put_file(base, "real", "daemon\t1\t2\n", 11) && !symlink(real, path),
		    "%s: %s", path, strerror(errno));
	st = daemon_status__new(base);
	err = errno;
	unlink(path);
	daemon_status__delete(st);
	TEST_ASSERT(!st && err == ELOOP, "a linked status read: %s", st ? "ok" : strerror(err));
	TEST_ASSERT(!mkfifo(path, 0600), "mkfifo: %s", strerror(errno));
	st = daemon_status__new(base);
	err = errno;
	unlink(path);
	unlink(real);
	rmdir(base);
	daemon_status__delete(st);
	TEST_ASSERT(!st && err == EINVAL, "a fifo read: %s", st ? "ok" : strerror(err));
	return TEST_OK;
}

/* A session's output that is no regular file is refused at once: a fifo
 * would hold perf daemon -v's reader for ever (a writer is held open here
 * so that the refusal, not a blocked open, is what is checked). */
static int test_output_fifo(struct test_ctx *ctx)
{
	char dir[] = "/tmp/froutput.XXXXXX", path[64];
	long long n;
	int w;

	(void)ctx;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/output", dir);
	TEST_ASSERT(!mkfifo(path, 0600), "mkfifo: %s", strerror(errno));
	w = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	n = session_output__ignored(dir, 1);
	if (w >= 0)
		close(w);
	unlink(path);
	rmdir(dir);
	TEST_ASSERT(w >= 0, "a writer of the fifo: %s", strerror(errno));
	TEST_ASSERT(n == -EINVAL, "a fifo output read: %lld", n);
	return TEST_OK;
}

static const char state_text[] = "pid 321\ndumps 4\ndumps_failed 1\n"
				 "last_dump /b/session-x/perf.data.1\\x01\n"
				 "last_dump_time 1764000000.500000000\nhook_runs 3\n"
				 "hook_last_status 768\nnewer_key 9\n";

/* A recorder's file as it writes it; a link, a fifo and a file past the
 * bound are read as no file, at once. */
static int test_state_read(struct test_ctx *ctx)
{
	char top[] = "/tmp/frstate.XXXXXX", dir[64], link[128], path[128];
	size_t big = SESSION_STATE_MAX + 1;
	struct session_state ss;
	char *text = malloc(big);
	int err;

	(void)ctx;
	TEST_ASSERT(text, "malloc");
	TEST_ASSERT(mkdtemp(top), "mkdtemp: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%s/session-x", top);
	snprintf(link, sizeof(link), "%s/session-l", top);
	TEST_ASSERT(!mkdir(dir, 0700) && !symlink(dir, link), "%s: %s", dir, strerror(errno));
	TEST_ASSERT(!put_file(dir, "state", state_text, strlen(state_text)), "state");

	err = session_state__read(dir, &ss);
	TEST_ASSERT(!err && ss.pid == 321 && ss.dumps == 4 && ss.dumps_failed == 1 &&
		    ss.hook_runs == 3 && ss.hook_last_status == 768 &&
		    ss.last_dump_time == 1764000000.5 &&
		    !strcmp(ss.last_dump, "/b/session-x/perf.data.1\x01"),
		    "read %d: pid %d dumps %llu last '%s'", err, (int)ss.pid, ss.dumps, ss.last_dump);

	/* the session's directory through a link */
	err = session_state__read(link, &ss);
	TEST_ASSERT(err < 0 && !ss.pid && !ss.last_dump[0], "a linked directory read: %d", err);

	/* the state file a link to a good one */
	snprintf(path, sizeof(path), "%s/real", top);
	snprintf(link, sizeof(link), "%s/state", dir);
	TEST_ASSERT(!put_file(top, "real", state_text, strlen(state_text)) && !unlink(link) &&
		    !symlink(path, link), "%s: %s", link, strerror(errno));
	err = session_state__read(dir, &ss);
	TEST_ASSERT(err == -ELOOP && !ss.pid, "a linked state read: %d", err);
	unlink(link);

	/* a fifo, which a blocking open would wait on for ever */
	TEST_ASSERT(!mkfifo(link, 0600), "mkfifo: %s", strerror(errno));
	err = session_state__read(dir, &ss);
	TEST_ASSERT(err == -EINVAL && !ss.pid, "a fifo read: %d", err);
	unlink(link);

	/* the bound: at it, read; one byte past it, not */
	memset(text, '\n', big);
	memcpy(text, "pid 9\n", 6);
	TEST_ASSERT(!put_file(dir, "state", text, big - 1), "state");
	err = session_state__read(dir, &ss);
	TEST_ASSERT(!err && ss.pid == 9, "%zu bytes: %d, pid %d", big - 1, err, (int)ss.pid);
	TEST_ASSERT(!put_file(dir, "state", text, big), "state");
	err = session_state__read(dir, &ss);
	TEST_ASSERT(err == -EFBIG && !ss.pid, "%zu bytes: %d, pid %d", big, err, (int)ss.pid);

	free(text);
	unlink(link);
	unlink(path);
	snprintf(path, sizeof(path), "%s/session-l", top);
	unlink(path);
	rmdir(dir);
	rmdir(top);
	return TEST_OK;
}

TEST_SUITE(suite_daemon_daemon_status, "daemon/daemon-status",
	   "perf daemon's status and a session's state file, as the clients read them",
	   test_status_daemon_session, test_status_link, test_state_read,
	   test_output_fifo);
