/* Flight-recorder logic on synthetic inputs: backward ring images, the
 * common window, deferral, the time merge, triggers, rotation, pruning. */
#include "tests/tests.h"
#include "util/event.h"
#include "util/snapshot.h"
#include "util/switch-output.h"
#include "util/tracking.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define DATA 4096
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct image {
	struct perf_event_mmap_page pc;
	char data[DATA];
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

static u64 time_of(const struct perf_event_header *h, void *arg)
{
	(void)arg;
	return snapshot__sample_time(h);
}

/* Every indexed record intact, oldest first, seqs consecutive ending at last. */
static int check_copy(struct ring_copy *rc, u64 last, u64 *first)
{
	for (u64 i = 0; i < rc->nr; i++) {
		const unsigned char *r = (const unsigned char *)rc->buf + rc->offs[i];
		u64 seq = snapshot__sample_time((const void *)r);
		u16 size = ((const struct perf_event_header *)r)->size;

		if (seq != last - (rc->nr - 1 - i))
			return -1;
		for (u16 k = 40; k < size; k++)
			if (r[k] != (seq & 0xff))
				return -2;
	}
	*first = rc->nr ? snapshot__sample_time((const void *)(rc->buf + rc->offs[0])) : 0;
	return 0;
}

static int test_ring_images(struct test_ctx *ctx)
{
	struct image *img = malloc(sizeof(*img));
	struct ring_copy rc;
	u64 seq, first;

	(void)ctx;
	TEST_ASSERT(img, "alloc");
	/* unwrapped: 5 records, all there, oldest first */
	image_init(img);
	for (seq = 1; seq <= 5; seq++)
		put_backward(img, 40 + 8 * seq, seq);
	TEST_ASSERT(!ring_copy__from_image(&rc, &img->m, img->head, 0), "copy");
	TEST_ASSERT(!ring_copy__index(&rc) && rc.nr == 5 && !rc.wrapped, "5 records, nr %llu",
		    (unsigned long long)rc.nr);
	TEST_ASSERT(!check_copy(&rc, 5, &first) && first == 1, "order/content");
	ring_copy__release(&rc);

	/* zero header: a previous head beyond what was written stops at zeros */
	TEST_ASSERT(!ring_copy__from_image(&rc, &img->m, img->head, img->head + DATA), "copy");
	TEST_ASSERT(!ring_copy__index(&rc) && rc.nr == 5, "zero header ends the walk: %llu",
		    (unsigned long long)rc.nr);
	ring_copy__release(&rc);

	/* only what came since the previous capture: no repeats */
	u64 prev = img->head;

	put_backward(img, 64, 6);
	put_backward(img, 64, 7);
	TEST_ASSERT(!ring_copy__from_image(&rc, &img->m, img->head, prev), "copy");
	TEST_ASSERT(!ring_copy__index(&rc) && rc.nr == 2 && !check_copy(&rc, 7, &first) && first == 6,
		    "since prev: %llu", (unsigned long long)rc.nr);
	ring_copy__release(&rc);

	/* wrapped three times with odd sizes: records cross the end of the data
	 * area, the oldest one is torn and dropped, the rest are the newest */
	for (seq = 8; seq < 8 + 300; seq++)
		put_backward(img, 40 + 8 * (seq % 7), seq);
	TEST_ASSERT(!ring_copy__from_image(&rc, &img->m, img->head, 0), "copy");
	ring_copy__index(&rc);
	TEST_LOG(ctx, "  wrapped: %llu records kept\n", (unsigned long long)rc.nr);
	TEST_ASSERT(rc.wrapped && rc.nr > 40 && rc.nr < 100, "wrapped, nr %llu",
		    (unsigned long long)rc.nr);
	TEST_ASSERT(!check_copy(&rc, 307, &first), "newest intact records");
	ring_copy__release(&rc);

	/* a bogus size in the middle: only the records newer than it are kept */
	u64 at = img->head + 40 + 8 * (307 % 7);	/* the second newest record */

	((struct perf_event_header *)(img->data + (at & (DATA - 1))))->size = 12;
	TEST_ASSERT(!ring_copy__from_image(&rc, &img->m, img->head, 0), "copy");
	TEST_ASSERT(!ring_copy__index(&rc) && rc.nr == 1 && !check_copy(&rc, 307, &first), "bogus size: %llu",
		    (unsigned long long)rc.nr);
	ring_copy__release(&rc);
	free(img);
	return TEST_OK;
}

static int test_window_and_defer(struct test_ctx *ctx)
{
	struct image *img = calloc(3, sizeof(*img));
	struct ring_copy rc[3];
	u64 first;

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
	for (int r = 0; r < 3; r++) {
		TEST_ASSERT(!ring_copy__from_image(&rc[r], &img[r].m, img[r].head, 0), "copy");
		ring_copy__index(&rc[r]);
	}
	TEST_ASSERT(rc[0].wrapped && rc[1].wrapped && !rc[2].wrapped, "wrap flags");
	u64 o0 = snapshot__sample_time((const void *)(rc[0].buf + rc[0].offs[0]));
	u64 o1 = snapshot__sample_time((const void *)(rc[1].buf + rc[1].offs[0]));

	TEST_ASSERT(snapshot__window_start(rc, 3, time_of, NULL) == MAX(o0, o1),
		    "window start %llu, oldest %llu %llu",
		    (unsigned long long)snapshot__window_start(rc, 3, time_of, NULL),
		    (unsigned long long)o0, (unsigned long long)o1);
	TEST_ASSERT(snapshot__window_start(&rc[2], 1, time_of, NULL) == 0, "no wrap, no window");

	/* defer: records newer than 195 go back to the ring for next time */
	rc[0].m = &img[0].m;
	rc[0].head = img[0].head;
	TEST_ASSERT(ring_copy__defer_after(&rc[0], 195, time_of, NULL) == 5, "5 deferred");
	TEST_ASSERT(!check_copy(&rc[0], 195, &first), "kept up to 195");
	TEST_ASSERT(img[0].m.prev == img[0].head + 5 * 64, "prev points at the deferred ones");
	for (int r = 0; r < 3; r++)
		ring_copy__release(&rc[r]);
	free(img);
	return TEST_OK;
}

static int test_merge(struct test_ctx *ctx)
{
	struct perf_event_header h[6];
	u64 times[6] = { 30, 10, 20, 10, 0, 20 };
	struct merge_ref refs[6];

	(void)ctx;
	for (int i = 0; i < 6; i++)
		refs[i] = (struct merge_ref){ &h[i], times[i], i };
	snapshot__sort(refs, 6);
	TEST_ASSERT(refs[0].h == &h[4] && refs[1].h == &h[1] && refs[2].h == &h[3] &&
		    refs[3].h == &h[2] && refs[4].h == &h[5] && refs[5].h == &h[0],
		    "time order, ties in arrival order");
	return TEST_OK;
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
		TEST_ASSERT(p[0] != 10 || tracking__time(&t, h) == 7, "old pid 10 record kept");
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
	return TEST_OK;
}

static int test_snapshot(struct test_ctx *ctx)
{
	int (*const parts[])(struct test_ctx *) = {
		test_ring_images, test_window_and_defer, test_merge, test_triggers,
		test_rotation, test_tracking,
	};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		int ret = parts[i](ctx);

		if (ret)
			return ret;
	}
	return TEST_OK;
}

const struct test_suite suite_snapshot = {
	"snapshot", "Flight recorder: ring images, window, merge, triggers, rotation, tracking",
	test_snapshot,
};
