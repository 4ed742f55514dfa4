/* perf daemon's state on disk for its clients: the lock of a base, the
 * status file, and what a session's output says. */
#ifndef PERF_DAEMON_STATUS_H
#define PERF_DAEMON_STATUS_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct session_list;

/* BASE/lock: one daemon per base. The daemon holds a write lock on it for
 * its lifetime (the kernel drops it when the daemon dies, however it dies),
 * so the owner is asked of the kernel, never read from a pid in a file. */

/* Takes the lock. The locked fd (kept open by the caller for its
 * lifetime), or -errno with errbuf saying why; -EAGAIN when another daemon
 * owns BASE ("failed: another perf daemon (pid N) owns BASE"). */
int daemon_lock__take(const char *base, char *errbuf, size_t errsz);
/* The pid of the daemon owning BASE: the process that holds the lock and
 * wrote its pid and start time into the file when it took it. 0 when
 * nobody holds the lock; -ESRCH when a process (its pid in *holder)
 * holds it that is not the daemon which took it; -errno. */
pid_t daemon_lock__owner(const char *base, pid_t *holder);

/* BASE/status: the daemon's pid and start (the first line, "daemon PID
 * START": a session may be named daemon too), and each session's pid, start
 * and run, rewritten (temp name, then rename) whenever one changes, for
 * `perf daemon` (the listing), ping and signal; then lines an older
 * client skips (their first field is no session's name): "+config PATH"
 * (escaped, lib/escape.h) and "+session NAME STATE RESTARTS" for each
 * session. 0, or -errno with errbuf naming the file (the daemon retries:
 * a full disk must not leave a session unlisted for good). */
int daemon_status__write(const char *base, pid_t daemon_pid, time_t started,
			 const char *config_path, const struct session_list *l, char *errbuf,
			 size_t errsz);

struct status_session {
	char *name, *run;
	pid_t pid;
	time_t started;
	char state[16];		/* session__state()'s; "" when the status does not say */
	unsigned restarts;
};

struct daemon_status {
	pid_t pid;
	time_t started;
	char *config;		/* the daemon's config file; NULL when the status does not say */
	struct status_session *sessions;
	int nr;
};

/* Reads BASE/status, a regular file reached through no link (ELOOP,
 * EINVAL). A status the caller frees with daemon_status__delete(), or
 * NULL with errno set. */
struct daemon_status *daemon_status__new(const char *base);
void daemon_status__delete(struct daemon_status *st);

/* The bytes of a session's name (daemon/daemon-config.c checks them). */
#define SESSION_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/* Sessions the status does not list (it could not be written, a full
 * disk) but whose directory says they are there, added with pid 0 and run
 * "?": with NAME, BASE/session-NAME if it is a directory of ours; without,
 * every BASE/session-* whose control fifo a recorder holds open. A running
 * session is so never invisible to ping and signal. 0 or -errno. */
int daemon_status__add_sessions(struct daemon_status *st, const char *base, const char *name);

/* A session's run writes this, then its pid and " ]", as the first line
 * of its messages in SESSION_DIR/output. */
#define SESSION_START_MARK "[ perf daemon: session starts: pid "

/* The triggers the run of PID ignored over --switch-output-max-rate, from
 * the messages in SESSION_DIR/output (the recorder logs a running count),
 * or -errno when the output cannot be read. */
long long session_output__ignored(const char *session_dir, pid_t pid);

/* What a session's recorder says of its dumps, triggers and post-dump
 * runs in SESSION_DIR/state (perf record --switch-output-state). */
struct session_state {
	pid_t pid;		/* the recorder that wrote it; 0: no file */
	unsigned long long dumps, dumps_failed, triggers_ignored, triggers_merged;
	unsigned long long hook_runs, hook_failed, hook_killed, hook_dropped, hook_queued;
	int hook_running;
	int hook_last_status;	/* a wait status; -1: none yet */
	char last_dump[4096];	/* "" when none */
	double last_dump_time;	/* seconds since the epoch */
};

/* A state file is a dozen short lines and one escaped path: anything
 * bigger is no recorder's, and is not read. */
#define SESSION_STATE_MAX (64 * 1024)

/* Reads SESSION_DIR/SESSION_STATE_FILE into ss: never through a link (of
 * the directory or the file), a regular file of at most SESSION_STATE_MAX
 * bytes only (-EINVAL, -EFBIG). 0, or -errno with ss as "no file" (pid 0,
 * no dump). Keys it does not know are skipped, a last_dump that does not
 * unescape is left out. */
int session_state__read(const char *session_dir, struct session_state *ss);

#endif
