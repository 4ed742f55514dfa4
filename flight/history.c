/* The compressed user-space history of a flight recorder: chunks per
 * ring, oldest dropped first. */
#include "flight/history.h"
#include "util/event.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

/* a slot's share of size, in chunks: two of them are raw buffers, the one
 * it fills and a spare */
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

static void *history__compress_jobs(void *arg);

struct history *history__new(int nr_slots, u64 size, int level)
{
	pthread_condattr_t ca;
	struct history *h;
	int err;

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
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->work, NULL);
	/* the wait for a spare is bounded: a clock that jumps must not stretch it */
	if (!pthread_condattr_init(&ca)) {
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&h->done, &ca);
		pthread_condattr_destroy(&ca);
	} else {
		pthread_cond_init(&h->done, NULL);
	}
	h->slot = calloc(nr_slots, sizeof(*h->slot));
	h->queue = calloc(nr_slots, sizeof(*h->queue));
	h->spare = calloc(nr_slots, sizeof(*h->spare));
	h->cctx = ZSTD_createCCtx();
	if (!h->slot || !h->queue || !h->spare || !h->cctx)
		goto fail;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(h->cctx, ZSTD_c_compressionLevel, level)))
		goto fail;
	/* level 1's hash table is sized for bigger inputs than a chunk: with
	 * 2K entries rather than its 8K, chunks of perf records compress
	 * faster and smaller */
	if (level == 1 && ZSTD_isError(ZSTD_CCtx_setParameter(h->cctx, ZSTD_c_hashLog, 11)))
		goto fail;
	/* one spare per slot: rings fill at much the same pace, and a slot
	 * that found no spare would stall the drain for a compression */
	for (int i = 0; i < nr_slots; i++) {
		h->slot[i].raw = malloc(h->chunk_bytes);
		h->spare[i] = malloc(h->chunk_bytes);
		if (h->spare[i])
			h->nr_spare++;	/* counted as made: the delete frees it */
		if (!h->slot[i].raw || !h->spare[i])
			goto fail;
	}
	h->nr_raw = 2 * nr_slots;
	err = thread__spawn(&h->compressor, -1, history__compress_jobs, h);
	if (err) {
		history__delete(h);
		errno = -err;
		return NULL;
	}
	h->running = 1;
	/* never real-time, whatever the recorder runs at (-r): behind, it
	 * would take its CPU for itself, where the loop's short bursts at
	 * SCHED_FIFO take nothing from anyone */
	pthread_setschedparam(h->compressor, SCHED_OTHER, &(struct sched_param){ 0 });
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

		free(c->raw);
		free(c);
		c = next;
	}
}

void history__delete(struct history *h)
{
	if (!h)
		return;
	if (h->running) {
		pthread_mutex_lock(&h->lock);
		h->stop = 1;
		pthread_cond_signal(&h->work);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->compressor, NULL);
	}
	for (int i = 0; h->queue && i < h->q_len; i++)
		free(h->queue[(h->q_head + i) % h->nr_slots].raw);
	for (int i = 0; h->slot && i < h->nr_slots; i++) {
		chunks__free(h->slot[i].oldest);
		free(h->slot[i].raw);
	}
	for (int i = 0; h->spare && i < h->nr_spare; i++)
		free(h->spare[i]);
	free(h->slot);
	free(h->queue);
	free(h->spare);
	history_scan__exit(&h->scan);
	ZSTD_freeCCtx(h->cctx);
	pthread_cond_destroy(&h->done);
	pthread_cond_destroy(&h->work);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

