/* The perf daemon itself: its state, its set-up, and the loop that keeps
 * the config's record sessions running until a stop. */
#ifndef PERF_DAEMON_H
#define PERF_DAEMON_H

#include "daemon/daemon-config.h"
#include "daemon/daemon-session.h"
#include "lib/util.h"

#include <limits.h>
#include <time.h>

/* perf daemon's command line, as the daemon and the client commands share it. */
struct daemon_opts {
	int verbose;
	const char *sep;
	const char *config;
	const char *base;
	int foreground;
	const char *session;
	int json;		/* the listing and ping: one JSON object */
};

/* A running daemon; daemon__exit() frees what daemon__run() set up. */
struct daemon {
	struct daemon_opts *opts;
	struct daemon_config *config;
	struct session_list sessions;
	char config_path[PATH_MAX];
	const char *config_name;	/* its last component, for inotify */
	char perf_exe[PATH_MAX];
	int lock_fd, sig_fd, ino_fd;
	time_t started;
	u64 status_retry_ns;	/* a status write failed: the next try; 0: none due */
};

/* The daemon, in the foreground (report -1) or in the child of a
 * background start (report: the pipe to the starting command, which gets
 * "ok" or the one line that says why it could not start): set up, the
 * sessions started, then the loop until a stop. Returns the exit status. */
int daemon__run(struct daemon *d, int report);
/* Stops the sessions, removes the status, closes the lock and frees the
 * config; d->config may be NULL, the fds -1. */
void daemon__exit(struct daemon *d);

#endif
