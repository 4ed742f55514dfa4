/* The kernel's backward (write_backward, read-only) ring as this tool
 * reads it: exact counts, wrap-around, PAUSE_OUTPUT losses, no repeats. */
#include "tests/tests.h"
#include "util/cpumap.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "util/ring-copy.h"
#include "util/tp.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

struct counts {
	u32 tid;
	u64 id;
	int samples, comms, bad;
	u64 lost;
	int first_comm, last_comm;	/* numbers of the wl-N names seen, oldest/newest */
	int comm_gaps;			/* consecutive COMMs whose numbers don't follow */
	int paused_names;		/* "p-" names, made while paused */
};

static void count_copy(struct ring_copy *rc, struct counts *c)
{
	int prev = -1;

	c->first_comm = c->last_comm = -1;
	for (u64 i = 0; i < rc->idx.nr; i++) {
		const struct perf_event_header *h = (const void *)(rc->buf + rc->idx.offs[i]);
		const u64 *f = (const u64 *)(h + 1);
		const u32 *w = (const u32 *)(h + 1);

		if (h->type == PERF_RECORD_SAMPLE) {
			/* IDENTIFIER, IP, pid/tid, TIME, CPU, PERIOD, RAW */
			if (f[0] != c->id || (u32)(f[2] >> 32) != c->tid || f[5] != 1)
				c->bad++;
			c->samples++;
		} else if (h->type == PERF_RECORD_COMM && w[1] == c->tid) {
			const char *name = (const char *)(w + 2);
			int n;

			if (!strncmp(name, "p-", 2)) {
				c->paused_names++;
				continue;
			}
			if (sscanf(name, "wl-%d", &n) != 1) {
				c->bad++;
				continue;
			}
			if (prev >= 0 && n != prev + 1)
				c->comm_gaps++;
			if (c->first_comm < 0)
				c->first_comm = n;
			c->last_comm = prev = n;
			c->comms++;
		} else if (h->type == PERF_RECORD_LOST) {
			c->lost += f[1];
		}
	}
}

static void rename_n(const char *fmt, int from, int n)
{
	char name[16];

	for (int i = from; i < from + n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		prctl(PR_SET_NAME, name);
	}
}

/* sys_enter_prctl with COMM tracking on the same backward ring. */
static struct evlist *open_backward(size_t ring_bytes, char *err, size_t errsz, int *ret)
{
	struct evlist *l = evlist__new();
	struct cpu_map *cpus = cpu_map__new_any();
	struct thread_map *threads = thread_map__new_pid(gettid());

	*ret = -ENOMEM;
	if (l && cpus && threads) {
		evlist__set_maps(l, cpus, threads);
		*ret = parse_events(l, "syscalls:sys_enter_prctl", err, errsz) ? -EINVAL : 0;
		if (!*ret) {
			struct perf_event_attr *a = &l->entries[0]->attr;

			a->sample_type = ST;
			a->sample_id_all = 1;
			a->comm = 1;
			a->write_backward = 1;
			a->disabled = 1;
			*ret = evlist__open(l, err, errsz, 0);
		}
		if (!*ret)
			*ret = evlist__mmap(l, 0, ring_bytes, err, errsz);
	}
	cpu_map__put(cpus);
	thread_map__put(threads);
	if (*ret) {
		evlist__delete(l);
		return NULL;
	}
	return l;
}

static int capture(struct ring_copy *rc, struct counts *c, u64 id)
{
	memset(c, 0, sizeof(*c));
	c->tid = gettid();
	c->id = id;
	ring_copy__capture(rc, 0);
	if (ring_copy__index(rc, ST))
		return -1;
	count_copy(rc, c);
	return 0;
}

