/* The forward-ring drain (record/drain.c) on ring images: records up to
 * 64K that wrap the end arrive whole, and the /no-overwrite/ buffer keeps
 * its cap. */
#include "tests/tests.h"
#include "lib/buf.h"
#include "util/evlist.h"
#include "flight/history.h"
#include "record/record.h"

#include <stdlib.h>
#include <string.h>

#define RING_SIZE (64 << 10)
#define BIG 16384

struct image {
	struct perf_event_mmap_page pc;
	char data[RING_SIZE];
};

/* A sample of size bytes whose body bytes are seq, at ring position pos. */
static void put_sample(struct mmap *m, u64 pos, u16 size, u8 seq)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };

	for (u16 i = 0; i < size; i++)
		m->data[(pos + i) & m->mask] = i < sizeof(h) ? ((char *)&h)[i] : (char)seq;
}

static int body_is(const struct perf_event_header *h, u16 size, u8 seq)
{
	const u8 *b = (const u8 *)(h + 1);

	if (h->type != PERF_RECORD_SAMPLE || h->size != size)
		return 0;
	for (u16 i = 0; i < size - sizeof(*h); i++)
		if (b[i] != seq)
			return 0;
	return 1;
}

static int test_drain(struct test_ctx *ctx)
{
	struct evlist *l = evlist__new();
	struct image *img = calloc(1, sizeof(*img));
	struct buf pending = { 0 };
	struct drain_sink sink = { .pending = &pending, .pending_max = 3 * BIG };
	struct drain_sink hsink = { 0 };
	struct record_stats st = { 0 };
	struct history *h = NULL;
	struct mmap *m;
	u64 pos = RING_SIZE - BIG / 2;	/* the first record wraps the end */
	u64 start, records;
	s64 w;
	int ret = TEST_FAIL, spares;
	static u64 big_rec[4096 / 8];
	struct perf_event_header *big = (void *)big_rec;

	(void)ctx;
	TEST_ASSERT(l && img && (l->fwd = calloc(1, sizeof(*l->fwd))), "alloc");
	l->nr_mmaps = 1;
	m = &l->fwd[0];
	m->pc = &img->pc;
	m->data = img->data;
	m->mask = RING_SIZE - 1;
	m->tail = pos;
	m->scratch = malloc(1 << 16);
	if (!m->scratch)
		goto out;

	put_sample(m, pos, BIG, 1);
	img->pc.data_head = pos + BIG;
	w = drain__forward(l, &sink, &st);
	if (w != BIG || pending.len != BIG || !body_is((void *)pending.p, BIG, 1)) {
		fprintf(stderr, "  FAILED: a %d-byte record wrapping the end: drained %lld, "
			"kept %zu bytes\n", BIG, (long long)w, pending.len);
		goto out;
	}
	/* three more: the fourth goes over the cap of three, so the oldest go
	 * until the buffer with it fits in half the cap (no memmove per record) */
	pos += BIG;
	for (u8 seq = 2; seq <= 4; seq++, pos += BIG)
		put_sample(m, pos, BIG, seq);
	img->pc.data_head = pos;
	w = drain__forward(l, &sink, &st);
	if (w != 3 * BIG || sink.pending_dropped != 3 || pending.len != BIG ||
	    !body_is((void *)pending.p, BIG, 4)) {
		fprintf(stderr, "  FAILED: cap: drained %lld, dropped %llu, kept %zu bytes\n",
			(long long)w, (unsigned long long)sink.pending_dropped, pending.len);
		goto out;
	}
	if (st.samples != 4 || img->pc.data_tail != pos) {
		fprintf(stderr, "  FAILED: %llu samples counted, tail %llu\n",
			(unsigned long long)st.samples, (unsigned long long)img->pc.data_tail);
		goto out;
	}
	/* a history whose compressor is behind: the drain stops before the
	 * record it cannot take, leaves it in the ring and says so; the next
	 * drain takes it and the rest, each once */
	h = history__new(1, history__min_size(1), 1);
	if (!h || h->chunk_bytes != HISTORY_CHUNK_MIN) {
		fprintf(stderr, "  FAILED: history of one %uK chunk\n", HISTORY_CHUNK_MIN >> 10);
		goto out;
	}
	big->type = PERF_RECORD_SAMPLE;
	big->size = 4096;
	while (h->slot[0].raw_len + big->size <= 60 << 10)	/* of its 64K */
		if (history__add(h, 0, big, 0))
			goto out;
	pthread_mutex_lock(&h->lock);
	spares = h->nr_spare;
	h->nr_spare = 0;	/* all queued, as far as the drain can tell */
	pthread_mutex_unlock(&h->lock);
	records = h->st.records;
	start = pos;
	for (u8 seq = 5; seq <= 6; seq++, pos += BIG / 2)
		put_sample(m, pos, BIG / 2, seq);
	img->pc.data_head = pos;
	hsink.history = h;
	w = drain__forward(l, &hsink, &st);
	if (w != 0 || !hsink.behind || m->tail != start || h->st.records != records ||
	    st.samples != 4) {
		fprintf(stderr, "  FAILED: history behind: drained %lld, behind %d, %llu samples\n",
			(long long)w, hsink.behind, (unsigned long long)st.samples);
		goto out;
	}
	pthread_mutex_lock(&h->lock);
	h->nr_spare = spares;
	pthread_mutex_unlock(&h->lock);
	/* a drain behind goes on even with less than --mmap-flush there */
	hsink.flush = 1ULL << 30;
	w = drain__forward(l, &hsink, &st);
	if (w != BIG || hsink.behind || m->tail != pos || img->pc.data_tail != pos ||
	    h->st.records != records + 2 || st.samples != 4 + 2) {
		fprintf(stderr, "  FAILED: history caught up: drained %lld, behind %d, %llu of 2 "
			"records taken\n", (long long)w, hsink.behind,
			(unsigned long long)(h->st.records - records));
		goto out;
	}
	ret = TEST_OK;
out:
	history__delete(h);
	if (l && l->fwd) {
		free(l->fwd[0].scratch);
		free(l->fwd);
		l->fwd = NULL;	/* an image, not a mapping: nothing to munmap */
		l->nr_mmaps = 0;
	}
	evlist__delete(l);
	buf__release(&pending);
	free(img);
	return ret;
}

