/* The compressed user-space history of a flight recorder: chunks per
 * ring, oldest dropped first. */
#include "util/history.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* a slot's share of size, in chunks: one of them is its raw buffer */
#define CHUNKS_PER_SLOT 8

u64 history__min_size(int nr_slots)
{
	return (u64)nr_slots * CHUNKS_PER_SLOT * HISTORY_CHUNK_MIN;
}

/* The biggest power of two that gives every slot its share, within the
 * chunk limits: bigger chunks compress better, smaller ones drop less
 * history at a time. */
static u32 chunk_bytes_for(u64 size, int nr_slots)
{
	u64 share = size / ((u64)nr_slots * CHUNKS_PER_SLOT);
	u32 c = HISTORY_CHUNK_MIN;

	while ((u64)c * 2 <= share && c < HISTORY_CHUNK_MAX)
		c *= 2;
	return c;
}

struct history *history__new(int nr_slots, u64 size, int level)
{
	struct history *h;

	if (nr_slots <= 0 || size < history__min_size(nr_slots) || level < 1 ||
	    level > ZSTD_maxCLevel()) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->nr_slots = nr_slots;
	h->size = size;
	h->level = level;
	h->chunk_bytes = chunk_bytes_for(size, nr_slots);
	h->slot = calloc(nr_slots, sizeof(*h->slot));
	h->cctx = ZSTD_createCCtx();
	if (!h->slot || !h->cctx)
		goto fail;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(h->cctx, ZSTD_c_compressionLevel, level)))
		goto fail;
	for (int i = 0; i < nr_slots; i++) {
		h->slot[i].raw = malloc(h->chunk_bytes);
		if (!h->slot[i].raw)
			goto fail;
	}
	return h;
fail:
	history__delete(h);
	errno = ENOMEM;
	return NULL;
}

static void chunks__free(struct history_chunk *c)
{
	while (c) {
		struct history_chunk *next = c->next;

		free(c);
		c = next;
	}
}

void history__delete(struct history *h)
{
	if (!h)
		return;
	for (int i = 0; h->slot && i < h->nr_slots; i++) {
		chunks__free(h->slot[i].oldest);
		free(h->slot[i].raw);
	}
	free(h->slot);
	ZSTD_freeCCtx(h->cctx);
	free(h);
}

static u64 chunk__bytes(const struct history_chunk *c)
{
	return sizeof(*c) + c->len;
}

/* Drops the chunk whose newest record is the oldest of all slots: what
 * goes is the least recent history whichever ring it came from. 0 when
 * there was none to drop. */
static int history__drop_oldest(struct history *h)
{
	struct history_slot *victim = NULL;
	struct history_chunk *c;

	for (int i = 0; i < h->nr_slots; i++) {
		c = h->slot[i].oldest;
		if (c && (!victim || c->last_time < victim->oldest->last_time))
			victim = &h->slot[i];
	}
	if (!victim)
		return 0;
	c = victim->oldest;
	victim->oldest = c->next;
	if (!victim->oldest)
		victim->newest = NULL;
	h->used -= chunk__bytes(c);
	victim->dropped += c->nr_records;
	h->st.dropped_records += c->nr_records;
	h->st.dropped_bytes += c->raw_len;
	h->st.dropped_chunks++;
	free(c);
	return 1;
}

/* The slot's full raw buffer becomes a chunk, within size. */
static int history__seal(struct history *h, struct history_slot *s)
{
	size_t bound = ZSTD_compressBound(s->raw_len), len;
	u64 raw_bytes = (u64)h->nr_slots * h->chunk_bytes;
	struct history_chunk *c = malloc(sizeof(*c) + bound), *shrunk;

	if (!c)
		return -ENOMEM;
	len = ZSTD_compress2(h->cctx, c->data, bound, s->raw, s->raw_len);
	if (ZSTD_isError(len)) {
		free(c);
		return -ENOMEM;	/* zstd fails on a bound-sized output only for memory */
	}
	shrunk = realloc(c, sizeof(*c) + len);
	c = shrunk ? shrunk : c;
	/* field by field: a struct assignment would also write the padding
	 * that data[] begins in */
	c->next = NULL;
	c->first_time = s->raw_first;
	c->last_time = s->raw_last;
	c->nr_records = s->raw_nr;
	c->raw_len = s->raw_len;
	c->len = len;
	h->st.chunk_bytes_in += s->raw_len;
	h->st.chunk_bytes_out += len;
	while (h->used + chunk__bytes(c) + raw_bytes > h->size && history__drop_oldest(h))
		;
	if (s->newest)
		s->newest->next = c;
	else
		s->oldest = c;
	s->newest = c;
	h->used += chunk__bytes(c);
	s->raw_len = s->raw_nr = 0;
	return 0;
}

