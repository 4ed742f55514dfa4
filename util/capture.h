#ifndef PERF_CAPTURE_H
#define PERF_CAPTURE_H

#include <pthread.h>
#include "util/ring-copy.h"

/* Copies every backward ring of a dump at once, each on a thread pinned to
 * the ring's CPU, the recorder's thread taking a share: a capture then
 * takes about one ring's copy time rather than the sum of all of them (a
 * copy of a ring written long ago is bound by one core's page walks and
 * misses, not by the memory's bandwidth), every ring is copied at nearly
 * the same instant, and the copy reads what that CPU's caches hold. The
 * threads sleep between dumps. */
struct capture_crew {
	struct ring_copy *rcs;
	int nr;			/* rings */
	int threads;		/* helpers besides the recorder's thread */
	pthread_t *tid;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	u64 generation;		/* one per capture */
	u64 margin;
	int pending;		/* helpers still copying */
	int quit;
};

/* A crew for the nr rings of rcs: one helper a ring but the first, up to
 * the CPUs online less one. NULL with errno set; capture_crew__delete()
 * takes a half-made crew. */
struct capture_crew *capture_crew__new(struct ring_copy *rcs, int nr);
void capture_crew__delete(struct capture_crew *c);
/* ring_copy__capture() of every ring (margin capped at a quarter of each),
 * returned from once all are copied. */
void capture_crew__run(struct capture_crew *c, u64 margin);

#endif