static u64 chunk__bytes(const struct history_chunk *c)
{
	return sizeof(*c) + c->nr_pids * sizeof(u32) + c->len;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

int history_scan__records(struct history_scan *s, const char *recs, u32 len)
{
	u32 prev = 0, n = 0;

	s->samples = s->lost_records = s->lost = 0;
	s->nr_pids = 0;
	for (u32 off = 0; off + sizeof(struct perf_event_header) <= len;) {
		const struct perf_event_header *h = (const void *)(recs + off);
		u64 lost;

		if (!event__size_ok(h->size, len - off))
			break;
		off += h->size;
		if (event__lost(h, &lost)) {
			s->lost_records++;
			s->lost += lost;
			continue;
		}
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		s->samples++;
		if (h->size < SAMPLE_PID_OFFSET + sizeof(u32))
			continue;
		memcpy(&prev, (const char *)h + SAMPLE_PID_OFFSET, sizeof(prev));
		/* runs of one task are the rule: list each run once */
		if (s->nr_pids && s->pids[s->nr_pids - 1] == prev)
			continue;
		if (s->nr_pids == s->pids_cap) {
			u32 cap = s->pids_cap ? s->pids_cap * 2 : 64;
			u32 *p = realloc(s->pids, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->pids = p;
			s->pids_cap = cap;
		}
		s->pids[s->nr_pids++] = prev;
	}
	if (s->nr_pids > 1)
		qsort(s->pids, s->nr_pids, sizeof(*s->pids), cmp_u32);
	for (u32 i = 0; i < s->nr_pids; i++)
		if (!n || s->pids[n - 1] != s->pids[i])
			s->pids[n++] = s->pids[i];
	s->nr_pids = n;
	return 0;
}

void history_scan__exit(struct history_scan *s)
{
	free(s->pids);
	memset(s, 0, sizeof(*s));
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
		if (c && (!victim || c->newest_time < victim->oldest->newest_time))
			victim = &h->slot[i];
	}
	if (!victim)
		return 0;
	c = victim->oldest;
	victim->oldest = c->next;
	if (!victim->oldest)
		victim->newest = NULL;
	h->used -= chunk__bytes(c);
	free(c->raw);
	victim->dropped += c->nr_records;
	victim->dropped_last = MAX(victim->dropped_last, c->newest_time);
	h->st.dropped_records += c->nr_records;
	h->st.dropped_bytes += c->raw_len;
	h->st.dropped_chunks++;
	free(c);
	return 1;
}

/* A chunk of the job's records, or NULL for lack of memory. The
 * compressor's own work: no lock held. */
static struct history_chunk *history__make_chunk(struct history *h, const struct history_job *j)
{
	size_t bound = ZSTD_compressBound(j->len), len, pids;
	struct history_chunk *c, *shrunk;

	if (history_scan__records(&h->scan, j->raw, j->len))
		return NULL;
	pids = h->scan.nr_pids * sizeof(u32);
	c = malloc(sizeof(*c) + pids + bound);
	if (!c)
		return NULL;
	len = ZSTD_compress2(h->cctx, (char *)c->data + pids, bound, j->raw, j->len);
	if (ZSTD_isError(len)) {
		free(c);
		return NULL;	/* zstd fails on a bound-sized output only for memory */
	}
	shrunk = realloc(c, sizeof(*c) + pids + len);
	c = shrunk ? shrunk : c;
	memcpy(c->data, h->scan.pids, pids);
	/* field by field: a struct assignment would also write the padding
	 * that data[] begins in */
	c->next = NULL;
	c->raw = NULL;
	c->newest_time = j->newest;
	c->nr_records = j->nr;
	c->raw_len = j->len;
	c->len = len;
	c->samples = h->scan.samples;
	c->lost_records = h->scan.lost_records;
	c->lost = h->scan.lost;
	c->nr_pids = h->scan.nr_pids;
	return c;
}

/* The job's chunk joins its slot, within size; no chunk: its records
 * go, counted. Under lock. */
static void history__append(struct history *h, const struct history_job *j,
			    struct history_chunk *c)
{
	u64 raw_bytes = (u64)h->nr_raw * h->chunk_bytes;
	struct history_slot *s = &h->slot[j->slot];

	if (!c) {
		h->st.dropped_records += j->nr;
		h->st.dropped_bytes += j->len;
		s->dropped += j->nr;
		/* a hole in the slot's history, which the window must start after */
		s->dropped_last = MAX(s->dropped_last, j->newest);
		return;
	}
	h->st.chunk_bytes_in += j->len;
	h->st.chunk_bytes_out += c->len;
	while (h->used + chunk__bytes(c) + raw_bytes > h->size && history__drop_oldest(h))
		;
	if (s->newest)
		s->newest->next = c;
	else
		s->oldest = c;
	s->newest = c;
	h->used += chunk__bytes(c);
}

/* The compressor thread: jobs in the order they were queued, so each
 * slot's chunks stay in its ring's order. */
static void *history__compress_jobs(void *arg)
{
	struct history *h = arg;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct history_job j;
		struct history_chunk *c;

		/* a take claims the queue once the job in hand is done */
		while ((!h->q_len || h->taking) && !h->stop)
			pthread_cond_wait(&h->work, &h->lock);
		if (h->stop)
			break;		/* the delete frees what is queued */
		j = h->queue[h->q_head];
		h->q_head = (h->q_head + 1) % h->nr_slots;
		h->q_len--;
		h->busy = 1;
		pthread_mutex_unlock(&h->lock);
		c = history__make_chunk(h, &j);
		pthread_mutex_lock(&h->lock);
		history__append(h, &j, c);
		h->spare[h->nr_spare++] = j.raw;
		h->busy = 0;
		pthread_cond_broadcast(&h->done);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* The slot's full raw buffer goes to the compressor; the slot goes on in
 * a spare. With every spare queued it waits for one, but only so long:
 * at zstd's high levels a compression takes seconds, and the caller is
 * the loop that must go on reading signals. 0, or -EAGAIN with the slot
 * still full. */
static int history__submit(struct history *h, int slot)
{
	struct history_slot *s = &h->slot[slot];
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += HISTORY_SPARE_WAIT_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&h->lock);
	while (!h->nr_spare)
		if (pthread_cond_timedwait(&h->done, &h->lock, &until) == ETIMEDOUT &&
		    !h->nr_spare) {
			pthread_mutex_unlock(&h->lock);
			return -EAGAIN;
		}
	h->queue[(h->q_head + h->q_len) % h->nr_slots] = (struct history_job){
		.raw = s->raw, .len = s->raw_len, .nr = s->raw_nr,
		.newest = s->raw_newest, .slot = slot,
	};
	h->q_len++;
	s->raw = h->spare[--h->nr_spare];
	pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->lock);
	s->raw_len = s->raw_nr = 0;
	return 0;
}

