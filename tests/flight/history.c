/* The compressed history (flight/history.c) on numbered records: the newest
 * survive in order, the oldest go first and are counted, memory stays
 * within the size, and no record is in two takes. */
#include "tests/tests.h"
#include "flight/history.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a sample-sized record: header, then its number and time; the size
 * varies a little and two words are noise, as addresses in real records
 * are: it compresses, but not to nothing */
struct numbered {
	struct perf_event_header h;
	u64 n, time, pad[8];
};

static void numbered__make(struct numbered *r, u64 n)
{
	memset(r, 0, sizeof(*r));
	r->h.type = PERF_RECORD_SAMPLE;
	r->h.size = sizeof(*r) - (n % 3) * 8;
	r->n = n;
	r->time = 1000 + n;
	r->pad[0] = n * 7;
	r->pad[1] = n * 0x9e3779b97f4a7c15ULL;
	r->pad[2] = r->pad[1] ^ (r->pad[1] >> 29);
}

/* An add that offers the record again while the compressor is behind, as
 * the drain does on its next round. */
static int add_wait(struct history *h, int slot, const struct numbered *r)
{
	int err;

	while ((err = history__add(h, slot, &r->h, r->time)) == -EAGAIN)
		;
	return err;
}

/* slot of record n: three slots in turns, as CPUs interleave */
#define SLOTS 3
#define SLOT_OF(n) ((int)((n) % SLOTS))

/* Reads one take back: every slot's records in order, numbers of that
 * slot only, contiguous from the first kept up to *last[slot]. Returns
 * the records read, or -1 with the reason printed. */
static s64 take__check(struct history_take *t, u64 last[SLOTS], u64 first[SLOTS])
{
	s64 total = 0;

	for (int s = 0; s < SLOTS; s++) {
		struct buf out = { 0 };
		u64 expect = 0, n = 0;
		size_t off = 0;

		if (history_take__read(t, s, &out)) {
			fprintf(stderr, "  slot %d does not read back\n", s);
			return -1;
		}
		while (off < out.len) {
			const struct numbered *r = (const void *)(out.p + off);

			if (r->h.size < 24 || off + r->h.size > out.len || SLOT_OF(r->n) != s ||
			    (n && r->n != expect) || r->time != 1000 + r->n || r->pad[0] != r->n * 7) {
				fprintf(stderr, "  slot %d: record %llu at %zu is wrong (expected %llu)\n",
					s, (unsigned long long)r->n, off, (unsigned long long)expect);
				buf__release(&out);
				return -1;
			}
			if (!n)
				first[s] = r->n;
			expect = r->n + SLOTS;
			off += r->h.size;
			n++;
		}
		if (n && expect - SLOTS != last[s]) {
			fprintf(stderr, "  slot %d ends at %llu, not %llu\n", s,
				(unsigned long long)(expect - SLOTS), (unsigned long long)last[s]);
			buf__release(&out);
			return -1;
		}
		total += n;
		buf__release(&out);
	}
	return total;
}

