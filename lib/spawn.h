/* A shell command run apart from its caller: its own process group, no
 * fd of the caller's, its output on a pipe the caller reads. */
#ifndef PERF_SPAWN_H
#define PERF_SPAWN_H

#include <sys/types.h>

/* A command started by spawn__shell(). */
struct spawn {
	pid_t pid;	/* also its process group's id */
	int out_fd;	/* the read end of its stdout and stderr, O_NONBLOCK|O_CLOEXEC */
};

/* Runs "/bin/sh -c SCRIPT NAME ARG" with environment ENVP: ARG reaches the
 * script as "$1", never as text of the script, so its bytes are never
 * parsed by the shell. The child leads a process group of its own (a
 * Ctrl-C of the caller's terminal does not reach it, spawn__kill() reaches
 * all it started), reads /dev/null, writes both stdout and stderr into
 * sp->out_fd's pipe, holds no other fd of the caller's (every fd from 3 up
 * is closed, whether close-on-exec or not), has every signal unblocked and
 * at its default action, and runs SCHED_OTHER whatever the caller's
 * policy. 0, or -errno with nothing left running. */
int spawn__shell(struct spawn *sp, const char *script, const char *name, const char *arg,
		 char *const envp[]);
/* SIG to every process of sp's group. 0 or -errno (-ESRCH: none left). */
int spawn__kill(const struct spawn *sp, int sig);

#endif
