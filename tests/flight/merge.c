/* Flight-recorder logic on synthetic inputs: backward ring images, the
 * common window, deferral, the time merge, triggers, rotation, pruning. */
#include "tests/tests.h"
#include "flight/capture.h"
#include "util/event.h"
#include "flight/merge.h"
#include "flight/prelude.h"
#include "flight/record-index.h"
#include "flight/ring-copy.h"
#include "perfdata/data.h"
#include "flight/stage-pipe.h"
#include "record/switch-output.h"
#include "flight/tracking.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define DATA 4096
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct image {
	struct perf_event_mmap_page pc;
	char data[DATA + DATA];	/* the data, and room for its mirror (mmap__mirror()) */
	struct mmap m;
	u64 head;
};

static void image_init(struct image *img)
{
	memset(img, 0, sizeof(*img));
	img->m.pc = &img->pc;
	img->m.data = img->data;
	img->m.mask = DATA - 1;
}

/* Writes a sample the way the kernel does in a backward ring: the head
 * moves down by the size, the record goes at the new head. Its TIME field
 * is seq and every other byte is seq & 0xff. */
static void put_backward(struct image *img, u16 size, u64 seq)
{
	char rec[512];
	struct perf_event_header *h = (void *)rec;

	memset(rec, (int)(seq & 0xff), size);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = size;
	memcpy(rec + 8 + 24, &seq, 8);
	img->head -= size;
	for (u16 i = 0; i < size; i++)
		img->data[(img->head + i) & (DATA - 1)] = rec[i];
	img->pc.data_head = img->head;
}

/* A THROTTLE record at time seq, its sample_id trailer as ST lays it out
 * (TID, TIME, CPU, IDENTIFIER). */
static void put_backward_throttle(struct image *img, u64 seq)
{
	enum { SIZE = 64 };
	char rec[SIZE];
	struct perf_event_header *h = (void *)rec;

	memset(rec, 0, SIZE);
	h->type = PERF_RECORD_THROTTLE;
	h->size = SIZE;
	memcpy(rec + SIZE - 24, &seq, 8);
	img->head -= SIZE;
	for (u16 i = 0; i < SIZE; i++)
		img->data[(img->head + i) & (DATA - 1)] = rec[i];
	img->pc.data_head = img->head;
}

/* A capture of an image as if the previous capture had seen head prev. */
static int capture_image(struct ring_copy *rc, struct image *img, u64 prev)
{
	if (!rc->buf && ring_copy__init(rc, &img->m))
		return -1;
	rc->last_head = prev;
	ring_copy__capture(rc, 0);
	return 0;
}

static int copy_image(struct ring_copy *rc, struct image *img, u64 prev)
{
	return capture_image(rc, img, prev) || ring_copy__index(rc, ST) ? -1 : 0;
}

static u64 time_at(const struct ring_copy *rc, u64 i)
{
	return event__time(ring_copy__record(rc, i), ST);
}

/* Every indexed record intact, oldest first, seqs consecutive ending at last. */
static int check_copy(struct ring_copy *rc, u64 last, u64 *first)
{
	for (u64 i = 0; i < rc->idx.nr; i++) {
		const unsigned char *r = (const unsigned char *)ring_copy__record(rc, i);
		u64 seq = time_at(rc, i);
		u16 size = ((const struct perf_event_header *)r)->size;

		if (seq != last - (rc->idx.nr - 1 - i))
			return -1;
		for (u16 k = 40; k < size; k++)
			if (r[k] != (seq & 0xff))
				return -2;
	}
	*first = rc->idx.nr ? time_at(rc, 0) : 0;
	return 0;
}

static int test_ring_images(struct test_ctx *ctx)
{
	struct image *img = malloc(sizeof(*img));
	struct ring_copy rc = { 0 };
	u64 seq, first;

	(void)ctx;
	TEST_ASSERT(img, "alloc");
	/* unwrapped: 5 records, all there, oldest first */
	image_init(img);
	for (seq = 1; seq <= 5; seq++)
		put_backward(img, 40 + 8 * seq, seq);
	TEST_ASSERT(!copy_image(&rc, img, 0), "copy");
	TEST_ASSERT(rc.idx.nr == 5 && !rc.wrapped, "5 records, nr %llu", (unsigned long long)rc.idx.nr);
	TEST_ASSERT(!check_copy(&rc, 5, &first) && first == 1, "order/content");
	TEST_ASSERT(rc.last_head == img->head, "the next capture starts at this head");

	/* zero header: a previous head beyond what was written stops at zeros */
	TEST_ASSERT(!copy_image(&rc, img, img->head + DATA), "copy");
	TEST_ASSERT(rc.idx.nr == 5, "zero header ends the walk: %llu", (unsigned long long)rc.idx.nr);

	/* only what came since the previous capture: no repeats */
	u64 prev = img->head;

	put_backward(img, 64, 6);
	put_backward(img, 64, 7);
	TEST_ASSERT(ring_copy__fresh(&rc) == 128, "fresh bytes %llu",
		    (unsigned long long)ring_copy__fresh(&rc));
	TEST_ASSERT(!copy_image(&rc, img, prev), "copy");
	TEST_ASSERT(rc.idx.nr == 2 && !check_copy(&rc, 7, &first) && first == 6,
		    "since prev: %llu", (unsigned long long)rc.idx.nr);

	/* wrapped three times with odd sizes: records cross the end of the data
	 * area, the oldest one is torn and dropped, the rest are the newest */
	for (seq = 8; seq < 8 + 300; seq++)
		put_backward(img, 40 + 8 * (seq % 7), seq);
	TEST_ASSERT(!copy_image(&rc, img, 0), "copy");
	TEST_LOG(ctx, "  wrapped: %llu records kept\n", (unsigned long long)rc.idx.nr);
	TEST_ASSERT(rc.wrapped && rc.idx.nr > 40 && rc.idx.nr < 100, "wrapped, nr %llu",
		    (unsigned long long)rc.idx.nr);
	TEST_ASSERT(!check_copy(&rc, 307, &first), "newest intact records");

	/* a bogus size in the middle: only the records newer than it are kept */
	u64 at = img->head + 40 + 8 * (307 % 7);	/* the second newest record */

	((struct perf_event_header *)(img->data + (at & (DATA - 1))))->size = 12;
	TEST_ASSERT(!copy_image(&rc, img, 0), "copy");
	TEST_ASSERT(rc.idx.nr == 1 && !check_copy(&rc, 307, &first), "bogus size: %llu",
		    (unsigned long long)rc.idx.nr);
	ring_copy__exit(&rc);
	free(img);
	return TEST_OK;
}

/* Twins: a ring read where it stands, a record crossing its end read
 * through the mirror, and the cut of what another ring dumped (the
 * switch's overlap), what the ring's closed events finished late, or
 * what came after the switch's cut (the twin's ring has it). */
