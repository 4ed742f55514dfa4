/* perf record's loop: the signals and --control commands it answers, -D's
 * schedule, and the poll that waits for the rings between them. */
#ifndef PERF_RECORD_LOOP_H
#define PERF_RECORD_LOOP_H

#include "lib/util.h"

struct pollfd;
struct record;

/* Why the loop ended, or RECORD_RUNNING while it goes on. */
enum record_why {
	RECORD_RUNNING,
	RECORD_STOP_SIGNAL,	/* SIGINT, SIGTERM, SIGHUP, --control stop, -D, --max-size */
	RECORD_STOP_CHILD,	/* the workload exited */
	RECORD_STOP_HUP,	/* every watched task is gone */
};

/* The poll set's first entries; every event fd follows them. */
enum {
	RECORD_PFD_SIGNAL,	/* the signalfd */
	RECORD_PFD_CONTROL,	/* --control's command fd */
	RECORD_PFD_WRITER,	/* the dump writer: a dump is written */
	RECORD_PFD_BPF,		/* the BPF side-band: a program loaded */
	RECORD_PFD_HOTPLUG,	/* the CPU hotplug watch: a CPU went or came back */
	RECORD_PFD_HOOK,	/* --switch-output-exec: the run in hand's output */
	RECORD_NR_FIXED_FDS,
};

/* Blocks the signals the loop answers (SIGINT, SIGTERM, SIGCHLD, SIGUSR2,
 * SIGHUP, SIGPIPE) and reads them from rec->sig_fd from now on. 0 or
 * -errno. */
int record__setup_signals(struct record *rec);
/* Reads every pending signal: why to stop, or RECORD_RUNNING. A SIGUSR2
 * (any number of them) asks for one switch. */
int record__handle_signals(struct record *rec);
/* Serves the --control commands queued on pfd's fd, then acks them; at
 * EOF or on a read error pfd->fd becomes -1. A stop sets *why. */
void record__control(struct record *rec, struct pollfd *pfd, int *why);
/* -D: the ns of the next enable or disable, 0 when none is planned. */
u64 record__delay_next(struct record *rec);
/* -D: enables and disables the events as their times come; after the
 * last range, *why says stop. */
void record__delay_step(struct record *rec, int *why);
/* How long (ms) the next poll may wait: the nearest of -D's next edge, a
 * held binary, a size or time trigger, a delayed switch. */
int record__poll_timeout(struct record *rec);
/* The poll set: RECORD_NR_FIXED_FDS fixed entries, then every event fd,
 * or with events of whole CPUs every forward ring's (*nr in all); NULL
 * with errno set. The caller frees it. */
struct pollfd *record__pollfds(struct record *rec, int *nr);
/* Records until a signal, a command, the workload's end or an error says
 * stop (*why says which). 0 or -errno with the cause printed. */
int record__loop(struct record *rec, int *why);
/* Waits for the workload to end, answering signals meanwhile; terminate
 * sends it SIGTERM first. Its wait status (0 without a workload). */
int record__wait_workload(struct record *rec, int terminate);

#endif
