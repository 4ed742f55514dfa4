/* The ring copy (flight/ring-copy.c) on backward ring images: what a
 * capture keeps of wrapped and torn rings, twin rings read in place and
 * cut at the switch, the common window and deferral across rings. */
#include "tests/tests.h"
#include "tests/ring-images.h"
#include "util/event.h"

#include <stdlib.h>

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

TEST_SUITE(suite_flight_ring_copy, "flight/ring-copy",
	   "Ring copy: backward ring images wrapped and torn, twin rings read in place and cut "
	   "at the switch, the common window, deferral",
	   test_ring_images, test_twin_images, test_window_and_defer);