static int test_twin_images(struct test_ctx *ctx)
{
	struct image a, b;
	struct ring_copy rc;
	u64 first, start_a;

	(void)ctx;
	image_init(&a);
	image_init(&b);
	/* a's head 24 bytes past the start of its data: its first record
	 * (the oldest) crosses the end */
	a.head = start_a = 3 * DATA + 24;
	b.head = 5 * DATA;
	a.pc.data_head = a.head;
	b.pc.data_head = b.head;
	TEST_ASSERT(!ring_copy__init_twins(&rc, &a.m, &b.m), "init");
	TEST_ASSERT(!rc.buf && rc.last_head == start_a && rc.twin_last_head == b.head, "no buffer");
	for (u64 seq = 10; seq <= 40; seq++)
		put_backward(&a, 48 + 8 * (seq % 5), seq);
	TEST_ASSERT(ring_copy__fresh_in(&rc, 0) == start_a - a.head && ring_copy__fresh_in(&rc, 1) == 0,
		    "fresh bytes");
	ring_copy__freeze(&rc, 0, 0, ST);
	TEST_ASSERT(rc.buf == a.data && rc.len - rc.start == start_a - a.head && !rc.wrapped,
		    "in place: %llu bytes", (unsigned long long)(rc.len - rc.start));
	TEST_ASSERT(!ring_copy__index(&rc, ST), "index");
	TEST_ASSERT(rc.idx.nr == 31 && rc.idx.samples == 31 && rc.overlap == 0, "31 records: %llu",
		    (unsigned long long)rc.idx.nr);
	TEST_ASSERT(!check_copy(&rc, 40, &first) && first == 10, "order/content, the crossing one too");
	TEST_ASSERT(rc.floor == 40 && rc.last_head == a.head, "floor %llu", (unsigned long long)rc.floor);

	/* b, enabled at 45 (enabled_ns), holds a record its closed events
	 * finished after its last read (42: newer than the floor, older than
	 * the enable), then its own 46-55 */
	b.m.enabled_ns = 45;
	put_backward(&b, 48, 42);
	for (u64 seq = 46; seq <= 55; seq++)
		put_backward(&b, 64, seq);
	TEST_ASSERT(ring_copy__fresh_in(&rc, 1) == 48 + 10 * 64, "b's fresh bytes");
	ring_copy__freeze(&rc, 1, 0, ST);
	TEST_ASSERT(rc.buf == b.data && !ring_copy__index(&rc, ST), "index b");
	TEST_ASSERT(rc.overlap == 1 && rc.idx.nr == 10 && rc.idx.samples == 10,
		    "the late record left out: %llu, %llu kept",
		    (unsigned long long)rc.overlap, (unsigned long long)rc.idx.nr);
	TEST_ASSERT(!check_copy(&rc, 55, &first) && first == 46 && rc.floor == 55, "b's own");

	/* a's next turn, enabled at 50: its copies of the overlap's hits
	 * (stamped before b's: 51, 53, 54), then its own 56-60 */
	a.m.enabled_ns = 50;
	put_backward(&a, 56, 51);
	put_backward(&a, 56, 53);
	put_backward(&a, 56, 54);
	for (u64 seq = 56; seq <= 60; seq++)
		put_backward(&a, 48, seq);
	ring_copy__freeze(&rc, 0, 0, ST);
	TEST_ASSERT(!ring_copy__index(&rc, ST) && rc.overlap == 3 && rc.idx.nr == 5,
		    "the overlap left out: %llu, %llu kept", (unsigned long long)rc.overlap,
		    (unsigned long long)rc.idx.nr);
	TEST_ASSERT(!check_copy(&rc, 60, &first) && first == 56 && rc.floor == 60, "a's own");

	/* the switch back: b's twins enabled at 61 on every CPU, the cut at
	 * 66, a's events disabled after it. Shared hits, a's copy stamped
	 * after b's: (62, 63) and (64, 65) before the cut, (67, 68) across
	 * it; then b's own 69, 70 */
	b.m.enabled_ns = 61;
	b.m.switched_ns = 0;
	a.m.switched_ns = 66;
	for (u64 seq = 62; seq <= 67; seq += 2) {
		put_backward(&b, 48, seq + (seq == 66));
		put_backward(&a, 48, seq + 1 + (seq == 66));
	}
	put_backward(&b, 48, 69);
	put_backward(&b, 48, 70);
	ring_copy__freeze(&rc, 0, 0, ST);
	TEST_ASSERT(!ring_copy__index(&rc, ST) && rc.cut == 1 && rc.overlap == 0 &&
		    rc.idx.nr == 2 && time_at(&rc, 0) == 63 && time_at(&rc, 1) == 65,
		    "a up to the cut: %llu cut, %llu kept", (unsigned long long)rc.cut,
		    (unsigned long long)rc.idx.nr);
	TEST_ASSERT(rc.floor == 65, "floor %llu: the cut hit's copy in b would be dropped",
		    (unsigned long long)rc.floor);
	/* the switch to a: a's twins enabled at 71 on every CPU, a hit in
	 * both (a 73, b 74), the cut at 76. A hit under way when a's enable
	 * came reached b alone, stamped after the cut (77); then a shared
	 * hit (a 78, b 79), a THROTTLE of b's alone (80) and a's own 81, 82.
	 * b keeps what is older than a's first record since the cut (77 has
	 * no copy), and its THROTTLE; its floor stays below a's 78 */
	a.m.enabled_ns = 71;
	a.m.switched_ns = 0;
	b.m.switched_ns = 76;
	put_backward(&a, 48, 73);
	put_backward(&b, 48, 74);
	put_backward(&b, 48, 77);
	put_backward(&a, 48, 78);
	put_backward(&b, 48, 79);
	put_backward_throttle(&b, 80);
	put_backward(&a, 48, 81);
	put_backward(&a, 48, 82);
	ring_copy__freeze(&rc, 1, 0, ST);
	TEST_ASSERT(rc.cut_ns == 78, "cut at %llu: a's first record since the cut is 78",
		    (unsigned long long)rc.cut_ns);
	TEST_ASSERT(!ring_copy__index(&rc, ST) && rc.cut == 1 && rc.overlap == 2 &&
		    rc.idx.nr == 6 && time_at(&rc, 0) == 67 && time_at(&rc, 4) == 77 &&
		    ring_copy__record(&rc, 5)->type == PERF_RECORD_THROTTLE,
		    "b: %llu left out, %llu cut, %llu kept", (unsigned long long)rc.overlap,
		    (unsigned long long)rc.cut, (unsigned long long)rc.idx.nr);
	TEST_ASSERT(rc.floor == 77, "b's floor %llu", (unsigned long long)rc.floor);
	/* a, the last dump: no cut; the shared hit b dumped left out */
	ring_copy__freeze(&rc, 0, 0, ST);
	TEST_ASSERT(!ring_copy__index(&rc, ST) && !rc.cut && rc.overlap == 1 && rc.idx.nr == 3 &&
		    time_at(&rc, 0) == 78 && time_at(&rc, 2) == 82, "a after the cut: %llu kept",
		    (unsigned long long)rc.idx.nr);
	ring_copy__exit(&rc);
	return TEST_OK;
}

