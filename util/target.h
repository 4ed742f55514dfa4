/* What is recorded (a workload, tasks, CPUs or a user's tasks), and the
 * workload we start. */
#ifndef PERF_TARGET_H
#define PERF_TARGET_H

#include <sys/types.h>

/* What is recorded: a workload we start, existing pids/tids, or CPUs. */
struct target {
	const char *pid;	/* -p list */
	const char *tid;	/* -t list */
	const char *cpu_list;	/* -C list */
	int system_wide;	/* -a */
	const char *uid_str;	/* -u: a user name or number */
	uid_t uid;		/* ... as resolved by target__parse_uid() */
	int per_thread;		/* --per-thread: rings per thread, no per-CPU events */
};

/* Settles the switches that override others, as perf does: -p/-t win over
 * -u, -u over -a and -C, -a and -C over --per-thread. Returns the warning
 * to print ("UID switch overriding SYSTEM"...), or NULL. */
const char *target__validate(struct target *t);
/* -u: a user name, or the number of a user that exists. 0 or -ENOENT. */
int target__parse_uid(struct target *t);

/* A forked child that waits for workload__start() before it execs. */
struct workload {
	pid_t pid;
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: the child's errno if exec failed, EOF if it ran */
};

/* Forks the child for argv (with the caller's blocked signals unblocked
 * in it). 0 or -errno; w->pid is -1 when nothing was forked. */
int workload__prepare(struct workload *w, const char **argv);
/* Lets the child exec. 0, or -errno of the failed exec (the child is then
 * reaped). */
int workload__start(struct workload *w);
/* Kills (if still running) and reaps the child; returns its wait status. */
int workload__finish(struct workload *w, int kill_it);
/* wait status -> exit code of perf: the child's code, or 128 + signal. */
int workload__exit_code(int status);

#endif
