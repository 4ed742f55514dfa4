/* One ring's share of a --history take, decompressed a piece at a time
 * as a dump's merge needs it. */
#ifndef PERF_HISTORY_STREAM_H
#define PERF_HISTORY_STREAM_H

#include "lib/buf.h"
#include "flight/history.h"
#include "flight/record-index.h"

/* One ring's share of a history take, read a piece at a time for a dump's
 * merge: a dump then holds about two chunks of each ring decompressed,
 * not the whole history (which decompresses to several times its size). */
struct history_stream {
	struct history_cursor cur;
	struct buf raw;			/* records read and not merged yet, from 0 */
	struct record_index idx;	/* of raw, oldest first */
	u64 done;			/* records of idx merged */
	int read_all;			/* every piece is in raw */
};

/* The index's arrays (small: they grow as pieces need). 0 or -ENOMEM;
 * history_stream__exit() takes a half-made stream. */
int history_stream__init(struct history_stream *hs);
void history_stream__exit(struct history_stream *hs);

/* Starts reading slot of t from its oldest chunk. */
void history_stream__start(struct history_stream *hs, const struct history_take *t, int slot);
/* Drops the merged records and reads pieces until hs holds a record not
 * merged yet, or every piece is read. 0 or -errno. */
int history_stream__fill(struct history_stream *hs, struct history_take *t, int slot,
			 u64 id_sample_type);
/* The time up to which every record of the slot has been read: its newest
 * read record's, UINT64_MAX once every piece is read. */
u64 history_stream__horizon(const struct history_stream *hs);
/* Frees the decompressed records once the dump is written: between dumps
 * the history takes its size and no more. */
void history_stream__release(struct history_stream *hs);

#endif