int history__add(struct history *h, int slot, const struct perf_event_header *rec, u64 time)
{
	struct history_slot *s;

	if (slot < 0 || slot >= h->nr_slots)
		return -EINVAL;
	s = &h->slot[slot];
	if (s->raw_len + rec->size > h->chunk_bytes && history__seal(h, s)) {
		/* no memory for a chunk: the raw buffer's records go, counted */
		h->st.dropped_records += s->raw_nr;
		h->st.dropped_bytes += s->raw_len;
		s->dropped += s->raw_nr;
		s->raw_len = s->raw_nr = 0;
	}
	if (!s->raw_nr)
		s->raw_first = time;
	s->raw_last = time;
	memcpy(s->raw + s->raw_len, rec, rec->size);
	s->raw_len += rec->size;
	s->raw_nr++;
	h->st.records++;
	h->st.bytes += rec->size;
	return 0;
}

int history__take(struct history *h, struct history_take *t)
{
	if (h->taken)
		return -EBUSY;
	memset(t, 0, sizeof(*t));
	t->slot = calloc(h->nr_slots, sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	t->nr_slots = h->nr_slots;
	/* the slots' next raw buffers first: a take that fails moves nothing */
	for (int i = 0; i < h->nr_slots; i++) {
		t->slot[i].raw = malloc(h->chunk_bytes);
		if (!t->slot[i].raw) {
			history__release(h, t);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < h->nr_slots; i++) {
		struct history_slot *s = &h->slot[i];
		struct history_take_slot *ts = &t->slot[i];
		char *fresh = ts->raw;

		ts->oldest = s->oldest;
		for (const struct history_chunk *c = s->oldest; c; c = c->next) {
			ts->bytes += c->raw_len;
			t->records += c->nr_records;
		}
		ts->first_time = s->oldest ? s->oldest->first_time : s->raw_nr ? s->raw_first : 0;
		ts->raw = s->raw;
		s->raw = fresh;
		ts->raw_len = s->raw_len;
		ts->raw_nr = s->raw_nr;
		ts->bytes += s->raw_len;
		ts->dropped = s->dropped;
		t->records += s->raw_nr;
		s->dropped = 0;
		s->oldest = s->newest = NULL;
		s->raw_len = s->raw_nr = 0;
	}
	h->used = 0;
	h->taken = 1;
	return 0;
}

int history_take__read(const struct history_take *t, int slot, struct buf *out)
{
	const struct history_take_slot *ts = &t->slot[slot];
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	int err = 0;

	if (!dctx)
		return -ENOMEM;
	for (const struct history_chunk *c = ts->oldest; c && !err; c = c->next) {
		size_t at = out->len, got;

		buf__zero(out, c->raw_len);
		if (out->err) {
			err = -ENOMEM;
			break;
		}
		got = ZSTD_decompressDCtx(dctx, out->p + at, c->raw_len, c->data, c->len);
		if (ZSTD_isError(got) || got != c->raw_len)
			err = -EINVAL;
	}
	ZSTD_freeDCtx(dctx);
	if (!err)
		buf__add(out, ts->raw, ts->raw_len);
	return err ? err : out->err ? -ENOMEM : 0;
}

void history__release(struct history *h, struct history_take *t)
{
	for (int i = 0; i < t->nr_slots; i++) {
		chunks__free(t->slot[i].oldest);
		free(t->slot[i].raw);
	}
	free(t->slot);
	memset(t, 0, sizeof(*t));
	h->taken = 0;
}
