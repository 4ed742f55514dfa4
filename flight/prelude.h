/* A dump's prelude: the tracking records its samples need, selected from
 * the tracking log and the forward rings. */
#ifndef PERF_PRELUDE_H
#define PERF_PRELUDE_H

#include "flight/merge.h"

/* The forward records of one dump, in time order: the tracking records of
 * the tasks its samples refer to (and of their ancestors), and the records
 * the forward rings held for it. A dump of one busy task on a big host
 * then carries that task's maps, not every map of every process ever seen.
 * Memory is kept from dump to dump. */
struct prelude {
	u64 *pids;		/* open addressing, pid + 1 (0: empty) */
	u64 pids_cap, nr_pids;
	struct timed_ref *refs, *scratch;
	u32 *offs;		/* the selection, oldest first */
	u64 *times;		/* and their times */
	u64 cap, nr;
	u64 records, bytes;	/* tracking records selected, and their size */
	u64 log_records;	/* tracking records there were to choose from */
	u64 pending_data;	/* samples and LOST among the other forward records */
};

/* Forgets the tasks of the previous dump. */
void prelude__reset(struct prelude *p);
/* Adds a task the dump refers to. 0 or -ENOMEM. */
int prelude__add_pid(struct prelude *p, u32 pid);
int prelude__has_pid(const struct prelude *p, u32 pid);
/* Selects from buf: its first log_len bytes are the tracking log, the rest
 * forward-ring records for this dump (all kept; their samples' tasks count
 * too). Fills p->offs with the selection sorted by time (stable). 0 or
 * -ENOMEM. */
int prelude__select(struct prelude *p, const char *buf, u64 len, u64 log_len,
		    u64 id_sample_type);
void prelude__exit(struct prelude *p);

#endif
