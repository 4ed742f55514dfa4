/* The tracking log: the records that name tasks and maps, kept so that any
 * dump's samples can be resolved, exited tasks included. */
#ifndef PERF_TRACKING_H
#define PERF_TRACKING_H

#include <linux/perf_event.h>
#include "lib/buf.h"

struct held_files;

/* The tasks and maps that samples refer to, kept as the raw tracking
 * records (COMM, MMAP, MMAP2, FORK, EXIT, KSYMBOL, ...) from the forward
 * rings and /proc synthesis, in arrival order. Replaying them gives any
 * reader every task's comm and maps at any time, including tasks that have
 * exited. Memory is bounded by cap; what is dropped is counted. */
struct tracking {
	struct buf log;
	u64 cap;
	u64 id_sample_type;	/* the sample_id trailer layout */
	u64 nr_records;
	u64 evicted_records;	/* dropped for the cap while still possibly needed */
	u64 pruned_records;	/* dropped because their task exited before a dump */
	u64 lost;		/* tracking records the kernel dropped (rings full) */
	u64 lost_named;		/* lost at the last naming from /proc */
	u64 full;		/* drains that found a ring too full to be sure nothing
				 * was dropped (the kernel writes a ring's LOST only
				 * with its next record, which may come much later) */
	u64 full_named;		/* full at the last naming from /proc */
	u64 renamings;		/* times the live tasks were named from /proc */
	u64 renamed;		/* COMMs those added */
	u64 rename_ns;		/* the last one's time */
	struct held_files *held;	/* the binaries the log maps, held open (NULL: none);
					 * tracking__exit() frees it */
};

void tracking__init(struct tracking *t, u64 cap, u64 id_sample_type);
void tracking__exit(struct tracking *t);
/* Is this a record type the log keeps? */
int tracking__wants(u32 type);
/* Appends a copy of one record (h->size bytes, contiguous; a KSYMBOL or
 * BPF_EVENT the kernel over-sized, trimmed: event__trim()). 0 or -ENOMEM. */
int tracking__add(struct tracking *t, const struct perf_event_header *h);
/* The kernel dropped n tracking records (a forward ring was full). */
static inline void tracking__lost(struct tracking *t, u64 n)
{
	t->lost += n;
}
/* A drain found a forward ring within a record of full: records may
 * have been dropped whose LOST is not written yet. */
static inline void tracking__ring_full(struct tracking *t)
{
	t->full++;
}
/* Whether records were lost (or a ring was found full) since the tasks
 * were last named from /proc,
 * and that was at least min_gap_ns before now_ns: a machine that keeps
 * the rings full is not read whole again on every drain. */
int tracking__rename_due(const struct tracking *t, u64 now_ns, u64 min_gap_ns);
/* Appends the COMMs names holds (back to back), read from /proc at
 * now_ns for the tasks the lost records named, and counts them. 0 or
 * -ENOMEM. */
int tracking__rename(struct tracking *t, const struct buf *names, u64 now_ns);
/* Drops the records of tasks whose EXIT is older than before (time): no
 * sample of a later dump can refer to them. Then, if still over the cap,
 * drops the oldest records and counts them as evicted. 0, or -ENOMEM when
 * the exited tasks could not be pruned (the cap is enforced all the same). */
int tracking__prune(struct tracking *t, u64 before);

#define tracking__for_each(t, h) \
	for (const struct perf_event_header *h = (const void *)(t)->log.p; \
	     (const char *)h < (t)->log.p + (t)->log.len; \
	     h = (const void *)((const char *)h + h->size))

#endif
