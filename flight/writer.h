/* The writer: a thread that runs one job at a time, and between jobs the
 * work its owner does ahead, through the operations the owner gives it. */
#ifndef PERF_WRITER_H
#define PERF_WRITER_H

#include <pthread.h>

/* What the writer does with a job; it knows a job only as a pointer it
 * hands to these. They run on the writer's thread, but for ready() at
 * writer__warm(). */
struct writer_ops {
	/* Runs a submitted job; its outcome stays in the job. */
	void (*run)(void *job);
	/* Readies the next job (arg from writer__warm()): at writer__warm()
	 * on the caller's thread, then after each job run, before the job
	 * is announced done. */
	void (*ready)(void *job, const void *arg);
	/* The work ahead, done while there is nothing else to do; gives up
	 * as soon as *stop turns nonzero (set by another thread). */
	void (*ahead)(void *job, const int *stop);
	/* Whether the work ahead is worth doing again while idle, to keep
	 * what it made from being taken back. */
	int (*ahead_again)(const void *job);
};

/* One job running, at most: a job meanwhile waits for it to finish (what
 * the job holds is the writer's until then). Between jobs it does the
 * work ahead, and gives that up at once for a job or a stop. Only the
 * owner's thread calls these. */
struct writer {
	const struct writer_ops *ops;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *job;		/* submitted and not yet reaped */
	int done;		/* job is run */
	int quit;
	int started;
	int efd;		/* eventfd, readable when a job is done */
	/* the work ahead: whose, with what, and the thread's part */
	void *warm_job;
	const void *warm_arg;
	int warm_due;		/* to be done when nothing else is to do */
	int warming;
	int hurry;		/* read atomically while warming: give it up */
};

/* Starts the thread, which runs jobs through ops (must outlive the
 * writer). 0 or -errno; writer__stop() undoes a failed start. */
int writer__start(struct writer *w, const struct writer_ops *ops);
/* Waits for the job in progress, then ends the thread. */
void writer__stop(struct writer *w);
/* The fd to poll: readable when the job is done (-1 before start). */
static inline int writer__fd(const struct writer *w) { return w->efd; }
static inline int writer__busy(const struct writer *w) { return w->job != NULL; }
/* Readies job's next run with arg now (ops->ready), and again after each
 * job run; does the work ahead while there is nothing else to do. Before
 * any job; arg must outlive the writer. */
void writer__warm(struct writer *w, void *job, const void *arg);
/* A job is coming: the work ahead stops now, not at the hand-over (what
 * comes before the job comes first). */
void writer__hurry(struct writer *w);
/* Hands a job over (the writer must not be busy). */
void writer__submit(struct writer *w, void *job);
/* The job run, once done (it is the caller's again), else NULL. */
void *writer__reap(struct writer *w);
/* Waits for the job in progress and returns it (NULL if there is none);
 * stops the work ahead for good, so that the caller may run a job
 * itself. */
void *writer__wait(struct writer *w);

#endif
