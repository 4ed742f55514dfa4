/* A backward ring and its capture: the buffer a dump reads it from, and
 * what the capture found in it. */
#ifndef PERF_RING_COPY_H
#define PERF_RING_COPY_H

#include "util/mmap.h"
#include "flight/record-index.h"

/* One backward ring and its capture buffer. The buffer is as big as the
 * ring, allocated and faulted in when the ring is mapped and reused by every
 * dump: a dump copies at memory speed, with no allocation and no page fault
 * while the ring runs on. A capture holds buf[start, len): complete records,
 * newest first, as the ring has them.
 *
 * Or one CPU's two backward rings, each written by one of two sets of
 * twin events (evlist__switch_twins()): a capture then reads the ring
 * that stands still where it is, buf[start & mask] on, and copies
 * nothing. */
struct ring_copy {
	struct mmap *m;		/* the ring (an image in tests); with twins, the first set's */
	struct mmap *twin;	/* the twins' ring, or NULL: captures copy m */
	int cpu;
	u64 last_head;		/* m's data_head at the previous capture: new data ends here */
	u64 twin_last_head;	/* the same for twin */
	u64 floor;		/* with twins: the newest time dumped from this CPU */
	u64 overlap;		/* with twins: records at or before floor, left out */
	u64 cut_ns;		/* with twins: the capture's samples after it are left out (0: none) */
	u64 cut;		/* with twins: samples after cut_ns, left out */
	char *buf;		/* capture buffer, m's data size; with twins, the data read in place */
	u64 mask;		/* offsets into buf wrap at it (UINT64_MAX: a copy) */
	u64 size;
	u64 colour;		/* bytes of the mapping before buf */
	struct record_index idx;	/* of the latest capture, oldest first; kept */
	/* the latest capture */
	u64 head;		/* data_head when copied */
	u64 clock;		/* CLOCK_MONOTONIC just before the copy */
	u64 start;		/* newest bytes given back to the ring (deferred); with twins, head */
	u64 len;		/* bytes copied that are safe to read, past start with twins */
	u64 new_bytes;		/* bytes the kernel wrote since the previous capture */
	int wrapped;		/* some of them were overwritten before the copy */
};

/* Memory a capture buffer and its preallocated index take for a ring of
 * data_bytes: what ring_copy__init() will allocate. */
u64 ring_copy__bytes(u64 data_bytes);
/* The same for twins: the index alone. */
u64 ring_copy__twins_bytes(u64 data_bytes);
/* Allocates and faults in the capture buffer and index for ring m (up to
 * 4G of data: offsets are 32 bits). New data starts at m's current head.
 * 0 or -errno; ring_copy__exit() accepts a half-built rc. */
int ring_copy__init(struct ring_copy *rc, struct mmap *m);
void ring_copy__exit(struct ring_copy *rc);
/* The same for a CPU's two rings, m of the first set of events and twin
 * of their twins: no capture buffer, the index only. */
int ring_copy__init_twins(struct ring_copy *rc, struct mmap *m, struct mmap *twin);

/* Twins: takes what ring set (0: m, 1: twin) wrote since its previous
 * capture, now that it stands still (switched from, or every event
 * disabled). An event switched from may yet finish a record it was
 * writing (nanoseconds): with a wrapped ring, margin bytes at the old end
 * are not read. The next capture of the ring starts where this one did.
 * After a switch, sets cut_ns: the samples after the switch's cut
 * (mmap.switched_ns) are in the other ring too and go to the next dump, except
 * those older than the other ring's first record since the cut (times in
 * the sample_id layout id_sample_type): a hit the enable interrupted,
 * which reached this ring alone. No record there: no cut. */
void ring_copy__freeze(struct ring_copy *rc, int set, u64 margin, u64 id_sample_type);
/* Bytes ring set wrote since its previous capture (without twins, set 0
 * is the only one: ring_copy__fresh()). */
u64 ring_copy__fresh_in(const struct ring_copy *rc, int set);

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
 * (record_index__build()). With twins, the records at or before the
 * newest time this CPU dumped are left out, and counted in overlap: they
 * were written while both twins were on, a shared hit in both rings,
 * stamped first by the event opened last (evlist__switch_twins()), whose
 * ring is read next. So are, counted in cut, the samples after cut_ns
 * (ring_copy__freeze()): the twins sampled then on every CPU, and the
 * next dump has them, so that this one ends at one instant on every CPU
 * (later on a CPU where a hit the twin's enable interrupted was stamped
 * after it). 0 or -ENOMEM. */
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
