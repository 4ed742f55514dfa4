#ifndef PERF_RING_COPY_H
#define PERF_RING_COPY_H

#include "util/mmap.h"
#include "util/record-index.h"

/* One backward ring and its capture buffer. The buffer is as big as the
 * ring, allocated and faulted in when the ring is mapped and reused by every
 * dump: a dump copies at memory speed, with no allocation and no page fault
 * while the ring runs on. A capture holds buf[start, len): complete records,
 * newest first, as the ring has them. */
struct ring_copy {
	struct mmap *m;		/* the ring (an image in tests) */
	int cpu;
	u64 last_head;		/* data_head at the previous capture: new data ends here */
	char *buf;		/* capture buffer, m's data size */
	u64 size;
	u64 colour;		/* bytes of the mapping before buf */
	struct record_index idx;	/* of the latest capture, oldest first; kept */
	/* the latest capture */
	u64 head;		/* data_head when copied */
	u64 clock;		/* CLOCK_MONOTONIC just before the copy */
	u64 start;		/* newest bytes given back to the ring (deferred) */
	u64 len;		/* bytes copied that are safe to read */
	u64 new_bytes;		/* bytes the kernel wrote since the previous capture */
	int wrapped;		/* some of them were overwritten before the copy */
};

/* Memory a capture buffer and its preallocated index take for a ring of
 * data_bytes: what ring_copy__init() will allocate. */
u64 ring_copy__bytes(u64 data_bytes);
/* Allocates and faults in the capture buffer and index for ring m (up to
 * 4G of data: offsets are 32 bits). New data starts at m's current head.
 * 0 or -errno; ring_copy__exit() accepts a half-built rc. */
int ring_copy__init(struct ring_copy *rc, struct mmap *m);
void ring_copy__exit(struct ring_copy *rc);

/* Copies what the kernel wrote since the previous capture, without pausing
 * the ring: the head is read before and after the copy, and what the kernel
 * wrote meanwhile (plus margin bytes for records in flight) is cut from the
 * old end. The next capture starts where this one did. */
void ring_copy__capture(struct ring_copy *rc, u64 margin);
/* Bytes the kernel wrote since the previous capture (a size trigger). */
u64 ring_copy__fresh(const struct ring_copy *rc);
/* Gives the records newer than end (time, sample_id layout id_sample_type)
 * back to the ring, so the next capture reads them again: rings are copied
 * one after another, and a dump must not hold one CPU's records from after
 * the moment another CPU's ring was copied. Call before the index. Returns
 * the records given back. */
u64 ring_copy__defer_after(struct ring_copy *rc, u64 end, u64 id_sample_type);
/* Defers, in each of the n copies, the records newer than the earliest
 * copy's clock less slack ns (for records in flight), so that a dump's
 * window ends at one moment on every CPU. Unless that would leave the dump
 * with none: a snapshot just after the start, or of a rare event, then gets
 * what there is, its end up to the slack apart across CPUs. Returns the
 * records deferred. */
u64 ring_copy__defer_newest(struct ring_copy *rcs, int n, u64 slack, u64 id_sample_type);
/* Indexes the complete records of the capture into rc->idx, oldest first
 * (record_index__build()). 0 or -ENOMEM. */
int ring_copy__index(struct ring_copy *rc, u64 id_sample_type);

static inline const struct perf_event_header *ring_copy__record(const struct ring_copy *rc,
								  u64 i)
{
	return (const struct perf_event_header *)(rc->buf + rc->idx.offs[i]);
}

/* The common window start of a dump: the newest "oldest record time" among
 * the indexed rings that wrapped, 0 when none did. */
u64 ring_copy__window_start(const struct ring_copy *rcs, int n);

#endif