static int test_history(struct test_ctx *ctx)
{
	struct history_take t;
	struct history *h;
	struct numbered r;
	u64 last[SLOTS] = { 0 }, first[SLOTS], size = history__min_size(SLOTS) * 2, n;
	u64 raw_bytes, taken_before = 0;
	s64 got;

	errno = 0;
	TEST_ASSERT(!history__new(SLOTS, history__min_size(SLOTS) - 1, 1) && errno == EINVAL,
		    "a size below the minimum");
	TEST_ASSERT(!history__new(SLOTS, size, 0) && errno == EINVAL &&
		    !history__new(SLOTS, size, 23) && errno == EINVAL, "zstd levels 1..22");
	h = history__new(SLOTS, size, 1);
	TEST_ASSERT(h, "history of %llu bytes", (unsigned long long)size);
	raw_bytes = (u64)h->nr_raw * h->chunk_bytes;
	TEST_ASSERT(raw_bytes <= size / 4, "raw buffers %llu of %llu", (unsigned long long)raw_bytes,
		    (unsigned long long)size);

	/* far more than fits: the history wraps many times */
	for (n = 1; n <= 400000; n++) {
		numbered__make(&r, n);
		TEST_ASSERT(!add_wait(h, SLOT_OF(n), &r), "add %llu", (unsigned long long)n);
		last[SLOT_OF(n)] = n;
		TEST_ASSERT(history__memory(h) <= h->size, "over the size at %llu: %llu",
			    (unsigned long long)n, (unsigned long long)history__memory(h));
	}
	TEST_ASSERT(history__add(h, SLOTS, &r.h, 0) == -EINVAL, "slot out of range");

	/* with no history__sync() first: the buffers still queued for the
	 * compressor go into the take as they are, or their records would be
	 * neither kept nor counted as dropped (checked below) */
	TEST_ASSERT(!history__take(h, &t), "take");
	TEST_ASSERT(h->st.dropped_chunks > 10, "it wrapped (%llu chunks dropped)",
		    (unsigned long long)h->st.dropped_chunks);
	TEST_ASSERT(h->st.chunk_bytes_out * 2 < h->st.chunk_bytes_in, "compressed %llu to %llu",
		    (unsigned long long)h->st.chunk_bytes_in, (unsigned long long)h->st.chunk_bytes_out);
	TEST_ASSERT(history__take(h, &t) == -EBUSY, "one take at a time");
	/* what a dump learns before it decompresses: every record is a sample */
	{
		struct history_scan scan = { 0 };
		u64 samples = 0;

		for (int s = 0; s < SLOTS; s++) {
			for (const struct history_chunk *c = t.slot[s].oldest; c; c = c->next) {
				if (c->raw) {	/* taken before it was compressed */
					TEST_ASSERT(!history_scan__records(&scan, c->raw, c->raw_len),
						    "scan of a chunk taken raw");
					samples += scan.samples;
					continue;
				}
				TEST_ASSERT(c->samples == c->nr_records && c->nr_pids >= 1,
					    "chunk scan: %llu samples of %u records, %u tasks",
					    (unsigned long long)c->samples, c->nr_records, c->nr_pids);
				samples += c->samples;
			}
			TEST_ASSERT(!history_scan__records(&scan, t.slot[s].raw, t.slot[s].raw_len),
				    "raw scan");
			samples += scan.samples;
		}
		history_scan__exit(&scan);
		TEST_ASSERT(samples == t.records, "scans count %llu samples of %llu",
			    (unsigned long long)samples, (unsigned long long)t.records);
	}
	got = take__check(&t, last, first);
	TEST_ASSERT(got > 0, "the first take reads back");
	TEST_ASSERT((u64)got == t.records, "%lld records read, the take said %llu", (long long)got,
		    (unsigned long long)t.records);
	TEST_ASSERT((u64)got + h->st.dropped_records == h->st.records, "kept %lld + dropped %llu "
		    "!= %llu", (long long)got, (unsigned long long)h->st.dropped_records,
		    (unsigned long long)h->st.records);
	/* each slot says where its whole history starts: after the newest
	 * record it dropped, the one before its first kept */
	for (int s = 0; s < SLOTS; s++)
		TEST_ASSERT(t.slot[s].dropped && t.slot[s].dropped_last == 1000 + first[s] - SLOTS,
			    "slot %d dropped %llu up to time %llu, kept from %llu", s,
			    (unsigned long long)t.slot[s].dropped,
			    (unsigned long long)t.slot[s].dropped_last, (unsigned long long)first[s]);
	/* the oldest went first, whichever slot: what is kept of every slot
	 * starts at about the same place */
	for (int s = 1; s < SLOTS; s++)
		TEST_ASSERT(first[s] + 2 * (u64)h->chunk_bytes / 48 * SLOTS > first[0] &&
			    first[0] + 2 * (u64)h->chunk_bytes / 48 * SLOTS > first[s],
			    "slot %d kept from %llu, slot 0 from %llu", s,
			    (unsigned long long)first[s], (unsigned long long)first[0]);
	TEST_LOG(ctx, "  kept %lld of %llu records, ratio %.1f\n", (long long)got,
		 (unsigned long long)h->st.records,
		 (double)h->st.chunk_bytes_in / h->st.chunk_bytes_out);

	/* while the take is out the history goes on; the next take holds only
	 * what came after the first, all of it */
	for (; n <= 400000 + 3000; n++) {
		numbered__make(&r, n);
		TEST_ASSERT(!add_wait(h, SLOT_OF(n), &r), "add %llu", (unsigned long long)n);
		last[SLOT_OF(n)] = n;
	}
	history__sync(h);
	taken_before = h->st.dropped_records;
	history__release(h, &t);
	TEST_ASSERT(!t.slot && !h->taken, "released");
	TEST_ASSERT(!history__take(h, &t), "second take");
	got = take__check(&t, last, first);
	TEST_ASSERT(got == 3000 && h->st.dropped_records == taken_before,
		    "second take: %lld records, want the 3000 since the first", (long long)got);
	for (int s = 0; s < SLOTS; s++)
		TEST_ASSERT(first[s] > 400000, "slot %d: record %llu was in the first take too", s,
			    (unsigned long long)first[s]);
	history__release(h, &t);

	/* an empty take reads nothing */
	TEST_ASSERT(!history__take(h, &t) && t.records == 0 && take__check(&t, last, first) == 0,
		    "empty take");
	history__release(h, &t);
	history__delete(h);
	history__delete(NULL);
	return TEST_OK;
}

