#ifndef PERF_DUMP_H
#define PERF_DUMP_H

#include <limits.h>
#include "util/header.h"

struct buf;
struct evlist;
struct tracking;

struct dump_opts {
	int keep_all;		/* --dump-window=all: no common-window trim */
	u64 margin;		/* bytes trimmed for records in flight during a copy */
	int monotonic;		/* samples carry CLOCK_MONOTONIC times (use_clockid) */
	int last;		/* recording has ended: no later dump to defer records to */
};

/* Totals over every dump of a session. */
struct dump_stats {
	u64 dumps;
	u64 records;		/* written, tracking included */
	u64 samples;
	u64 kernel_lost;	/* from PERF_RECORD_LOST in the rings */
	u64 overwritten_bytes;	/* written by the kernel but overwritten before a dump */
	u64 overwritten_est;	/* the same in records, estimated from record sizes */
	u64 trimmed;		/* samples older than the common window */
	u64 deferred;		/* records left for the next dump (newer than the window) */
	u64 failed;
	u64 empty;		/* triggers with nothing new to dump */
	u64 prune_failed;	/* tracking could not be pruned (no memory): the cap still holds */
};

/* One dump: captures every backward ring of evlist (the caller drained the
 * forward rings into trk and pending just before), then writes the
 * tracking records, the pending forward records and the samples merged in
 * time order to path, created privately and
 * renamed into place. A failure removes the partial file, counts it, and
 * leaves recording going. placed gets the name the file was given (path,
 * or path-N when path was taken). 0, -ENODATA when there was no new sample
 * (no file is written), or -errno with errbuf set. */
int dump__write(struct evlist *evlist, struct tracking *trk, const struct buf *pending,
		const char *path, int keep_old,
		const struct dump_opts *opts, const struct header_info *info_tmpl,
		struct dump_stats *st, char placed[PATH_MAX], char *errbuf, size_t errsz);

#endif