static int test_window_and_defer(struct test_ctx *ctx)
{
	struct image *img = calloc(3, sizeof(*img));
	struct ring_copy rc[3] = { 0 };
	u64 first, head0;

	(void)ctx;
	TEST_ASSERT(img, "alloc");
	/* ring 0 wrapped with oldest 100.., ring 1 wrapped from 150, ring 2 not */
	for (int r = 0; r < 3; r++)
		image_init(&img[r]);
	for (u64 t = 1; t <= 200; t++)
		put_backward(&img[0], 64, t);
	for (u64 t = 1; t <= 210; t++)
		put_backward(&img[1], 48, t);
	for (u64 t = 1; t <= 3; t++)
		put_backward(&img[2], 64, t);
	for (int r = 0; r < 3; r++)
		TEST_ASSERT(!copy_image(&rc[r], &img[r], 0), "copy");
	TEST_ASSERT(rc[0].wrapped && rc[1].wrapped && !rc[2].wrapped, "wrap flags");
	u64 o0 = time_at(&rc[0], 0), o1 = time_at(&rc[1], 0);

	TEST_ASSERT(ring_copy__window_start(rc, 3) == MAX(o0, o1),
		    "window start %llu, oldest %llu %llu",
		    (unsigned long long)ring_copy__window_start(rc, 3),
		    (unsigned long long)o0, (unsigned long long)o1);
	TEST_ASSERT(ring_copy__window_start(&rc[2], 1) == 0, "no wrap, no window");

	/* defer: records newer than 195 go back to the ring for next time */
	head0 = img[0].head;
	TEST_ASSERT(!capture_image(&rc[0], &img[0], 0), "capture");
	TEST_ASSERT(ring_copy__defer_after(&rc[0], 195, ST) == 5, "5 deferred");
	TEST_ASSERT(!ring_copy__index(&rc[0], ST) && !check_copy(&rc[0], 195, &first), "kept up to 195");
	TEST_ASSERT(rc[0].last_head == head0 + 5 * 64, "the next capture starts at the deferred ones");
	/* and it reads them, and only them */
	TEST_ASSERT(!copy_image(&rc[0], &img[0], rc[0].last_head), "copy");
	TEST_ASSERT(rc[0].idx.nr == 5 && !check_copy(&rc[0], 200, &first) && first == 196,
		    "deferred records come next: %llu from %llu", (unsigned long long)rc[0].idx.nr,
		    (unsigned long long)first);

	/* across rings: what is newer than the earliest copy's clock less the
	 * slack goes back... */
	for (int r = 0; r < 3; r++) {
		TEST_ASSERT(!capture_image(&rc[r], &img[r], 0), "capture");
		rc[r].clock = r ? 1000 : 196 + 10;
	}
	TEST_ASSERT(ring_copy__defer_newest(rc, 3, 10, ST) == 4 + 14, "197-200 and 197-210 deferred");
	for (int r = 0; r < 3; r++)
		TEST_ASSERT(!ring_copy__index(&rc[r], ST) &&
			    !check_copy(&rc[r], r == 2 ? 3 : 196, &first), "ring %d kept up to 196", r);
	/* ...unless no ring would keep a record: then they all stay */
	for (int r = 0; r < 3; r++) {
		TEST_ASSERT(!capture_image(&rc[r], &img[r], 0), "capture");
		rc[r].clock = 10;
	}
	TEST_ASSERT(ring_copy__defer_newest(rc, 3, 10, ST) == 0, "nothing deferred");
	for (int r = 0; r < 3; r++)
		TEST_ASSERT(rc[r].start == 0 && rc[r].last_head == rc[r].head &&
			    !ring_copy__index(&rc[r], ST) &&
			    !check_copy(&rc[r], r == 0 ? 200 : r == 1 ? 210 : 3, &first),
			    "ring %d whole", r);
	/* one ring keeping one is enough to defer the others' */
	for (int r = 0; r < 3; r++) {
		TEST_ASSERT(!capture_image(&rc[r], &img[r], 0), "capture");
		rc[r].clock = 3 + 10;
	}
	TEST_ASSERT(ring_copy__defer_newest(rc, 3, 10, ST) > 0, "deferred");
	for (int r = 0; r < 3; r++)
		TEST_ASSERT(!ring_copy__index(&rc[r], ST), "index");
	TEST_ASSERT(!rc[0].idx.nr && !rc[1].idx.nr && rc[2].idx.nr == 3, "only ring 2's kept: %llu %llu %llu",
		    (unsigned long long)rc[0].idx.nr, (unsigned long long)rc[1].idx.nr,
		    (unsigned long long)rc[2].idx.nr);
	for (int r = 0; r < 3; r++)
		ring_copy__exit(&rc[r]);
	free(img);
	return TEST_OK;
}

/* A sample with the time t in a buffer of records, its offset in *offs. */
static void put_sample(struct buf *b, u32 *offs, u64 *n, u64 t, u32 pid)
{
	u64 rec[6] = { 0 };
	struct perf_event_header *h = (void *)rec;

	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(rec);
	memcpy((char *)rec + SAMPLE_PID_OFFSET, &pid, 4);
	memcpy((char *)rec + SAMPLE_TIME_OFFSET, &t, 8);
	offs[(*n)++] = b->len;
	buf__add(b, rec, sizeof(rec));
}

static int test_merge(struct test_ctx *ctx)
{
	/* three sorted streams with ties across them */
	static const u64 times[3][4] = { { 10, 20, 20, 40 }, { 5, 20, 30, 0 }, { 20, 25, 0, 0 } };
	static const int lens[3] = { 4, 3, 2 };
	static const int want[][2] = { { 1, 0 }, { 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 1 },
				       { 2, 0 }, { 2, 1 }, { 1, 2 }, { 0, 3 } };
	struct buf b[3] = { 0 };
	u32 offs[3][4];
	struct merge m = { 0 };
	const struct perf_event_header *h;
	struct timed_ref refs[6], scratch[6];
	u64 t, n;
	int k = 0;

	(void)ctx;
	TEST_ASSERT(!merge__reserve(&m, 3), "reserve");
	for (int s = 0; s < 3; s++) {
		n = 0;
		for (int i = 0; i < lens[s]; i++)
			put_sample(&b[s], offs[s], &n, times[s][i], s * 100 + i);
	}
	for (int s = 0; s < 3; s++)
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s]
		};
	m.nr_streams = 3;
	merge__start(&m, 0);
	while ((h = merge__next(&m, &t))) {
		u32 pid;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		TEST_ASSERT(k < 9 && pid == (u32)(want[k][0] * 100 + want[k][1]),
			    "record %d: stream %u #%u, want %d #%d", k, pid / 100, pid % 100,
			    want[k][0], want[k][1]);
		k++;
	}
	TEST_ASSERT(k == 9, "%d records merged", k);
	/* a window leaves out the older samples of the trimmed streams only */
	m.streams[1].trim = m.streams[2].trim = 1;
	merge__start(&m, 21);
	for (k = 0; merge__next(&m, &t); k++)
		;
	TEST_ASSERT(k == 6 && m.trimmed == 3, "window: %d kept, %llu trimmed", k,
		    (unsigned long long)m.trimmed);
	merge__exit(&m);
	for (int s = 0; s < 3; s++)
		buf__release(&b[s]);

	/* the log sort: by time, ties in log order */
	static const u64 lt[6] = { 30, 10, 20, 10, 0, 20 };

	for (u32 i = 0; i < 6; i++)
		refs[i] = (struct timed_ref){ lt[i], i };
	merge__sort_refs(refs, scratch, 6);
	TEST_ASSERT(refs[0].off == 4 && refs[1].off == 1 && refs[2].off == 3 &&
		    refs[3].off == 2 && refs[4].off == 5 && refs[5].off == 0,
		    "time order, ties in log order");
	return TEST_OK;
}

