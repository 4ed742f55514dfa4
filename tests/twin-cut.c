/* The twin switch across CPUs, as the recorder's dumps do it
 * (evlist__switch_twins(), ring_copy__index()): a task hops from one CPU
 * to the other at every number it closes, and every dump must hold the
 * numbers before one instant and none after it (give or take a hit the
 * switch interrupted): a dump that took a CPU's ring as of a later moment
 * than another's would hold a number its predecessor's CPU had already
 * left to the next dump (a coherence hole). Each number must be in
 * exactly one dump. */
#include "tests/tests.h"
#include "util/evlist.h"
#include "flight/ring-copy.h"
#include "util/tp.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CUT_BASE	3000000		/* close() numbers: far above our fds */
#define CUT_MAX		60000
#define CUT_DUMPS	150
#define CUT_EPOCH	150		/* numbers a dump waits for */
#define CUT_RING	(1 << 20)	/* ~18000 records: 150 numbers a dump and others' closes */
#define CUT_ST		(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

/* The two hoppers hand the turn over through pipes: each number is closed
 * on one CPU, the next on the other. */
struct hop {
	int cpu[2];
	int to[2][2];		/* to[k]: the pipe hopper k waits on */
	pid_t tid[2];
	long issued;		/* close(CUT_BASE + i) returned for every i < issued */
	int stop;
};

struct hopper {
	struct hop *h;
	int k;
};

/* Stops, once stop is set or every number is out, handing the turn on so
 * that the other one stops too. */
static void *hopper(void *arg)
{
	struct hopper *me = arg;
	struct hop *h = me->h;
	cpu_set_t set;
	char token;

	CPU_ZERO(&set);
	CPU_SET(h->cpu[me->k], &set);
	/* unpinned, it would hop less often, and the test see less */
	if (sched_setaffinity(0, sizeof(set), &set))
		__atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->tid[me->k], gettid(), __ATOMIC_RELEASE);
	while (read(h->to[me->k][0], &token, 1) == 1) {
		long i = __atomic_load_n(&h->issued, __ATOMIC_ACQUIRE);
		int last = __atomic_load_n(&h->stop, __ATOMIC_RELAXED) || i >= CUT_MAX;

		if (!last) {
			close(CUT_BASE + i);
			__atomic_store_n(&h->issued, i + 1, __ATOMIC_RELEASE);
		}
		if (write(h->to[!me->k][1], &token, 1) != 1 || last)
			break;
	}
	return NULL;
}

/* Waits until n more numbers are out, or all are; -ETIMEDOUT after
 * 200000 naps of 50 us without one (10 s, more with the naps' slack). */
static int hop_wait(struct hop *h, long n)
{
	long want = __atomic_load_n(&h->issued, __ATOMIC_ACQUIRE) + n, seen = -1;
	int still = 0;

	want = want < CUT_MAX ? want : CUT_MAX;
	for (;;) {
		long now = __atomic_load_n(&h->issued, __ATOMIC_ACQUIRE);

		if (now >= want)
			return 0;
		still = now == seen ? still + 1 : 0;
		if (still > 10 * 1000 * 20)
			return -ETIMEDOUT;
		seen = now;
		usleep(50);
	}
}

/* What the dumps held: the dump of each number (-1: none yet). */
struct tally {
	int *dump_of;
	long min[CUT_DUMPS + 1], max[CUT_DUMPS + 1];
	int field[2];
	int twice, wrapped;
};

