/* The stage pipe: a dump's merged records go to the file a buffer at a
 * time, written by a thread of their own. */
#ifndef PERF_STAGE_PIPE_H
#define PERF_STAGE_PIPE_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>

struct perf_data;

/* A dump's records go to the file a stage (a buffer of whole records) at a
 * time, through a thread of their own: while it writes one stage (and
 * compresses it with -z, and reads its samples for build ids), the merge
 * fills the next, so a dump costs about the slower of the two rather than
 * their sum. The thread sleeps between dumps. */
#define STAGE_PIPE_DEPTH 4

struct stage_pipe {
	char *buf[STAGE_PIPE_DEPTH];
	size_t len[STAGE_PIPE_DEPTH];
	size_t size;		/* the bytes a stage holds */
	int tail, count;	/* the stages handed over and not yet written, oldest first */
	struct perf_data *out;	/* the file being written, the thread's alone meanwhile */
	int feeds;		/* its writes feed out->hits (else the caller does) */
	int err;		/* the first write's -errno in this file */
	int quit, running;
	cpu_set_t home;		/* the thread's CPUs before a dump kept it off one */
	cpu_set_t caller_home;	/* the merge's CPUs before a dump kept it on one */
	int spread;		/* both are to be given back at the dump's end */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t filled, freed;
};

/* Stages of size bytes, faulted in now (a dump must not stop for page
 * faults), and the writing thread. 0 or -errno; stage_pipe__exit() takes
 * a half-made pipe. */
int stage_pipe__init(struct stage_pipe *p, size_t size);
void stage_pipe__exit(struct stage_pipe *p);
/* The stages that follow go to out: perf_data__write_ring() when the
 * pipe feeds out->hits too, else perf_data__put_ring() (the caller feeds
 * it, if it wants, as it fills them). Until stage_pipe__finish(), which
 * the same thread calls, the caller is kept on the CPU it is on and the
 * pipe's thread off it. */
void stage_pipe__start(struct stage_pipe *p, struct perf_data *out, int feeds);
/* The stage to fill next, once one is free: the pipe's, not to be freed. */
char *stage_pipe__stage(struct stage_pipe *p);
/* Hands over the stage from stage_pipe__stage() with len bytes in it.
 * Returns the -errno of a write that failed so far (stop then), or 0. */
int stage_pipe__put(struct stage_pipe *p, size_t len);
/* Waits until every stage handed over is written; out is the caller's
 * again, and both threads have their CPUs back. The first -errno of the
 * file's writes, or 0. */
int stage_pipe__finish(struct stage_pipe *p);

#endif