/* Many streams, a count that is not a power of two, empty streams, ties
 * everywhere and a record at the largest time: the merge gives what a stable
 * sort by (time, stream) gives. */
static int test_merge_many(struct test_ctx *ctx)
{
	enum { NR = 37, MAX_LEN = 40 };
	struct buf b[NR] = { 0 };
	u64 times[NR][MAX_LEN], t, n, seed = 12345;
	u32 offs[NR][MAX_LEN], lens[NR], next_pos[NR] = { 0 }, total = 0, k = 0, last_stream = 0;
	u64 last_time = 0;
	struct merge m = { 0 };
	const struct perf_event_header *h;
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < NR; s++) {
		u64 now = 0;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		lens[s] = s % 9 == 4 ? 0 : (seed >> 33) % MAX_LEN;
		n = 0;
		for (u32 i = 0; i < lens[s]; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			now += (seed >> 33) % 3;	/* many equal times */
			times[s][i] = s == 7 && i == lens[s] - 1 ? UINT64_MAX : now;
			put_sample(&b[s], offs[s], &n, times[s][i], s * 100 + i);
		}
		total += lens[s];
	}
	/* reserve grows what an earlier reserve made */
	if (merge__reserve(&m, 2) || merge__reserve(&m, NR)) {
		fprintf(stderr, "  FAILED merge_many: reserve\n");
		goto out;
	}
	for (int s = 0; s < NR; s++)
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s]
		};
	m.nr_streams = NR;
	merge__start(&m, 0);
	while ((h = merge__next(&m, &t))) {
		u32 pid, stream, pos;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		stream = pid / 100;
		pos = pid % 100;
		if (stream >= NR || pos != next_pos[stream]++ || t != times[stream][pos] ||
		    t < last_time ||
		    (k && t == last_time && stream < last_stream)) {
			fprintf(stderr, "  FAILED merge_many: record %u: stream %u #%u at %llu "
				"after stream %u at %llu\n",
				k, stream, pos, (unsigned long long)t, last_stream,
				(unsigned long long)last_time);
			goto out;
		}
		last_time = t;
		last_stream = stream;
		k++;
	}
	if (k != total) {
		fprintf(stderr, "  FAILED merge_many: %u of %u records merged\n", k, total);
		goto out;
	}
	ret = TEST_OK;
out:
	merge__exit(&m);
	for (int s = 0; s < NR; s++)
		buf__release(&b[s]);
	return ret;
}

enum { MERGE_CHECK_MAX = 8 };

/* Merges nr streams of the given times (samples below window trimmed in
 * the streams trim names) and checks that every record not trimmed comes
 * out once, that the trimmed ones are counted, and that the streams not
 * named loose (those in time order) come out in (time, stream, position)
 * order. TEST_OK, or TEST_FAIL with a line saying why. */
static int merge_check(const char *what, int nr, u64 *const *times, const u32 *lens,
		       const int *trim, const int *loose, u64 window)
{
	struct buf b[MERGE_CHECK_MAX] = { 0 };
	u32 *offs[MERGE_CHECK_MAX] = { 0 }, next_pos[MERGE_CHECK_MAX] = { 0 }, last_stream = 0;
	u64 t, n, k = 0, want = 0, trimmed = 0, last_time = 0;
	u8 *seen[MERGE_CHECK_MAX] = { 0 };
	struct merge m = { 0 };
	const struct perf_event_header *h;
	const char *why = "set-up";
	int ret = TEST_FAIL;

	if (nr > MERGE_CHECK_MAX)
		goto out;
	for (int s = 0; s < nr; s++) {
		offs[s] = calloc(lens[s] + 1, sizeof(u32));
		seen[s] = calloc(lens[s] + 1, 1);
		if (!offs[s] || !seen[s])
			goto out;
		n = 0;
		for (u32 i = 0; i < lens[s]; i++) {
			put_sample(&b[s], offs[s], &n, times[s][i], s * 1000000 + i);
			if (trim[s] && times[s][i] < window)
				trimmed++;
			else
				want++;
		}
		if (b[s].err)
			goto out;
	}
	if (merge__reserve(&m, nr))
		goto out;
	for (int s = 0; s < nr; s++) {
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s],
			.trim = trim[s],
		};
		while (trim[s] && next_pos[s] < lens[s] && times[s][next_pos[s]] < window)
			next_pos[s]++;
	}
	m.nr_streams = nr;
	merge__start(&m, window);
	why = NULL;
	while ((h = merge__next(&m, &t))) {
		u32 pid, stream, pos;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		stream = pid / 1000000;
		pos = pid % 1000000;
		if (stream >= (u32)nr || pos >= lens[stream])
			why = "not a record";
		else if (seen[stream][pos])
			why = "twice";
		else if (t != times[stream][pos])
			why = "wrong time";
		else if (trim[stream] && t < window)
			why = "trimmed";
		else if (!loose[stream] && (pos != next_pos[stream] || t < last_time ||
					    (t == last_time && stream < last_stream)))
			why = "out of order";
		if (why) {
			fprintf(stderr, "  FAILED merge %s: record %llu: stream %u #%u at %llu, after "
				"stream %u at %llu: %s\n", what, (unsigned long long)k, stream, pos,
				(unsigned long long)t, last_stream, (unsigned long long)last_time,
				why);
			goto out;
		}
		seen[stream][pos] = 1;
		k++;
		if (loose[stream])
			continue;
		next_pos[stream] = pos + 1;
		last_time = t;
		last_stream = stream;
	}
	if (k != want || m.trimmed != trimmed) {
		fprintf(stderr, "  FAILED merge %s: %llu of %llu records, %llu of %llu trimmed\n",
			what, (unsigned long long)k, (unsigned long long)want,
			(unsigned long long)m.trimmed, (unsigned long long)trimmed);
		goto out;
	}
	ret = TEST_OK;
out:
	if (why && !strcmp(why, "set-up"))
		fprintf(stderr, "  FAILED merge %s: set-up\n", what);
	merge__exit(&m);
	for (int s = 0; s < nr && s < MERGE_CHECK_MAX; s++) {
		buf__release(&b[s]);
		free(offs[s]);
		free(seen[s]);
	}
	return ret;
}

/* Slices of every shape: one time held by more records than a slice has
 * room for, a dense stream trimmed to a window, a stream a little out of
 * order, times far apart up to the largest, an empty stream, and two
 * streams of bursts far apart, the second 1 ns ahead of the first (its
 * records gathered after the first's and sorted before them, a few or
 * many in a bucket). */
