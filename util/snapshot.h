#ifndef PERF_SNAPSHOT_H
#define PERF_SNAPSHOT_H

#include "util/mmap.h"

/* One backward ring as copied out at a dump: the bytes from data_head on
 * (newest record first), cut where the kernel may have overwritten them. */
struct ring_copy {
	struct mmap *m;		/* the live ring, NULL for an image */
	u64 head;		/* data_head when copied */
	u64 clock;		/* CLOCK_MONOTONIC just before the copy */
	int cpu;
	char *buf;
	u64 len;		/* bytes copied that are safe to read */
	u64 new_bytes;		/* bytes the kernel wrote since the previous dump */
	int wrapped;		/* some of them were overwritten before we copied */
	u64 *offs;		/* record offsets in buf, oldest first */
	u64 nr;
};

/* Copies the part of a backward ring written since the previous capture,
 * without pausing it: the head is read before and after the copy, and what
 * the kernel wrote meanwhile (plus margin bytes for records in flight) is
 * cut from the old end. Sets m->prev so the next capture starts where this
 * one did. 0 or -ENOMEM. The caller frees rc with ring_copy__release(). */
int ring_copy__capture(struct ring_copy *rc, struct mmap *m, u64 margin);
/* Copies the ring image as if captured with a head of head and a previous
 * head of prev (for tests: the ring is not live). */
int ring_copy__from_image(struct ring_copy *rc, const struct mmap *m, u64 head, u64 prev);
/* Indexes the complete records of a copy, oldest first. Stops at a zero
 * header (never written), a bad size, or a record crossing rc->len (torn).
 * 0 with rc->nr set, or -ENOMEM (a dump never goes out silently cut). */
int ring_copy__index(struct ring_copy *rc);
void ring_copy__release(struct ring_copy *rc);

/* Gives back the newest records of a copy (those with time > end) to its
 * live ring, so the next capture reads them again: rings are copied one
 * after another, and a dump must not hold one CPU's records from after the
 * moment another CPU's ring was copied. Returns the records given back. */
u64 ring_copy__defer_after(struct ring_copy *rc, u64 end,
			   u64 (*time_of)(const struct perf_event_header *h, void *arg), void *arg);

/* Sample time at SAMPLE_TIME_OFFSET (util/event.h), 0 for a short record. */
u64 snapshot__sample_time(const struct perf_event_header *h);

struct merge_ref {
	const struct perf_event_header *h;
	u64 time;
	u64 seq;
};

/* Sorts refs by time, keeping the given order among equal times. */
void snapshot__sort(struct merge_ref *refs, u64 nr);

/* The common window start of a dump: the newest "oldest record time" among
 * rings that wrapped, 0 when none did. */
u64 snapshot__window_start(struct ring_copy *rcs, int n,
			   u64 (*time_of)(const struct perf_event_header *h, void *arg), void *arg);

#endif