/* Files the hoppers' numbers in the indexed rings under dump k. */
static void tally_dump(struct tally *t, const struct hop *h, struct ring_copy *rc, int nr, int k)
{
	t->min[k] = CUT_MAX;
	t->max[k] = -1;
	for (int r = 0; r < nr; r++) {
		t->wrapped |= rc[r].wrapped;
		for (u64 i = 0; i < rc[r].idx.nr; i++) {
			const unsigned char *p = (const void *)ring_copy__record(&rc[r], i);
			const struct perf_event_header *hd = (const void *)p;
			u32 pid_tid[2], raw_size;
			u64 fd = 0;

			if (hd->type != PERF_RECORD_SAMPLE || hd->size < 28)
				continue;
			memcpy(pid_tid, p + 8, 8);
			memcpy(&raw_size, p + 24, 4);
			if ((pid_tid[1] != (u32)h->tid[0] && pid_tid[1] != (u32)h->tid[1]) ||
			    raw_size < (u32)(t->field[0] + t->field[1]) || 28 + raw_size > hd->size)
				continue;
			memcpy(&fd, p + 28 + t->field[0], t->field[1]);	/* little-endian */
			if (fd < CUT_BASE || fd >= CUT_BASE + CUT_MAX)
				continue;
			fd -= CUT_BASE;
			t->twice += t->dump_of[fd] >= 0;
			t->dump_of[fd] = k;
			t->min[k] = (long)fd < t->min[k] ? (long)fd : t->min[k];
			t->max[k] = (long)fd > t->max[k] ? (long)fd : t->max[k];
		}
	}
}

/* Freezes and indexes the rings of set; 0 or -errno. */
static int dump_set(struct ring_copy *rc, int nr, int set)
{
	for (int r = 0; r < nr; r++) {
		ring_copy__freeze(&rc[r], set, 0, CUT_ST);
		if (ring_copy__index(&rc[r], CUT_ST))
			return -ENOMEM;
	}
	return 0;
}