static int test_merge_slices(struct test_ctx *ctx)
{
	enum { NR = 7, SAME = 30000, DENSE = 20000, SHUFFLED = 9000, FAR = 201, BURSTS = 20000 };
	static const u32 lens[NR] = { SAME, DENSE, SHUFFLED, FAR, BURSTS, 0, BURSTS };
	static const int trim[NR] = { [1] = 1 }, loose[NR] = { [2] = 1 };
	u64 *times[NR] = { 0 }, seed = 42, burst = 100000, t;
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < NR; s++) {
		if (!(times[s] = calloc(lens[s] + 1, sizeof(u64))))
			goto out;
		for (u32 i = 0; i < lens[s]; i++) {
			switch (s) {
			case 0: t = 1000; break;
			case 1: t = 1000 + i; break;
			/* every tenth record swapped with the one before */
			case 2: t = 500 + 3 * (i % 10 == 9 ? i - 1 : i % 10 == 8 ? i + 1 : i); break;
			case 3: t = i < 100 ? i : i < 200 ? (1ULL << 62) + i : UINT64_MAX; break;
			case 4:
				/* 40 records 0-2 ns apart, then 10 up to 200 us apart */
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				burst += i % 50 < 40 ? (seed >> 33) % 3 : (seed >> 33) % 200000;
				t = burst;
				break;
			default: t = times[4][i] - 1; break;
			}
			times[s][i] = t;
		}
	}
	ret = merge_check("slices", NR, times, lens, trim, loose, 5000);
out:
	for (int s = 0; s < NR; s++)
		free(times[s]);
	return ret;
}

/* Slices that overflow: one time that fills a slice but is not the
 * earliest at a cursor (a later stream holds earlier records, which must
 * not come after it), at 1000 and at UINT64_MAX, and a slice undone after an earlier stream gave it
 * records and trimmed samples (every cursor and the count go back). */
static int test_merge_overflow(struct test_ctx *ctx)
{
	enum { SAME = 8193, DENSE = 20000, SPREAD = 20001 };
	u64 *t[3] = { 0 };
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < 3; s++)
		if (!(t[s] = calloc(SPREAD, sizeof(u64))))
			goto out;
	/* stream 0: 8193 records at 1000; stream 1: at 0 and 501 */
	for (u32 i = 0; i < SAME; i++)
		t[0][i] = 1000;
	t[1][0] = 0;
	t[1][1] = 501;
	if (merge_check("one time", 2, t, (const u32[]){ SAME, 2 }, (const int[]){ 0, 0 },
			(const int[]){ 0, 0 }, 0))
		goto out;
	/* the same at the largest time, where a slice's end is clamped to it */
	for (u32 i = 0; i < SAME; i++)
		t[0][i] = UINT64_MAX;
	t[1][0] = (1ULL << 63) + 10;
	t[1][1] = (1ULL << 63) + 20;
	if (merge_check("the largest time", 2, t, (const u32[]){ SAME, 2 },
			(const int[]){ 0, 0 }, (const int[]){ 0, 0 }, 0))
		goto out;
	/* stream 0: one a ns, its first 100 trimmed; stream 1: a burst of
	 * 9000 in 9 ns, then one every 10 ns, so that the first slices, as
	 * wide as the density of its middle half says, overflow in stream 1
	 * after stream 0 gave them records and trimmed samples */
	for (u32 i = 0; i < SPREAD; i++)
		t[0][i] = i;
	for (u32 i = 0; i < DENSE; i++)
		t[1][i] = i < 9000 ? i / 1000 : 10 + 10 * (u64)(i - 9000);
	if (merge_check("undone", 2, t, (const u32[]){ SPREAD, DENSE }, (const int[]){ 1, 0 },
			(const int[]){ 0, 0 }, 100))
		goto out;
	ret = TEST_OK;
out:
	for (int s = 0; s < 3; s++)
		free(t[s]);
	return ret;
}

static int test_triggers(struct test_ctx *ctx)
{
	static const char *const bad[] = { "foo", "10", "0s", "-1s", "10x", "", "s", "1.5s", "0M",
					   "5k" };
	struct switch_output so = { 0 };

	(void)ctx;
	TEST_ASSERT(!switch_output__parse(&so, NULL) && so.kind == SWITCH_SIGNAL, "default");
	TEST_ASSERT(!switch_output__parse(&so, "signal") && so.kind == SWITCH_SIGNAL, "signal");
	TEST_ASSERT(!switch_output__parse(&so, "100M") && so.kind == SWITCH_SIZE &&
		    so.size == 100ULL << 20, "100M");
	TEST_ASSERT(!switch_output__parse(&so, "2K") && so.size == 2048, "2K");
	TEST_ASSERT(!switch_output__parse(&so, "30s") && so.kind == SWITCH_TIME &&
		    so.period_ns == 30000000000ULL, "30s");
	TEST_ASSERT(!switch_output__parse(&so, "5m") && so.period_ns == 300000000000ULL, "5m");
	TEST_ASSERT(!switch_output__parse(&so, "1h") && so.period_ns == 3600000000000ULL, "1h");
	TEST_ASSERT(!switch_output__parse(&so, "2d") && so.period_ns == 172800000000000ULL, "2d");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TEST_ASSERT(switch_output__parse(&so, bad[i]) < 0, "'%s' accepted", bad[i]);
	return TEST_OK;
}

static void count_removed(const char *path, void *arg)
{
	(void)path;
	(*(int *)arg)++;
}

