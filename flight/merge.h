/* Puts the records of many rings into one time order: a merge of sorted
 * streams, and a sort of unsorted records by time. */
#ifndef PERF_MERGE_H
#define PERF_MERGE_H

#include <linux/perf_event.h>
#include "lib/util.h"

/* Records already in time order: a base and record offsets into it. */
struct merge_stream {
	const char *base;
	const u32 *offs;
	const u64 *times;	/* each record's time: the merge reads no record */
	u64 nr;
	u64 pos;
	int trim;		/* samples older than the window are left out */
};

/* A record of an unsorted log, to be put in time order. */
struct timed_ref {
	u64 time;
	u32 off;
};

/* A k-way merge of time-ordered streams, pulled one record at a time, at a
 * cost per record that hardly grows with k. It goes a slice of time at a
 * time: every stream's records of the slice (a run at its cursor) are
 * gathered, stream after stream, and put in order by a counting sort on
 * their times. A heap or tournament tree pays log2 k mispredicted steps a
 * record, and with many rings visits them in no order the caches and the
 * TLB can follow; a slice reads each ring's few records in one go. At equal
 * times the lower-numbered stream goes first and a stream's records keep
 * their order. A stream a little out of order (a CPU's records can be) is
 * put in time order within a slice; nothing is lost or repeated. No
 * allocation once reserved. */
struct merge {
	struct merge_stream *streams;
	int cap, nr_streams;
	u64 window;
	u64 trimmed;		/* samples left out for the window */
	/* the slice being handed out */
	const char **recs;	/* its records, as gathered */
	struct timed_ref *gathered, *sorted;	/* off: into recs */
	u32 *counts;		/* the counting sort's buckets, then its positions */
	u64 *restart;		/* each stream's cursor at the slice's start */
	u32 slice_cap;		/* the most records a slice holds */
	u32 slice_aim;		/* the records a slice's width aims at */
	u32 nr, next;		/* records in the slice, and handed out */
	u64 width;		/* of the next slice in time, adapted as they come */
};

/* Room for nr streams (kept for later merges). 0 or -ENOMEM. */
int merge__reserve(struct merge *m, int nr);
/* Bytes merge__reserve() holds for nr streams. */
u64 merge__bytes(int nr);
/* Starts a merge of the m->nr_streams streams set up in m->streams. */
void merge__start(struct merge *m, u64 window);
/* The next record in time order (its time in *time), NULL at the end. */
const struct perf_event_header *merge__next(struct merge *m, u64 *time);
void merge__exit(struct merge *m);

/* Sorts refs by time, keeping the given order among equal times (a merge
 * sort in scratch, which has room for nr). */
void merge__sort_refs(struct timed_ref *refs, struct timed_ref *scratch, u64 nr);

#endif
