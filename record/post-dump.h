/* --switch-output-exec: a command run for each dump once it is in place,
 * one at a time, apart from the recorder and bounded in time, its output
 * logged; nothing it does delays a dump or a trigger. */
#ifndef PERF_POST_DUMP_H
#define PERF_POST_DUMP_H

#include "lib/spawn.h"
#include "lib/util.h"

/* Dumps waiting for the run in hand; one more drops the oldest waiting. */
#define POST_DUMP_QUEUE_MAX 16
#define POST_DUMP_TIMEOUT_NS (60ULL * 1000000000)	/* --switch-output-exec-timeout's default */
#define POST_DUMP_TIMEOUT_MAX_NS (86400ULL * 1000000000)
#define POST_DUMP_LOG_MAX (16 << 10)	/* bytes of one run's output logged; the rest counted */
#define POST_DUMP_LINE_MAX 512		/* bytes of one line logged; the rest cut */

struct post_dump_job {
	char *path;		/* absolute */
	const char *trigger;	/* static: signal, time, size, event, when, control, exit */
};

/* What the runs came to, for the log and --switch-output-state. */
struct post_dump_stats {
	u64 runs;		/* started */
	u64 failed;		/* could not start, or ended other than with status 0 */
	u64 killed;		/* over the timeout: their group was killed (also failed) */
	u64 dropped;		/* never ran: the queue was full, the file was rotated away,
				 * or recording ended first */
	int last_status;	/* the wait status of the last run that ended; -1: none yet */
};

struct post_dump {
	char *script;		/* the command, "{}" made "$1", or "$1" appended; NULL: none */
	u64 timeout_ns;
	int verbose;
	struct post_dump_job q[POST_DUMP_QUEUE_MAX];
	int q_head, q_nr;
	/* the run in hand (sp.pid -1: none) */
	struct spawn sp;
	struct post_dump_job job;
	u64 start_ns;
	int reaped, status, killed, eof;
	char line[POST_DUMP_LINE_MAX];
	size_t line_len;
	u64 line_over;		/* bytes of the current line past POST_DUMP_LINE_MAX */
	u64 logged, unlogged;
	struct post_dump_stats st;
	int changed;		/* st changed since post_dump__changed() last said so */
	int ended;		/* recording is over: no more runs */
};

/* --switch-output-exec=CMD: "{}" in CMD becomes "$1" (the first is the
 * dump's path, passed as the shell's positional parameter, never pasted
 * into CMD's text), else " \"$1\"" is appended. 0 or -ENOMEM. */
int post_dump__set(struct post_dump *pd, const char *cmd);
static inline int post_dump__on(const struct post_dump *pd)
{
	return pd->script != NULL;
}
/* A dump is in place at PATH, caused by TRIGGER (a static string): its run
 * is started now, or queued behind the one in hand. */
void post_dump__add(struct post_dump *pd, const char *path, const char *trigger);
/* --switch-max-files removed PATH: a run still queued for it is dropped. */
void post_dump__forget(struct post_dump *pd, const char *path);
/* The run in hand's output fd for the loop's poll, -1 when none. */
int post_dump__fd(const struct post_dump *pd);
/* Serves the run in hand without ever waiting: logs its output, reaps it,
 * kills its group past the timeout, then starts the next. Called every
 * round of the loop, and it costs nothing when no run is in hand. */
void post_dump__serve(struct post_dump *pd);
/* How long (ms) the loop may sleep before the run in hand's timeout,
 * at most ms. */
int post_dump__timeout_ms(const struct post_dump *pd, int ms);
/* Whether st changed since the last call. */
int post_dump__changed(struct post_dump *pd);
/* Recording is over: the runs queued, and those of dumps placed from now
 * on (the last one), are dropped (said), the one in hand gets SIGTERM,
 * then SIGKILL after half a second, with its group: the recorder ends
 * within a second of a SIGINT, and leaves nothing of its own running. */
void post_dump__end(struct post_dump *pd);
void post_dump__exit(struct post_dump *pd);

#endif
