/* perf daemon's sessions: the configured perf record runs, started,
 * restarted and stopped as the config says; and the daemon's log. */
#ifndef PERF_DAEMON_SESSION_H
#define PERF_DAEMON_SESSION_H

#include "lib/util.h"

#include <sys/types.h>
#include <time.h>

struct daemon_config;

/* One configured `perf record`, run in BASE/session-NAME with its stdout
 * and stderr in output there, --control=fifo:control,ack, and
 * --switch-output-state=state (SESSION_STATE_FILE); with post-dump, its
 * command as --switch-output-exec, and PERF_DAEMON_SESSION=NAME in its
 * environment. */
#define SESSION_STATE_FILE "state"

struct daemon_session {
	char *name;
	char *run;		/* record's arguments, without "record" */
	char *post_dump;	/* --switch-output-exec (NULL: none) */
	char *post_dump_timeout;	/* --switch-output-exec-timeout (NULL: its default) */
	unsigned restarts;	/* starts after the first */
	char *dir;		/* BASE/session-NAME */
	pid_t pid;		/* -1 while not running */
	time_t started;		/* wall clock, for "up" */
	u64 start_ns;		/* monotonic, to tell a crash loop from a long run */
	u64 restart_at;		/* monotonic ns of the next start; 0: none planned */
	u64 stop_ns;		/* stopping: when it was sent SIGINT; 0: not stopping */
	u64 progress;		/* stopping: its CPU ticks and bytes written, as last read */
	u64 progress_ns;	/* ... and when they last changed */
	int killed;		/* stopping took too long: SIGKILL sent */
	unsigned backoff_s;	/* the wait before the next restart after a death */
	int removed;		/* forget it once it has ended */
	int start_when_reaped;	/* its run changed: start the new one at once */
};

/* What a session is doing, for the status and perf daemon --json. */
const char *session__state(const struct daemon_session *s);

/* A stop (perf daemon stop, SIGTERM, a reload that changes or removes a
 * session) lets a recorder write its last dump: SIGINT, then SIGKILL only
 * once it has made no progress (no CPU time used, no byte written) for
 * DAEMON_STOP_STALL_S, or has taken DAEMON_STOP_MAX_S in all. A dump that
 * works, however slow (big rings, -z 19, a slow disk), keeps using CPU or
 * writing; one that does neither for that long is stuck. The bound: a
 * dump of a few GB of rings to a disk that takes 20 MB/s, or of 1 GB at
 * zstd's level 19. The unit's TimeoutStopSec (contrib/perf-flightrec.service)
 * and `perf daemon stop` wait DAEMON_STOP_MAX_S plus a margin for the
 * daemon itself. */
#define DAEMON_STOP_STALL_S 20
#define DAEMON_STOP_MAX_S 300

struct session_list {
	struct daemon_session **s;
	int nr;
	const char *perf_exe;	/* the binary sessions run, as "PERF record ..." */
	const char *base;
	int changed;		/* a pid or the list changed: rewrite the status */
};

/* Brings the list to what CONFIG says: new sessions started, removed ones
 * stopped, ones whose run changed stopped and started again. 0 or -errno
 * (reported). */
int session_list__apply(struct session_list *l, const struct daemon_config *config);
/* A child ended: logs it, plans its restart with backoff (or drops a
 * removed session). Returns 1 if PID was a session's, 0 if not. */
int session_list__reaped(struct session_list *l, pid_t pid, int status);
/* Starts what is due, kills a stopping recorder that is stuck or over
 * DAEMON_STOP_MAX_S. */
void session_list__tick(struct session_list *l);
/* SIGINT to every running session, none restarted after. */
void session_list__stop_all(struct session_list *l);
/* The milliseconds poll() may sleep before session_list__tick() has work,
 * -1 if none is planned. */
int session_list__timeout_ms(const struct session_list *l);
/* Sessions that still have a process. */
int session_list__running(const struct session_list *l);
void session_list__delete(struct session_list *l);

/* One line on the daemon's log (its stderr), time-stamped. */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Creates DIR (0700), or checks that it is a real directory of ours; the
 * same for the fifos DIR/control and DIR/ack (0600). 0 or -errno, with
 * errbuf naming the path. */
int session_dir__prepare(const char *dir, char *errbuf, size_t errsz);

#endif
