/* Reads one ring's share of a history take back a chunk at a time, for a
 * dump's merge. */
#include "flight/history-stream.h"

#include <string.h>

int history_stream__init(struct history_stream *hs)
{
	memset(hs, 0, sizeof(*hs));
	return record_index__init(&hs->idx, 4096, 0);
}

void history_stream__exit(struct history_stream *hs)
{
	buf__release(&hs->raw);
	record_index__exit(&hs->idx);
}

void history_stream__start(struct history_stream *hs, const struct history_take *t, int slot)
{
	history_cursor__init(&hs->cur, t, slot);
	hs->raw.len = 0;
	hs->idx.nr = 0;
	hs->done = 0;
	hs->read_all = 0;
}

int history_stream__fill(struct history_stream *hs, struct history_take *t, int slot,
			 u64 id_sample_type)
{
	u64 from;
	int got;

	if (hs->done < hs->idx.nr)
		return 0;
	/* what is left of raw past the merged records: at most a torn end */
	from = hs->done ? hs->idx.offs[hs->done - 1] +
		((const struct perf_event_header *)(hs->raw.p + hs->idx.offs[hs->done - 1]))->size : 0;
	if (from) {
		memmove(hs->raw.p, hs->raw.p + from, hs->raw.len - from);
		hs->raw.len -= from;
	}
	hs->done = 0;
	hs->idx.nr = 0;
	while (!hs->read_all && !hs->idx.nr) {
		got = history_take__next(t, slot, &hs->cur, &hs->raw);
		if (got < 0)
			return got;
		hs->read_all = !got;
		/* the chunks' own headers give the dump its tasks and counts */
		got = record_index__build(&hs->idx, hs->raw.p, 0, hs->raw.len, UINT64_MAX,
					  id_sample_type, 0);
		if (got)
			return got;
	}
	return 0;
}

u64 history_stream__horizon(const struct history_stream *hs)
{
	if (hs->read_all || !hs->idx.nr)
		return UINT64_MAX;
	return hs->idx.times[hs->idx.nr - 1];
}

void history_stream__release(struct history_stream *hs)
{
	buf__release(&hs->raw);
	hs->idx.nr = hs->done = 0;
}