static int test_rotation(struct test_ctx *ctx)
{
	char dir[] = "/tmp/frtest-rot-XXXXXX", base[128], decoy[160], *names[4];
	struct switch_output so = { .kind = SWITCH_SIGNAL, .max_files = 2 };
	int removed = 0;

	(void)ctx;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	snprintf(base, sizeof(base), "%s/perf.data", dir);
	snprintf(decoy, sizeof(decoy), "%s.2000010100000000", base);
	int fd = open(decoy, O_CREAT | O_WRONLY, 0600);

	TEST_ASSERT(fd >= 0, "decoy");
	close(fd);
	/* BASE.YYYYMMDDHHMMSSCC, computed, not looked up; ours never repeat */
	for (int i = 0; i < 3; i++) {
		names[i] = switch_output__name(&so, base);
		TEST_ASSERT(names[i] && !strncmp(names[i], base, strlen(base)) &&
			    names[i][strlen(base)] == '.' && strlen(names[i]) == strlen(base) + 17 &&
			    strspn(names[i] + strlen(base) + 1, "0123456789") == 16, "name %s",
			    names[i]);
		TEST_ASSERT(!i || strcmp(names[i - 1], names[i]) < 0, "%s then %s", names[i - 1],
			    names[i]);
	}
	for (int i = 0; i < 3; i++)
		free(names[i]);
	for (int i = 0; i < 4; i++) {
		TEST_ASSERT(asprintf(&names[i], "%s.%d", base, i) > 0, "asprintf");
		close(open(names[i], O_CREAT | O_WRONLY | O_EXCL, 0600));
		TEST_ASSERT(!switch_output__reserve(&so), "reserve");
		switch_output__created(&so, strdup(names[i]), count_removed, &removed);
	}
	TEST_ASSERT(removed == 2 && access(names[0], F_OK) && access(names[1], F_OK) &&
		    !access(names[2], F_OK) && !access(names[3], F_OK), "kept the newest 2");
	TEST_ASSERT(so.nr_files == 2 && !strcmp(so.files[0], names[2]), "remembered the newest 2");
	TEST_ASSERT(!access(decoy, F_OK), "a file this run did not make was deleted");
	for (int i = 0; i < 4; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	unlink(decoy);
	rmdir(dir);
	switch_output__exit(&so);
	return TEST_OK;
}

static void put_task_named(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time,
			   const char *name)
{
	struct buf b = { 0 };
	struct sample_id sid = { .pid = pid, .tid = tid, .time = time };
	size_t at = event__begin(&b, type, 0);

	buf__u32(&b, pid);
	if (type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) {
		buf__u32(&b, pid);
		buf__u32(&b, tid);
		buf__u32(&b, pid);
		buf__u64(&b, time);
	} else {
		buf__u32(&b, tid);
		buf__str0(&b, name);
	}
	event__end(&b, at, ST, &sid);
	tracking__add(t, (const void *)b.p);
	buf__release(&b);
}

static void put_task(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time)
{
	put_task_named(t, type, pid, tid, time, "name");
}

static int test_tracking(struct test_ctx *ctx)
{
	struct tracking t;
	int pid10 = 0, pid20 = 0, n = 0;

	(void)ctx;
	tracking__init(&t, 0, ST);
	put_task(&t, PERF_RECORD_FORK, 10, 10, 1);
	put_task(&t, PERF_RECORD_COMM, 10, 10, 1);
	put_task(&t, PERF_RECORD_COMM, 20, 20, 2);
	put_task(&t, PERF_RECORD_COMM, 10, 11, 3);	/* a thread of 10 */
	put_task(&t, PERF_RECORD_EXIT, 10, 11, 4);	/* the thread exits */
	put_task(&t, PERF_RECORD_EXIT, 10, 10, 5);	/* then the process */
	put_task(&t, PERF_RECORD_COMM, 10, 10, 7);	/* pid 10 reused */
	TEST_ASSERT(t.nr_records == 7, "7 records");
	tracking__prune(&t, 5);		/* exits before 5: only the thread goes */
	TEST_ASSERT(t.nr_records == 5 && t.pruned_records == 2, "thread pruned: %llu left",
		    (unsigned long long)t.nr_records);
	tracking__prune(&t, 6);
	tracking__for_each(&t, h) {
		const u32 *p = (const u32 *)(h + 1);

		n++;
		pid10 += p[0] == 10;
		pid20 += p[0] == 20;
		TEST_ASSERT(p[0] != 10 || event__time(h, ST) == 7, "old pid 10 record kept");
	}
	TEST_ASSERT(n == 2 && pid10 == 1 && pid20 == 1 && t.nr_records == 2, "n %d", n);
	/* a small pruned record before a big kept one: compaction moves the big
	 * one over its own old header, which must not derail the walk */
	put_task(&t, PERF_RECORD_EXIT, 40, 40, 8);
	put_task_named(&t, PERF_RECORD_MMAP2, 50, 50, 9, "/a/rather/long/path/to/a/library/that/"
		       "makes/this/record/much/bigger/than/the/exit/record/before/it.so");
	tracking__prune(&t, 100);
	TEST_ASSERT(t.nr_records == 3, "after pruning an EXIT before a big record: %llu",
		    (unsigned long long)t.nr_records);
	n = 0;
	tracking__for_each(&t, h)
		n += h->type == PERF_RECORD_MMAP2 && ((const u32 *)(h + 1))[0] == 50;
	TEST_ASSERT(n == 1, "the big record survived the move intact");
	/* the cap evicts the oldest, counted */
	t.cap = 64;
	for (int i = 0; i < 10; i++)
		put_task(&t, PERF_RECORD_COMM, 30 + i, 30 + i, 10 + i);
	tracking__prune(&t, 0);
	TEST_ASSERT(t.log.len <= 64 && t.evicted_records > 0, "cap: %zu bytes, %llu evicted",
		    t.log.len, (unsigned long long)t.evicted_records);
	tracking__exit(&t);

	/* over the cap a task's superseded names go first; the kernel's map
	 * and a live task's maps and newest name stay */
	tracking__init(&t, 0, ST);
	put_task_named(&t, PERF_RECORD_MMAP2, (u32)-1, (u32)-1, 0, "[kernel.kallsyms]");
	put_task_named(&t, PERF_RECORD_MMAP2, 60, 60, 1, "/usr/bin/live");
	for (int i = 0; i < 100; i++)
		put_task(&t, PERF_RECORD_COMM, 60, 60, 2 + i);
	t.cap = 1024;
	tracking__prune(&t, 0);
	n = 0;
	tracking__for_each(&t, h) {
		const u32 *p = (const u32 *)(h + 1);

		n++;
		TEST_ASSERT(h->type != PERF_RECORD_COMM || event__time(h, ST) == 101,
			    "a superseded COMM kept (time %llu)",
			    (unsigned long long)event__time(h, ST));
		TEST_ASSERT(h->type != PERF_RECORD_MMAP2 || p[0] == (u32)-1 || p[0] == 60, "maps");
	}
	TEST_ASSERT(n == 3 && t.evicted_records == 99, "kept %d: kernel map, map, newest name; "
		    "%llu evicted", n, (unsigned long long)t.evicted_records);
	tracking__exit(&t);
	return TEST_OK;
}

static void put_fork(struct tracking *t, u32 pid, u32 ppid, u64 time)
{
	struct buf b = { 0 };
	struct sample_id sid = { .pid = pid, .tid = pid, .time = time };
	size_t at = event__begin(&b, PERF_RECORD_FORK, 0);

	buf__u32(&b, pid);
	buf__u32(&b, ppid);
	buf__u32(&b, pid);
	buf__u32(&b, ppid);
	buf__u64(&b, time);
	event__end(&b, at, ST, &sid);
	tracking__add(t, (const void *)b.p);
	buf__release(&b);
}

/* Which pids' task records a selection holds, as a bit mask of pid / 10. */
static unsigned selected_pids(const struct prelude *p, const char *base, int *others)
{
	unsigned mask = 0;

	*others = 0;
	for (u64 i = 0; i < p->nr; i++) {
		const struct perf_event_header *h = (const void *)(base + p->offs[i]);
		u32 pid = *(const u32 *)(h + 1);

		if ((h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
		     h->type == PERF_RECORD_MMAP2) && pid < 100)
			mask |= 1u << (pid / 10);
		else
			(*others)++;
	}
	return mask;
}

static int test_prelude(struct test_ctx *ctx)
{
	struct tracking t;
	struct prelude p = { 0 };
	struct buf b = { 0 };
	u32 offs[1];
	u64 n = 0, log_len;
	int others;
	unsigned mask;

	(void)ctx;
	tracking__init(&t, 0, ST);
	put_task_named(&t, PERF_RECORD_MMAP2, (u32)-1, (u32)-1, 0, "[kernel.kallsyms]");
	put_task(&t, PERF_RECORD_COMM, 10, 10, 1);		/* grandparent */
	put_fork(&t, 20, 10, 5);
	put_task(&t, PERF_RECORD_COMM, 20, 20, 6);
	put_task(&t, PERF_RECORD_MMAP2, 20, 20, 6);
	put_task(&t, PERF_RECORD_COMM, 30, 30, 7);		/* unrelated */
	put_task(&t, PERF_RECORD_MMAP2, 30, 30, 7);
	/* the grandchild's FORK was drained first (another CPU's ring): the
	 * selection goes by time, not log order */
	put_fork(&t, 40, 20, 8);
	put_task(&t, PERF_RECORD_COMM, 40, 40, 9);
	put_fork(&t, 50, 30, 9);
	buf__add(&b, t.log.p, t.log.len);
	log_len = b.len;

	/* the samples are of 40: its records, its parent's and grandparent's, and
	 * the kernel map */
	TEST_ASSERT(!prelude__add_pid(&p, 40), "add");
	TEST_ASSERT(!prelude__select(&p, b.p, b.len, log_len, ST), "select");
	mask = selected_pids(&p, b.p, &others);
	TEST_ASSERT(mask == (1u << 1 | 1u << 2 | 1u << 4), "tasks selected %#x", mask);
	TEST_ASSERT(!p.pending_data, "no pending sample, %llu counted",
		    (unsigned long long)p.pending_data);
	TEST_ASSERT(others == 1 && p.records == 7 && p.log_records == 10,
		    "kernel map kept, %llu of %llu records", (unsigned long long)p.records,
		    (unsigned long long)p.log_records);
	for (u64 i = 1; i < p.nr; i++)
		TEST_ASSERT(event__time((const void *)(b.p + p.offs[i - 1]), ST) <=
			    event__time((const void *)(b.p + p.offs[i]), ST), "time order");

	/* a pending forward sample of 50 brings 50 and 30 in; the sample is kept */
	prelude__reset(&p);
	put_sample(&b, offs, &n, 10, 50);
	TEST_ASSERT(!prelude__add_pid(&p, 40), "add");
	TEST_ASSERT(!prelude__select(&p, b.p, b.len, log_len, ST), "select");
	mask = selected_pids(&p, b.p, &others);
	TEST_ASSERT(mask == (1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5),
		    "with a pending sample: %#x", mask);
	TEST_ASSERT(p.pending_data == 1, "pending samples: %llu", (unsigned long long)p.pending_data);
	TEST_ASSERT(others == 2 && p.records == 10, "sample and kernel map, %llu records",
		    (unsigned long long)p.records);
	prelude__exit(&p);
	buf__release(&b);
	tracking__exit(&t);
	return TEST_OK;
}

/* The capture crew copies and indexes every ring as one thread would: NR
 * rings, each wrapped to a different depth, captured twice; ring r on CPU
 * cpu0 + r. */
static int capture_crew_case(struct test_ctx *ctx, int nr, int cpu0, int cpus)
{
	enum { RINGS = 7 };
	static struct image img[RINGS];
	struct ring_copy rc[RINGS] = { 0 };
	struct capture_crew *crew = NULL;
	u64 seq = 1, last[RINGS], first;
	int ret = TEST_FAIL;

	for (int r = 0; r < nr; r++) {
		image_init(&img[r]);
		img[r].m.cpu = cpu0 + r;
		TEST_ASSERT(!ring_copy__init(&rc[r], &img[r].m), "ring %d", r);
	}
	crew = capture_crew__new(rc, nr, cpus);
	if (!crew) {
		fprintf(stderr, "  FAILED: crew of %d rings on CPUs %d..: %s\n", nr, cpu0,
			strerror(errno));
		goto out;
	}
	TEST_LOG(ctx, "  capture crew: %d helpers for %d rings on CPUs %d..\n", crew->threads,
		 nr, cpu0);
	for (int round = 0; round < 2; round++) {
		for (int r = 0; r < nr; r++)
			for (int k = 0; k < 20 + 13 * r * (round + 1); k++) {
				put_backward(&img[r], 64 + 8 * (k % 5), seq);
				last[r] = seq++;
			}
		capture_crew__run(crew, 0);
		/* a capture leaves no index: the crew's makes one */
		TEST_ASSERT(!capture_crew__index(crew, ST), "crew index");
		for (int r = 0; r < nr; r++) {
			if (check_copy(&rc[r], last[r], &first) ||
			    !rc[r].idx.nr || rc[r].head != img[r].head) {
				fprintf(stderr, "  FAILED: %d rings, round %d ring %d: %llu records\n",
					nr, round, r, (unsigned long long)rc[r].idx.nr);
				goto out;
			}
		}
	}
	ret = TEST_OK;
out:
	capture_crew__delete(crew);
	for (int r = 0; r < nr; r++)
		ring_copy__exit(&rc[r]);
	return ret;
}

/* More rings than CPUs (helpers take several, pinned where the CPUs
 * exist), rings on CPUs that do not exist (helpers run unpinned), one
 * ring, and several on a single CPU (the recorder's thread copies them). */
static int test_capture_crew(struct test_ctx *ctx)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (capture_crew_case(ctx, 7, 0, cpus) || capture_crew_case(ctx, 3, CPU_SETSIZE - 3, cpus) ||
	    capture_crew_case(ctx, 1, 0, cpus) || capture_crew_case(ctx, 5, 0, 1))
		return TEST_FAIL;
	return TEST_OK;
}