int history__add(struct history *h, int slot, const struct perf_event_header *rec, u64 time)
{
	struct history_slot *s;
	int err;

	if (slot < 0 || slot >= h->nr_slots)
		return -EINVAL;
	s = &h->slot[slot];
	if (s->raw_len + rec->size > h->chunk_bytes && (err = history__submit(h, slot)))
		return err;
	if (!s->raw_nr || time > s->raw_newest)
		s->raw_newest = time;
	memcpy(s->raw + s->raw_len, rec, rec->size);
	s->raw_len += rec->size;
	s->raw_nr++;
	h->st.records++;
	h->st.bytes += rec->size;
	return 0;
}

/* Under lock: until the queue is empty and the compressor idle. */
static void history__wait_idle(struct history *h)
{
	while (h->q_len || h->busy)
		pthread_cond_wait(&h->done, &h->lock);
}

void history__sync(struct history *h)
{
	pthread_mutex_lock(&h->lock);
	history__wait_idle(h);
	pthread_mutex_unlock(&h->lock);
}

u64 history__memory(struct history *h)
{
	u64 used;

	pthread_mutex_lock(&h->lock);
	used = h->used;
	pthread_mutex_unlock(&h->lock);
	return used + (u64)h->nr_raw * h->chunk_bytes;
}

/* Under lock, for a take: the buffer being compressed becomes its chunk
 * first, then those still queued join their slots' chunks as they are,
 * uncompressed, in order (older than the slots' raw buffers), and the
 * history gets new spares for them. 0, or -ENOMEM with nothing moved. */
