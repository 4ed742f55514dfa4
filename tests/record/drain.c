/* The forward-ring drain (record/drain.c) on ring images: records up to
 * 64K that wrap the end arrive whole, the /no-overwrite/ buffer keeps
 * its cap, and KSYMBOL/BPF_EVENT records the kernel over-sized reach the
 * file and the tracking log trimmed. */
#include "tests/tests.h"
#include "lib/buf.h"
#include "util/event.h"
#include "util/evlist.h"
#include "flight/history.h"
#include "flight/tracking.h"
#include "perfdata/data.h"
#include "record/record.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

#define TRIM_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A KSYMBOL (or with name NULL a BPF_EVENT) with its trailer for TRIM_ST,
 * in src with stale u64s after it that its size counts, as the kernel
 * writes it for a recorder served after another; in want as it should be. */
static void put_sb(struct buf *src, struct buf *want, const char *name, int stale, u64 time)
{
	const struct sample_id sid = { .pid = 3, .tid = 4, .time = time, .id = 9 };
	struct buf *bufs[] = { want, src };

	for (int i = 0; i < 2; i++) {
		struct buf *b = bufs[i];
		size_t start = event__begin(b, name ? PERF_RECORD_KSYMBOL : PERF_RECORD_BPF_EVENT, 0);

		buf__u64(b, 0xffffffffc0001000ULL);
		buf__u64(b, 0x100);
		if (name)
			buf__str0(b, name);
		event__end(b, start, TRIM_ST, &sid);
		for (int k = 0; i && k < stale; k++)
			buf__u64(b, 0x5757575757575757ULL);
		((struct perf_event_header *)(b->p + start))->size = b->len - start;
	}
}

/* A sample of 32 bytes in src and want. */
static void put_plain(struct buf *src, struct buf *want, u8 seq)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 32 };

	for (int i = 0; i < 2; i++) {
		struct buf *b = i ? src : want;

		buf__add(b, &h, sizeof(h));
		for (int k = 0; k < 24; k++)
			buf__u8(b, seq);
	}
}

/* Over-sized KSYMBOL and BPF_EVENT records, one across the ring's end,
 * one at the span's end, among samples and a KSYMBOL sized right: the
 * file gets every record in order with those two trimmed, and so does
 * the tracking log. */
static int test_drain_trims(struct test_ctx *ctx)
{
	struct evlist *l = evlist__new();
	struct image *img = calloc(1, sizeof(*img));
	struct tracking trk;
	struct perf_data d = { .fd = memfd_create("drain-trims", 0) };
	struct drain_sink sink = { .data = &d, .tracking = &trk, .id_sample_type = TRIM_ST,
				   .no_round = 1 };
	struct record_stats st = { 0 };
	struct buf src = { 0 }, want = { 0 }, got = { 0 };
	u64 pos = RING_SIZE - 80, n = 0;
	int ret = TEST_FAIL;
	s64 w;

	(void)ctx;
	tracking__init(&trk, 1 << 20, TRIM_ST);
	TEST_ASSERT(l && img && d.fd >= 0 && (l->fwd = calloc(1, sizeof(*l->fwd))), "set-up");
	l->nr_mmaps = 1;
	l->fwd[0] = (struct mmap){ .pc = &img->pc, .data = img->data, .mask = RING_SIZE - 1,
				   .tail = pos, .scratch = malloc(1 << 16) };
	put_plain(&src, &want, 1);
	put_plain(&src, &want, 2);
	put_sb(&src, &want, "bpf_prog_x_fn", 6, 1000);		/* across the end */
	put_plain(&src, &want, 3);
	put_sb(&src, &want, "bpf_prog_y_fn", 0, 1001);
	put_plain(&src, &want, 4);
	put_sb(&src, &want, NULL, 5, 1002);			/* the span's last */
	if (!l->fwd[0].scratch || src.err || want.err)
		goto out;
	for (size_t i = 0; i < src.len; i++)
		img->data[(pos + i) & (RING_SIZE - 1)] = src.p[i];
	img->pc.data_head = pos + src.len;
	w = drain__forward(l, &sink, &st);
	buf__zero(&got, want.len + 64);
	if (got.err || (n = pread(d.fd, got.p, got.len, 0)) != want.len ||
	    memcmp(got.p, want.p, want.len) || w != (s64)src.len) {
		fprintf(stderr, "  FAILED: the file has %llu bytes (%zu wanted, %lld drained)%s\n",
			(unsigned long long)n, want.len, (long long)w,
			n == want.len ? ", not those" : "");
		goto out;
	}
	/* the log: the same records but the samples */
	got.len = 0;
	for (size_t off = 0; off < want.len; off += ((struct perf_event_header *)(want.p + off))->size)
		if (((struct perf_event_header *)(want.p + off))->type != PERF_RECORD_SAMPLE)
			buf__add(&got, want.p + off, ((struct perf_event_header *)(want.p + off))->size);
	if (got.err || trk.log.len != got.len || memcmp(trk.log.p, got.p, got.len)) {
		fprintf(stderr, "  FAILED: a tracking log of %zu bytes (%zu wanted)%s\n",
			trk.log.len, got.len, trk.log.len == got.len ? ", not those" : "");
		goto out;
	}
	ret = TEST_OK;
out:
	if (l && l->fwd) {
		free(l->fwd[0].scratch);
		free(l->fwd);
		l->fwd = NULL;	/* an image, not a mapping: nothing to munmap */
		l->nr_mmaps = 0;
	}
	tracking__exit(&trk);
	evlist__delete(l);
	if (d.fd >= 0)
		close(d.fd);
	buf__release(&src);
	buf__release(&want);
	buf__release(&got);
	free(img);
	return ret;
}

static int test_drain_all(struct test_ctx *ctx)
{
	int ret = test_drain(ctx);

	ret = ret ? ret : test_drain_trims(ctx);
	return ret ? ret : test_drain_behind_rotates(ctx);
}

const struct test_suite suite_record_drain = {
	"record/drain", "Forward-ring drain: 64K records across the end, capped /no-overwrite/ buffer, "
	"a history that cannot take more yet, and the ring it stopped in first next time, "
	"KSYMBOL/BPF_EVENT records the kernel over-sized written trimmed",
	test_drain_all,
};