static int test_backward(struct test_ctx *ctx)
{
	char err[512] = "", saved[16] = "";
	struct counts c;
	struct evlist *l;
	struct ring_copy rc;
	int ret, n = 1000;

	if (!tp__dir() || tp__id("syscalls", "sys_enter_prctl") < 0)
		TEST_SKIP_BECAUSE(ctx, "no syscalls:sys_enter_prctl tracepoint");
	prctl(PR_GET_NAME, saved);

	/* 1. a big ring: exactly n samples and n COMMs, in order */
	l = open_backward(1 << 20, err, sizeof(err), &ret);
	if (!l && (ret == -EACCES || ret == -EPERM))
		TEST_SKIP_BECAUSE(ctx, "no permission to open the tracepoint");
	TEST_ASSERT(l, "open: %s", err);
	TEST_ASSERT(l->bwd && l->bwd[0].pc && !l->fwd[0].pc, "one backward ring only");
	TEST_ASSERT(!ring_copy__init(&rc, &l->bwd[0]), "capture buffer");
	evlist__enable(l);
	rename_n("wl-%d", 0, n);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture");
	TEST_LOG(ctx, "  big ring: %d samples, %d comms, lost %llu\n", c.samples, c.comms,
		 (unsigned long long)c.lost);
	TEST_ASSERT(c.samples == n && c.comms == n && !c.bad, "samples %d comms %d bad %d",
		    c.samples, c.comms, c.bad);
	TEST_ASSERT(c.first_comm == 0 && c.last_comm == n - 1 && !c.comm_gaps, "comm order");

	/* 2. a second capture holds only what came since: no repeats */
	evlist__enable(l);
	rename_n("wl-%d", n, 10);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture 2");
	TEST_ASSERT(c.samples == 10 && c.comms == 10 && c.first_comm == n, "second capture: "
		    "%d samples %d comms from wl-%d", c.samples, c.comms, c.first_comm);

	/* 3. paused: what happens meanwhile is absent and counted lost */
	evlist__enable(l);
	TEST_ASSERT(!evlist__pause_backward(l, 1), "PAUSE_OUTPUT");
	rename_n("p-%d", 0, 50);
	TEST_ASSERT(!evlist__pause_backward(l, 0), "resume");
	rename_n("wl-%d", n + 10, 1);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture 3");
	TEST_LOG(ctx, "  paused: %d samples, %d comms, lost %llu, paused names %d\n",
		 c.samples, c.comms, (unsigned long long)c.lost, c.paused_names);
	TEST_ASSERT(!c.paused_names, "records made while paused are present");
	TEST_ASSERT(c.lost == 100, "lost %llu, want 100 (50 samples + 50 COMMs)",
		    (unsigned long long)c.lost);
	TEST_ASSERT(c.samples == 1 && c.comms == 1, "after resume: %d samples %d comms",
		    c.samples, c.comms);
	ring_copy__exit(&rc);
	evlist__delete(l);

	/* 4. one page that wraps many times: every record read is intact and
	 * they are the newest ones, without gaps */
	l = open_backward(sysconf(_SC_PAGESIZE), err, sizeof(err), &ret);
	TEST_ASSERT(l, "open one page: %s", err);
	TEST_ASSERT(!ring_copy__init(&rc, &l->bwd[0]), "capture buffer");
	evlist__enable(l);
	rename_n("wl-%d", 0, n);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture one page");
	TEST_LOG(ctx, "  one page: %d samples, %d comms, newest wl-%d, bad %d\n", c.samples,
		 c.comms, c.last_comm, c.bad);
	TEST_ASSERT(c.samples > 5 && c.comms > 5 && !c.bad, "intact records");
	TEST_ASSERT(c.last_comm == n - 1 && !c.comm_gaps, "newest wl-%d, gaps %d", c.last_comm,
		    c.comm_gaps);
	TEST_ASSERT(c.samples < n, "a one-page ring cannot hold %d samples", c.samples);
	ring_copy__exit(&rc);
	evlist__delete(l);
	return TEST_OK;
}

const struct test_suite suite_backward_ring_buffer = {
	"backward-ring-buffer", "Backward ring buffer: counts, wrap, pause, no repeats",
	test_backward,
};
