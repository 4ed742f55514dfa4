/* The capture crew, which copies and indexes every backward ring of a dump
 * at once, each on the ring's own CPU. */
#ifndef PERF_CAPTURE_H
#define PERF_CAPTURE_H

#include <pthread.h>
#include "flight/ring-copy.h"

/* Copies every backward ring of a dump at once, each on a thread pinned to
 * the ring's CPU: a capture then takes about one ring's copy time rather
 * than the sum of all of them, every ring is copied at nearly the same
 * instant, and the copy reads what that CPU's caches hold. The recorder's
 * thread only waits: unpinned, it could land on a CPU whose helper copies
 * too and double that CPU's share. The threads sleep between dumps. */
struct capture_crew {
	struct ring_copy *rcs;
	int nr;			/* rings */
	int threads;		/* helpers; 0: the recorder's thread copies */
	pthread_t *tid;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	u64 generation;		/* one per run */
	enum crew_job { CREW_CAPTURE, CREW_INDEX } job;
	u64 margin;		/* CREW_CAPTURE */
	u64 id_sample_type;	/* CREW_INDEX */
	int err;		/* CREW_INDEX: the first ring's that failed */
	int pending;		/* helpers still copying */
	int quit;
};

/* A crew for the nr rings of rcs: one helper a ring, up to cpus (the
 * CPUs online); none for a single ring or CPU: the recorder's thread
 * copies them all then. NULL with errno set; capture_crew__delete()
 * takes a half-made crew. */
struct capture_crew *capture_crew__new(struct ring_copy *rcs, int nr, int cpus);
void capture_crew__delete(struct capture_crew *c);
/* ring_copy__capture() of every ring (margin capped at a quarter of each),
 * returned from once all are copied. */
void capture_crew__run(struct capture_crew *c, u64 margin);
/* ring_copy__index() of every captured ring, each by the helper that
 * copied it (its CPU's caches hold the copy's end): on a big machine the
 * indexing of a dump takes one ring's time, not all of theirs. 0 or the
 * -errno of a ring that failed. One run at a time: the dump's writer
 * indexes while no capture can start. */
int capture_crew__index(struct capture_crew *c, u64 id_sample_type);

#endif