/* Lets a compressor held off its queue (h->taking) compress what waits
 * there, and waits until it has. */
static void compressor_run_queue(struct history *h)
{
	pthread_mutex_lock(&h->lock);
	h->taking = 0;
	pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->lock);
	history__sync(h);
}

/* Two rings whose history slots both want a spare, and one spare at a
 * time: the drain that was behind on ring 1 starts there next time, so
 * ring 1 gets the spare that comes back and ring 0 waits its turn. Were
 * every drain to start at ring 0, ring 1 would never get one. */
static int test_drain_behind_rotates(struct test_ctx *ctx)
{
	struct evlist *l = evlist__new();
	struct image *img = calloc(2, sizeof(*img));
	struct history *h = history__new(2, history__min_size(2), 1);
	struct drain_sink sink = { 0 };
	struct record_stats st = { 0 };
	static u64 big_rec[4096 / 8];
	struct perf_event_header *big = (void *)big_rec;
	char *saved = NULL;
	int ret = TEST_FAIL;

	(void)ctx;
	TEST_ASSERT(l && img && h && (l->fwd = calloc(2, sizeof(*l->fwd))) &&
		    h->chunk_bytes == HISTORY_CHUNK_MIN, "set-up");
	l->nr_mmaps = 2;
	for (int r = 0; r < 2; r++) {
		l->fwd[r] = (struct mmap){ .pc = &img[r].pc, .data = img[r].data,
					   .mask = RING_SIZE - 1, .scratch = malloc(1 << 16) };
		if (!l->fwd[r].scratch)
			goto out;
	}
	big->type = PERF_RECORD_SAMPLE;
	big->size = 4096;
	for (int slot = 0; slot < 2; slot++)	/* 60K of each slot's 64K */
		while (h->slot[slot].raw_len + big->size <= 60 << 10)
			if (history__add(h, slot, big, 0))
				goto out;
	pthread_mutex_lock(&h->lock);
	saved = h->spare[--h->nr_spare];	/* one spare for the two */
	h->taking = 1;		/* and the compressor held off the queue */
	pthread_mutex_unlock(&h->lock);
	sink.history = h;

	/* 8K in each ring: ring 0 takes the spare, ring 1 waits */
	for (int r = 0; r < 2; r++) {
		put_sample(&l->fwd[r], 0, 8192, r);
		img[r].pc.data_head = 8192;
	}
	drain__forward(l, &sink, &st);
	if (!sink.behind || sink.first_ring != 1 || l->fwd[0].tail != 8192 || l->fwd[1].tail) {
		fprintf(stderr, "  FAILED: first drain: behind %d at ring %d, tails %llu %llu\n",
			sink.behind, sink.first_ring, (unsigned long long)l->fwd[0].tail,
			(unsigned long long)l->fwd[1].tail);
		goto out;
	}
	/* the spare comes back; ring 0 now wants one as well */
	compressor_run_queue(h);
	pthread_mutex_lock(&h->lock);
	h->taking = 1;
	pthread_mutex_unlock(&h->lock);
	put_sample(&l->fwd[0], 8192, 60 << 10, 2);
	img[0].pc.data_head = 8192 + (60 << 10);
	drain__forward(l, &sink, &st);
	if (!sink.behind || sink.first_ring != 0 || l->fwd[1].tail != 8192 ||
	    l->fwd[0].tail != 8192) {
		fprintf(stderr, "  FAILED: second drain: behind %d at ring %d, tails %llu %llu: ring "
			"1 should have had the spare\n", sink.behind, sink.first_ring,
			(unsigned long long)l->fwd[0].tail, (unsigned long long)l->fwd[1].tail);
		goto out;
	}
	ret = TEST_OK;
out:
	if (h && saved) {
		compressor_run_queue(h);
		pthread_mutex_lock(&h->lock);
		h->spare[h->nr_spare++] = saved;
		pthread_mutex_unlock(&h->lock);
	}
	history__delete(h);
	if (l && l->fwd) {
		for (int r = 0; r < 2; r++)
			free(l->fwd[r].scratch);
		free(l->fwd);
		l->fwd = NULL;	/* images, not mappings: nothing to munmap */
		l->nr_mmaps = 0;
	}
	evlist__delete(l);
	free(img);
	return ret;
}

static int test_drain_all(struct test_ctx *ctx)
{
	int ret = test_drain(ctx);

	return ret ? ret : test_drain_behind_rotates(ctx);
}

const struct test_suite suite_record_drain = {
	"record/drain", "Forward-ring drain: 64K records across the end, capped /no-overwrite/ buffer, "
	"a history that cannot take more yet, and the ring it stopped in first next time",
	test_drain_all,
};