/* A take while the compressor is far behind (level 22, buffers queued on
 * every slot): it does not wait for them; they come in the take as they
 * are, in their place, and every record reads back once, in order. */
static int test_history_take_queued(struct test_ctx *ctx)
{
	struct history *h = history__new(SLOTS, history__min_size(SLOTS) * 2, 22);
	u64 last[SLOTS] = { 0 }, first[SLOTS], n, per_chunk;
	struct history_take t;
	struct numbered r;
	int raw_chunks = 0;
	s64 got;

	TEST_ASSERT(h, "history at level 22");
	/* three chunks a slot and some: one compressing, one queued, more
	 * waiting for a spare (the adds then wait too, as the drain would) */
	per_chunk = h->chunk_bytes / sizeof(r);
	for (n = 1; n <= SLOTS * (3 * per_chunk + 10); n++) {
		numbered__make(&r, n);
		TEST_ASSERT(!add_wait(h, SLOT_OF(n), &r), "add %llu", (unsigned long long)n);
		last[SLOT_OF(n)] = n;
	}
	TEST_ASSERT(!history__take(h, &t), "take");
	for (int s = 0; s < SLOTS; s++)
		for (const struct history_chunk *c = t.slot[s].oldest; c; c = c->next)
			raw_chunks += !!c->raw;
	got = take__check(&t, last, first);
	TEST_ASSERT(got > 0 && (u64)got == n - 1 && !h->st.dropped_records,
		    "%lld of %llu records read back", (long long)got, (unsigned long long)(n - 1));
	TEST_LOG(ctx, "  take at level 22: %d buffers taken before their compression\n",
		 raw_chunks);
	TEST_ASSERT(raw_chunks >= 1, "no buffer was still queued: the test proves nothing");
	history__release(h, &t);
	history__delete(h);
	return TEST_OK;
}

/* An add never holds its caller (the loop that reads the signals) for a
 * compression: with every spare queued at level 22, where one takes a
 * second, it gives up after HISTORY_SPARE_WAIT_MS with -EAGAIN, adding
 * nothing; offered again later, the record goes in, once. An unqueue (a
 * dump's drain) makes room at once. */
static int test_history_add_bounded(struct test_ctx *ctx)
{
	/* 1 MB chunks: the slowest compressions there are */
	struct history *h = history__new(SLOTS, (u64)SLOTS * 8 << 20, 22);
	u64 last[SLOTS] = { 0 }, first[SLOTS], n, slowest = 0, refused = 0;
	struct history_take t;
	struct numbered r;
	s64 got;

	TEST_ASSERT(h, "history at level 22");
	for (n = 1; refused < 3 && n <= 20 * (u64)SLOTS * h->chunk_bytes / sizeof(r); n++) {
		int err;

		numbered__make(&r, n);
		for (;;) {
			u64 t0 = now_ns();

			err = history__add(h, SLOT_OF(n), &r.h, r.time);
			if (now_ns() - t0 > slowest)
				slowest = now_ns() - t0;
			if (err != -EAGAIN)
				break;
			if (!refused++) {
				/* a dump's drain: spares at once, the queued
				 * buffers kept as they are */
				TEST_ASSERT(!history__unqueue(h), "unqueue");
				err = history__add(h, SLOT_OF(n), &r.h, r.time);
				TEST_ASSERT(!err, "an add right after an unqueue: %s", strerror(-err));
				break;
			}
		}
		TEST_ASSERT(!err, "add %llu: %s", (unsigned long long)n, strerror(-err));
		last[SLOT_OF(n)] = n;
	}
	TEST_LOG(ctx, "  level 22: %llu adds refused, the slowest returned in %.1f ms\n",
		 (unsigned long long)refused, slowest / 1e6);
	TEST_ASSERT(refused, "no add found every spare queued: the test proves nothing");
	/* the wait, and room for a loaded or sanitized run; a compression
	 * of 1 MB at level 22 takes several times this */
	TEST_ASSERT(slowest < (HISTORY_SPARE_WAIT_MS + 480) * 1000000ULL,
		    "an add held its caller %.1f ms", slowest / 1e6);
	TEST_ASSERT(!history__take(h, &t), "take");
	got = take__check(&t, last, first);
	TEST_ASSERT(got > 0 && (u64)got == n - 1 && !h->st.dropped_records,
		    "%lld of %llu records read back", (long long)got, (unsigned long long)(n - 1));
	history__release(h, &t);
	history__delete(h);
	return TEST_OK;
}

