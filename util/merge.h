#ifndef PERF_MERGE_H
#define PERF_MERGE_H

#include <linux/perf_event.h>
#include "util/util.h"

/* Records already in time order: a base and record offsets into it. */
struct merge_stream {
	const char *base;
	const u32 *offs;
	const u64 *times;	/* each record's time: the merge reads no record */
	u64 nr;
	u64 pos;
	int trim;		/* samples older than the window are left out */
};

struct merge_node {
	u64 time;
	u32 stream;
};

/* A k-way merge of time-ordered streams, pulled one record at a time: a
 * tournament (loser) tree, log2 k comparisons a record, no allocation once
 * reserved. At equal times the lower-numbered stream goes first, and each
 * stream keeps its own order. */
struct merge {
	struct merge_stream *streams;
	struct merge_node *tree;	/* [0] the winner, [1, leaves) each match's loser */
	u32 leaves;			/* streams rounded up to a power of two */
	int cap, nr_streams;
	u64 window;
	u64 trimmed;		/* samples left out for the window */
};

/* Room for nr streams (kept for later merges). 0 or -ENOMEM. */
int merge__reserve(struct merge *m, int nr);
/* Starts a merge of the m->nr_streams streams set up in m->streams. */
void merge__start(struct merge *m, u64 window);
/* The next record in time order (its time in *time), NULL at the end. */
const struct perf_event_header *merge__next(struct merge *m, u64 *time);
void merge__exit(struct merge *m);

/* A record of an unsorted log, to be put in time order. */
struct timed_ref {
	u64 time;
	u32 off;
};

/* Sorts refs by time, keeping the given order among equal times (a merge
 * sort in scratch, which has room for nr). */
void merge__sort_refs(struct timed_ref *refs, struct timed_ref *scratch, u64 nr);

#endif