static int history__take_queued(struct history *h)
{
	struct history_chunk **c;
	char **fresh;
	int n, err = 0;

	h->taking = 1;
	while (h->busy)
		pthread_cond_wait(&h->done, &h->lock);
	h->taking = 0;
	n = h->q_len;
	if (!n)
		return 0;
	c = calloc(n, sizeof(*c));
	fresh = calloc(n, sizeof(*fresh));
	for (int i = 0; c && fresh && i < n; i++) {
		c[i] = calloc(1, sizeof(**c));
		fresh[i] = malloc(h->chunk_bytes);
		if (!c[i] || !fresh[i])
			err = -ENOMEM;
	}
	if (!c || !fresh || err) {
		for (int i = 0; c && fresh && i < n; i++) {
			free(c[i]);
			free(fresh[i]);
		}
		free(c);
		free(fresh);
		pthread_cond_signal(&h->work);	/* the queue is still its */
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct history_job *j = &h->queue[(h->q_head + i) % h->nr_slots];
		struct history_slot *s = &h->slot[j->slot];

		c[i]->raw = j->raw;
		c[i]->newest_time = j->newest;
		c[i]->nr_records = j->nr;
		c[i]->raw_len = c[i]->len = j->len;
		h->used += chunk__bytes(c[i]);
		if (s->newest)
			s->newest->next = c[i];
		else
			s->oldest = c[i];
		s->newest = c[i];
		h->spare[h->nr_spare++] = fresh[i];
	}
	h->q_head = h->q_len = 0;
	free(c);
	free(fresh);
	return 0;
}

int history__unqueue(struct history *h)
{
	int err;

	pthread_mutex_lock(&h->lock);
	err = history__take_queued(h);
	pthread_mutex_unlock(&h->lock);
	return err;
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
	pthread_mutex_lock(&h->lock);
	if (history__take_queued(h)) {
		pthread_mutex_unlock(&h->lock);
		history__release(h, t);
		return -ENOMEM;
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
		ts->raw = s->raw;
		s->raw = fresh;
		ts->raw_len = s->raw_len;
		ts->raw_nr = s->raw_nr;
		ts->bytes += s->raw_len;
		ts->dropped = s->dropped;
		ts->dropped_last = s->dropped_last;
		t->records += s->raw_nr;
		s->dropped = s->dropped_last = 0;
		s->oldest = s->newest = NULL;
		s->raw_len = s->raw_nr = 0;
	}
	h->used = 0;
	pthread_mutex_unlock(&h->lock);
	h->taken = 1;
	return 0;
}

void history_cursor__init(struct history_cursor *cur, const struct history_take *t, int slot)
{
	cur->next = t->slot[slot].oldest;
	cur->raw_done = 0;
}

int history_take__next(struct history_take *t, int slot, struct history_cursor *cur,
		       struct buf *out)
{
	const struct history_chunk *c = cur->next;
	size_t at = out->len, got;

	if (!c) {
		if (cur->raw_done)
			return 0;
		cur->raw_done = 1;
		buf__add(out, t->slot[slot].raw, t->slot[slot].raw_len);
		return out->err ? -ENOMEM : 1;
	}
	if (c->raw) {		/* taken before it was compressed */
		buf__add(out, c->raw, c->raw_len);
		cur->next = c->next;
		return out->err ? -ENOMEM : 1;
	}
	if (!t->dctx && !(t->dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	buf__zero(out, c->raw_len);
	if (out->err)
		return -ENOMEM;
	got = ZSTD_decompressDCtx(t->dctx, out->p + at, c->raw_len,
				  (const char *)c->data + c->nr_pids * sizeof(u32), c->len);
	if (ZSTD_isError(got) || got != c->raw_len)
		return -EINVAL;
	cur->next = c->next;
	return 1;
}

int history_take__read(struct history_take *t, int slot, struct buf *out)
{
	struct history_cursor cur;
	int got;

	history_cursor__init(&cur, t, slot);
	while ((got = history_take__next(t, slot, &cur, out)) > 0)
		;
	return got;
}

void history__release(struct history *h, struct history_take *t)
{
	for (int i = 0; i < t->nr_slots; i++) {
		chunks__free(t->slot[i].oldest);
		free(t->slot[i].raw);
	}
	free(t->slot);
	ZSTD_freeDCtx(t->dctx);
	memset(t, 0, sizeof(*t));
	h->taken = 0;
}