/* The stage pipe writes every stage handed over, in order, whole, while
 * the next is filled; a write that fails is reported by the next put and
 * by finish, and nothing after it is written. */
static int test_stage_pipe(struct test_ctx *ctx)
{
	enum { STAGE = 4096, STAGES = 500 };
	struct stage_pipe pipe;
	struct perf_data out = { .fd = -1 };
	char tmpl[] = "/tmp/perf-stage-pipe.XXXXXX", *back = NULL;
	size_t total = 0, len;
	int spread_checked = 0;
	int ret = TEST_FAIL, err = 0;

	/* the stages are in memory before the first dump: a first dump's
	 * merge paid a page fault every 4K of them (malloc and memset were
	 * compiled into a calloc, which touches nothing) */
	TEST_ASSERT(!stage_pipe__init(&pipe, 1 << 20), "stage pipe: %s", strerror(errno));
	for (int i = 0; i < STAGE_PIPE_DEPTH; i++) {
		uintptr_t page = sysconf(_SC_PAGESIZE), lo = (uintptr_t)pipe.buf[i] & ~(page - 1);
		uintptr_t hi = ((uintptr_t)pipe.buf[i] + (1 << 20) + page - 1) & ~(page - 1);
		unsigned char in[(1 << 20) / 4096 + 1];
		size_t pages = (hi - lo) / page, resident = 0;

		if (pages > sizeof(in) || mincore((void *)lo, hi - lo, in)) {
			fprintf(stderr, "  FAILED: stage pipe: mincore: %s\n", strerror(errno));
			goto out;
		}
		for (size_t k = 0; k < pages; k++)
			resident += in[k] & 1;
		if (resident != pages) {
			fprintf(stderr, "  FAILED: stage %d: %zu of %zu pages in memory\n", i,
				resident, pages);
			goto out;
		}
	}
	stage_pipe__exit(&pipe);
	TEST_ASSERT(!stage_pipe__init(&pipe, STAGE), "stage pipe: %s", strerror(errno));
	out.fd = mkstemp(tmpl);
	if (out.fd < 0)
		goto out;
	unlink(tmpl);
	stage_pipe__start(&pipe, &out, 0);
	for (int i = 0; i < STAGES && !err; i++) {
		char *stage = stage_pipe__stage(&pipe);

		len = 8 + (size_t)(i * 37) % (STAGE - 8);
		for (size_t k = 0; k < len; k++)
			stage[k] = (char)(i + k);
		total += len;
		err = stage_pipe__put(&pipe, len);
	}
	if (err || stage_pipe__finish(&pipe) || out.data_size != total) {
		fprintf(stderr, "  FAILED: stage pipe: %s, %llu of %zu bytes\n", strerror(-err),
			(unsigned long long)out.data_size, total);
		goto out;
	}
	back = malloc(total);
	if (!back || pread(out.fd, back, total, 0) != (ssize_t)total)
		goto out;
	total = 0;
	for (int i = 0; i < STAGES; i++) {
		len = 8 + (size_t)(i * 37) % (STAGE - 8);
		for (size_t k = 0; k < len; k++)
			if (back[total + k] != (char)(i + k)) {
				fprintf(stderr, "  FAILED: stage %d byte %zu\n", i, k);
				goto out;
			}
		total += len;
	}
	/* a file that cannot be written: the failure comes back, once */
	close(out.fd);
	out.fd = open("/dev/null", O_RDONLY);
	out.data_size = 0;
	stage_pipe__start(&pipe, &out, 0);
	for (int i = 0; i < STAGES && !err; i++) {
		memset(stage_pipe__stage(&pipe), 0, 64);
		err = stage_pipe__put(&pipe, 64);
	}
	if (stage_pipe__finish(&pipe) != -EBADF || out.data_size) {
		fprintf(stderr, "  FAILED: a write to a read-only fd: put said %d\n", err);
		goto out;
	}
	/* during a dump the merge (this thread) stays on one CPU and the
	 * pipe's thread keeps off it; after it, both have their CPUs back
	 * (skipped with one CPU) */
	{
		cpu_set_t mine, home, me_during, its, me_after, its_after;
		int cpu = -1;

		if (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) ||
		    pthread_getaffinity_np(pipe.tid, sizeof(home), &home) || CPU_COUNT(&mine) < 2)
			goto pinned_done;
		stage_pipe__start(&pipe, &out, 0);
		pthread_getaffinity_np(pthread_self(), sizeof(me_during), &me_during);
		pthread_getaffinity_np(pipe.tid, sizeof(its), &its);
		for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
			if (CPU_ISSET(c, &me_during))
				cpu = c;
		stage_pipe__finish(&pipe);
		pthread_getaffinity_np(pthread_self(), sizeof(me_after), &me_after);
		pthread_getaffinity_np(pipe.tid, sizeof(its_after), &its_after);
		pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
		if (CPU_COUNT(&me_during) != 1 || CPU_ISSET(cpu, &its) || !CPU_COUNT(&its) ||
		    !CPU_EQUAL(&me_after, &mine) || !CPU_EQUAL(&its_after, &home)) {
			fprintf(stderr, "  FAILED: during a dump the merge on %d CPUs (want 1), the "
				"pipe's thread on the merge's CPU %d: %s, on no CPU: %s; after it, "
				"the merge's CPUs back: %s, the thread's: %s\n",
				CPU_COUNT(&me_during), cpu, CPU_ISSET(cpu, &its) ? "yes" : "no",
				CPU_COUNT(&its) ? "no" : "yes",
				CPU_EQUAL(&me_after, &mine) ? "yes" : "no",
				CPU_EQUAL(&its_after, &home) ? "yes" : "no");
			goto out;
		}
		spread_checked = 1;
	}
