/* The index of a buffer's complete records (offsets, times, tasks,
 * losses), made in one walk so that nobody walks the records again. */
#ifndef PERF_RECORD_INDEX_H
#define PERF_RECORD_INDEX_H

#include <linux/perf_event.h>
#include "lib/util.h"

/* The complete records of a buffer, oldest first: each one's offset and
 * time, and what the one walk over them saw on its way (the samples'
 * tasks, losses), so that nobody walks the records again. Its arrays are
 * written once when made, so that indexing at a dump takes no page fault,
 * and grow when a buffer holds more records than foreseen. */
struct record_index {
	u32 *offs;		/* offsets into the buffer (buffers are under 4G) */
	u64 *times;		/* each record's time */
	u64 cap, nr;
	/* the arrays as mapped: offs and times point into them, at the end
	 * when the records were read newest first (filled from the top
	 * down, so that they come out oldest first with no second pass) */
	u32 *offs_map;
	u64 *times_map;
	u64 colour;		/* bytes before each array in its mapping */
	u32 *pids;		/* the tasks of the samples, one entry per run of a task */
	u64 nr_pids, pids_cap;
	u64 samples;
	u64 lost_records;	/* PERF_RECORD_LOST */
	u64 lost;		/* the samples they say the kernel dropped */
};

/* Room for the records of data_bytes: the smallest record these buffers
 * hold (a sample or LOST with its id trailer) is 56 bytes, so an entry per
 * 48 bytes rarely grows. */
u64 record_index__entries(u64 data_bytes);
/* Bytes an index of that many entries takes at that colour (see
 * record_index__init()): its two mappings, as they are rounded. */
u64 record_index__bytes(u64 entries, u64 colour);
/* Allocates and faults in the arrays, each starting colour bytes into its
 * mapping (a multiple of 8): the merge reads the k-th entry of every
 * ring's index in turn, and arrays that all start on a huge page put
 * those entries in one cache set. 0 or -ENOMEM; record_index__exit()
 * takes a half-made index. */
int record_index__init(struct record_index *ix, u64 entries, u64 colour);
void record_index__exit(struct record_index *ix);

/* How record_index__build() reads a buffer. */
enum {
	INDEX_NEWEST_FIRST = 1,	/* a backward ring's copy; else oldest first */
	INDEX_TASKS = 2,	/* also the samples' tasks and counts, and LOST's */
};

/* Indexes the complete records of buf[start, len), as flags say. Stops at
 * a zero header (never written), a bad size or a record crossing len
 * (torn). An offset o is read at buf + (o & mask): a ring read where it
 * is, whose mask is its size - 1, its mirror after it (mmap__mirror());
 * UINT64_MAX for a plain buffer. The index holds the offsets so masked.
 * Times are read with the sample_id layout id_sample_type. 0 with nr set,
 * or -ENOMEM (the index must never silently cut a dump). */
int record_index__build(struct record_index *ix, const char *buf, u64 start, u64 len,
			u64 mask, u64 id_sample_type, int flags);

#endif
