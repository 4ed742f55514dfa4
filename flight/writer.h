#ifndef PERF_WRITER_H
#define PERF_WRITER_H

#include <pthread.h>

struct dump;

/* The dump writer: a thread that writes one captured dump at a time while
 * the recorder's loop goes on draining, answering signals and commands.
 * One dump writing, at most: a trigger meanwhile waits for it to finish
 * (the capture buffers are the writer's until then). Between dumps it
 * makes the next dump's file ahead (dump__warm()), and gives that up at
 * once for a dump or a stop. Only the recorder's thread calls these. */
struct writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct dump *job;	/* submitted and not yet reaped */
	int done;		/* job is written */
	int quit;
	int started;
	int efd;		/* eventfd, readable when a job is done */
	/* the file ahead: whose, where, and the thread's part */
	struct dump *warm_dump;
	const char *warm_path;
	int warm_due;		/* to be made when nothing else is to do */
	int warming;
	int hurry;		/* read atomically while warming: give it up */
};

/* Starts the thread. 0 or -errno; writer__stop() undoes a failed start. */
int writer__start(struct writer *w);
/* Waits for the dump in progress, then ends the thread. */
void writer__stop(struct writer *w);
/* The fd to poll: readable when the job is done (-1 before start). */
static inline int writer__fd(const struct writer *w) { return w->efd; }
static inline int writer__busy(const struct writer *w) { return w->job != NULL; }
/* Opens d's next file in path's directory now, and again after each dump
 * written, before the dump is done; faults it in while there is nothing
 * else to do. Before any dump; path must outlive the writer. */
void writer__warm(struct writer *w, struct dump *d, const char *path);
/* A dump is coming: the making of a file ahead stops now, not at the
 * hand-over (the drain and the capture come first). */
void writer__hurry(struct writer *w);
/* Hands a captured dump over (the writer must not be busy). */
void writer__submit(struct writer *w, struct dump *d);
/* The written dump, once done (it is the caller's again), else NULL. */
struct dump *writer__reap(struct writer *w);
/* Waits for the dump in progress and returns it (NULL if there is none);
 * stops making files ahead for good, so that the caller may write a dump
 * itself. */
struct dump *writer__wait(struct writer *w);

#endif