pinned_done:
	TEST_LOG(ctx, "  stage pipe: %d stages in order; a failed write reported; %s\n", STAGES,
		 spread_checked ? "the merge on one CPU and the thread on the others for a dump" :
		 "NOT checked that the merge and the thread keep to CPUs of their own: one CPU "
		 "allowed here");
	ret = TEST_OK;
out:
	if (out.fd >= 0)
		close(out.fd);
	free(back);
	stage_pipe__exit(&pipe);
	return ret;
}

/* The index of a buffer holding more records than its arrays foresaw:
 * they grow, and records read newest first come out oldest first, every
 * one once, with its time and offset, as records read oldest first do;
 * a LOST record's time comes from its id trailer. */
static int test_index_grows(struct test_ctx *ctx)
{
	enum { NR = 1000 };
	const size_t rec = 56;	/* IDENTIFIER, IP, TID, TIME, CPU */
	char *buf = calloc(NR, rec);
	int ret = TEST_FAIL;

	(void)ctx;
	TEST_ASSERT(buf, "alloc");
	/* newest first: record i holds time NR - i, a LOST (time in its
	 * trailer) every 100th */
	for (u64 i = 0; i < NR; i++) {
		char *r = buf + i * rec;
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = rec };
		u64 t = NR - i;

		if (i % 100 == 7) {
			h.type = PERF_RECORD_LOST;	/* id, lost, then TID, TIME, CPU, IDENTIFIER */
			memcpy(r + 8 + 16 + 8, &t, 8);
		} else {
			memcpy(r + sample__time_offset(ST), &t, 8);
		}
		memcpy(r, &h, sizeof(h));
	}
	for (int from_top = 1; from_top >= 0; from_top--) {
		struct record_index ix;

		TEST_ASSERT(!record_index__init(&ix, 8, 3 * 64 + 8), "index of 8");
		if (record_index__build(&ix, buf, 0, (u64)NR * rec, UINT64_MAX, ST,
					from_top ? INDEX_NEWEST_FIRST | INDEX_TASKS : 0) ||
		    ix.nr != NR || ix.cap < NR) {
			fprintf(stderr, "  FAILED: %s: %llu of %d records indexed\n",
				from_top ? "newest first" : "oldest first", (unsigned long long)ix.nr, NR);
			record_index__exit(&ix);
			goto out;
		}
		for (u64 k = 0; k < NR; k++) {
			u64 i = from_top ? NR - 1 - k : k;

			if (ix.offs[k] != i * rec || ix.times[k] != NR - i) {
				fprintf(stderr, "  FAILED: %s: entry %llu: offset %u time %llu, not "
					"%llu and %llu\n", from_top ? "newest first" : "oldest first",
					(unsigned long long)k, ix.offs[k],
					(unsigned long long)ix.times[k], (unsigned long long)(i * rec),
					(unsigned long long)(NR - i));
				record_index__exit(&ix);
				goto out;
			}
		}
		if (from_top && (ix.samples != NR - NR / 100 || ix.lost_records != NR / 100)) {
			fprintf(stderr, "  FAILED: %llu samples, %llu LOST counted\n",
				(unsigned long long)ix.samples, (unsigned long long)ix.lost_records);
			record_index__exit(&ix);
			goto out;
		}
		record_index__exit(&ix);
	}
	ret = TEST_OK;
out:
	free(buf);
	return ret;
}

static int test_snapshot(struct test_ctx *ctx)
{
	int (*const parts[])(struct test_ctx *) = {
		test_ring_images, test_twin_images, test_window_and_defer, test_merge, test_merge_many, test_merge_slices, test_merge_overflow,
		test_triggers,
		test_rotation, test_tracking, test_prelude, test_capture_crew, test_stage_pipe,
		test_index_grows,
	};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		int ret = parts[i](ctx);

		if (ret)
			return ret;
	}
	return TEST_OK;
}

const struct test_suite suite_snapshot = {
	"snapshot", "Flight recorder: ring images, window, merge, triggers, rotation, tracking, prelude, "
	"the capture crew, the stage pipe, an index that grows, twin rings read in place",
	test_snapshot,
};