/* With the recorder at SCHED_FIFO (-r), the compressor stays at the
 * normal policy: behind, a real-time compressor would keep its CPU. */
static int test_history_not_realtime(struct test_ctx *ctx)
{
	struct sched_param mine, its;
	struct history *h;
	int policy, its_policy = -1;

	pthread_getschedparam(pthread_self(), &policy, &mine);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &(struct sched_param){ 1 })) {
		TEST_LOG(ctx, "  SCHED_FIFO not allowed here: the compressor's policy not checked\n");
		return TEST_OK;
	}
	h = history__new(SLOTS, history__min_size(SLOTS), 1);
	if (h)
		pthread_getschedparam(h->compressor, &its_policy, &its);
	pthread_setschedparam(pthread_self(), policy, &mine);
	TEST_ASSERT(h, "history");
	history__delete(h);
	TEST_ASSERT(its_policy == SCHED_OTHER, "the compressor runs at policy %d under a "
		    "SCHED_FIFO recorder", its_policy);
	return TEST_OK;
}

/* Rings are nearly in time order, not quite: a chunk's last record can be
 * older than the one before it. What a slot says it dropped up to is the
 * newest time among its dropped records, not the last one's: a window
 * started after the last would still cover a record the slot lost. */
static int test_history_dropped_newest(struct test_ctx *ctx)
{
	struct {
		struct perf_event_header h;
		u64 n, time, pad[13];
	} r = { .h = { .type = PERF_RECORD_SAMPLE, .size = 128 } };
	struct history *h = history__new(1, history__min_size(1), 1);
	struct history_take t = { 0 };
	struct buf out = { 0 };
	u64 n, first, newest_dropped = 0;
	int ret = TEST_FAIL;

	(void)ctx;
	TEST_ASSERT(h && sizeof(r) == 128 && h->chunk_bytes % 256 == 0, "set-up");
	/* each odd record 5 ns older than the even one before it; a chunk
	 * holds an even number of them, so every chunk ends on an older one */
	for (n = 0; n < 40 * (h->chunk_bytes / 128); n++) {	/* 40 chunks: it wraps */
		r.n = n;
		r.time = 1000 + 10 * n - (n & 1 ? 15 : 0);
		for (int i = 0; i < 13; i++)	/* noise: chunks must fill the size */
			r.pad[i] = (n * 13 + i + 1) * 0x9e3779b97f4a7c15ULL;
		while (history__add(h, 0, &r.h, r.time) == -EAGAIN)
			;
	}
	history__sync(h);
	if (history__take(h, &t) || history_take__read(&t, 0, &out) || out.len < 128) {
		fprintf(stderr, "  FAILED: take\n");
		goto out;
	}
	memcpy(&first, out.p + 8, 8);
	for (n = 0; n < first; n++)
		newest_dropped = MAX(newest_dropped, 1000 + 10 * n - (n & 1 ? 15 : 0));
	if (!first || first % 2 || !t.slot[0].dropped || t.slot[0].dropped_last != newest_dropped) {
		fprintf(stderr, "  FAILED: kept from %llu, dropped %llu up to time %llu, the newest "
			"dropped is %llu\n", (unsigned long long)first,
			(unsigned long long)t.slot[0].dropped,
			(unsigned long long)t.slot[0].dropped_last, (unsigned long long)newest_dropped);
		goto out;
	}
	ret = TEST_OK;
out:
	buf__release(&out);
	if (t.slot)
		history__release(h, &t);
	history__delete(h);
	return ret;
}

TEST_SUITE(suite_flight_history, "flight/history",
	   "Compressed user-space history: numbered records wrap many times, the newest survive "
	   "in order, the oldest go first and are counted, memory within the size; a take while "
	   "buffers wait for the compressor; an add never waits long for one, nor is it "
	   "real-time; what a slot dropped up to is its newest, not its last",
	   test_history, test_history_take_queued, test_history_add_bounded,
	   test_history_not_realtime, test_history_dropped_newest);