/* Every number a sample, stamped as a dump's are. */
static void tune_close(struct perf_event_attr *a)
{
	a->sample_type = CUT_ST;
	a->sample_period = 1;
	a->freq = 0;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static int check_tally(struct test_ctx *ctx, const struct tally *t, long issued, int dumps)
{
	long prev_max = -1;
	int prev = -1, empty = 0;

	TEST_ASSERT(!t->wrapped, "a ring wrapped: the counts below would be inexact");
	TEST_ASSERT(!t->twice, "%d numbers in two dumps", t->twice);
	for (long i = 0; i < issued; i++)
		TEST_ASSERT(t->dump_of[i] >= 0, "number %ld of %ld in no dump", i, issued);
	for (int k = 0; k < dumps; k++) {
		if (t->max[k] < 0) {
			empty++;
			continue;
		}
		TEST_ASSERT(t->min[k] > prev_max, "dump %d holds %ld, dump %d holds %ld: "
			    "dump %d did not end at one instant on every CPU", k, t->min[k], prev,
			    prev_max, prev);
		prev_max = t->max[k];
		prev = k;
	}
	TEST_ASSERT(dumps - empty >= CUT_DUMPS / 2, "only %d of %d dumps held a number",
		    dumps - empty, dumps);
	TEST_LOG(ctx, "  %ld numbers, hopping between CPUs at each, in %d dumps (%d empty): "
		 "each once, the dumps in order\n", issued, dumps, empty);
	return TEST_OK;
}

static int test_twin_cut(struct test_ctx *ctx)
{
	const char *dir = tp__dir();
	char err[512] = "";
	struct hop h = { .to = { { -1, -1 }, { -1, -1 } } };
	struct hopper hk[2] = { { &h, 0 }, { &h, 1 } };
	struct tally *t = NULL;
	struct ring_copy *rc = NULL;
	struct evlist *l = NULL;
	pthread_t th[2];
	int started = 0, ret = TEST_FAIL, err_open, nr = 0, dumps = 0, n = 0;
	cpu_set_t set;
	char token = 0, cpu_list[32];

	if (!dir || tp__id("syscalls", "sys_enter_close") < 0)
		TEST_SKIP_BECAUSE(ctx, "twin cut: no syscalls:sys_enter_close tracepoint");
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2)
		TEST_SKIP_BECAUSE(ctx, "twin cut: needs 2 CPUs for the task to hop between");
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			h.cpu[n++] = c;
	snprintf(cpu_list, sizeof(cpu_list), "%d,%d", h.cpu[0], h.cpu[1]);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->dump_of = malloc(CUT_MAX * sizeof(int)))) {
		free(t);
		TEST_ASSERT(0, "alloc");
	}
	memset(t->dump_of, 0xff, CUT_MAX * sizeof(int));
	if (test__close_fd_field(dir, &t->field[0], &t->field[1])) {
		free(t->dump_of);
		free(t);
		TEST_SKIP_BECAUSE(ctx, "twin cut: no sys_enter_close format in tracefs");
	}
	l = test__open_backward("syscalls:sys_enter_close", cpu_list, 1, tune_close, CUT_RING, err,
				sizeof(err), &err_open);
	if (!l && (err_open == -EACCES || err_open == -EPERM)) {
		free(t->dump_of);
		free(t);
		TEST_SKIP_BECAUSE(ctx, "twin cut: no permission to open the tracepoint");
	}
	if (!l) {
		fprintf(stderr, "  FAILED: twin cut: open: %s: %s\n", err, strerror(-err_open));
		goto out;
	}
	nr = l->nr_mmaps;
	rc = calloc(nr, sizeof(*rc));
	if (!rc)
		goto out;
	for (int r = 0; r < nr; r++)
		if (ring_copy__init_twins(&rc[r], &l->bwd[r], &l->bwd_twin[r]))
			goto out;
	if (pipe(h.to[0]) || pipe(h.to[1]))
		goto out;
	evlist__enable(l);
	for (; started < 2; started++)
		if (pthread_create(&th[started], NULL, hopper, &hk[started]))
			goto out;
	if (write(h.to[0][1], &token, 1) != 1)
		goto out;
	/* dump 0 .. CUT_DUMPS - 1 while the task hops, the last after */
	for (; dumps < CUT_DUMPS && __atomic_load_n(&h.issued, __ATOMIC_ACQUIRE) < CUT_MAX;
	     dumps++) {
		int from;

		if (hop_wait(&h, CUT_EPOCH)) {
			fprintf(stderr, "  FAILED: twin cut: the task stopped hopping at %ld\n",
				h.issued);
			goto out;
		}
		from = evlist__switch_twins(l);
		if (from < 0) {
			fprintf(stderr, "  FAILED: twin cut: switch %d: %s\n", dumps, strerror(-from));
			goto out;
		}
		if (dump_set(rc, nr, from))
			goto out;
		tally_dump(t, &h, rc, nr, dumps);
		if (evlist__reopen_twins(l)) {
			fprintf(stderr, "  FAILED: twin cut: opening set %d anew\n", from);
			goto out;
		}
	}
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	for (; started > 0; started--)
		pthread_join(th[started - 1], NULL);
	evlist__disable(l);
	if (dump_set(rc, nr, l->twin_active))
		goto out;
	tally_dump(t, &h, rc, nr, dumps++);
	ret = check_tally(ctx, t, h.issued, dumps);
out:
	/* a turn to each, so that both see stop, wherever they are */
	__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
	for (int k = 0; started && k < 2; k++)
		if (write(h.to[k][1], &token, 1) != 1)
			break;
	for (; started > 0; started--)
		pthread_join(th[started - 1], NULL);
	for (int k = 0; k < 2; k++)
		for (int e = 0; e < 2; e++)
			if (h.to[k][e] >= 0)
				close(h.to[k][e]);
	for (int r = 0; rc && r < nr; r++)
		ring_copy__exit(&rc[r]);
	free(rc);
	evlist__delete(l);
	if (t)
		free(t->dump_of);
	free(t);
	return ret;
}

const struct test_suite suite_twin_cut = {
	"twin-cut", "Twin switch across CPUs: a task hopping at every number, each dump ends at one instant on every CPU, each number in one dump",
	test_twin_cut,
};
