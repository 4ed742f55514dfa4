/* The kernel's forward ring as this tool reads it: exact counts, LOST. */
#include "tests/tests.h"
#include "util/cpumap.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "record/record.h"
#include "util/tp.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

struct counts {
	pid_t tid;
	size_t tid_off;		/* of a sample's tid: right before its TIME */
	int samples, comms, lost_records, comm_in_order;
	u64 lost;
	char last_comm[16];
};

static int count_rec(const struct mmap *m, u64 pos, const struct perf_event_header *h, void *arg)
{
	struct counts *c = arg;
	char rec[256];
	const u32 *p = (const u32 *)(rec + sizeof(*h));

	mmap__copy(m, pos, rec, MIN(h->size, sizeof(rec)));
	if (h->type == PERF_RECORD_SAMPLE) {
		u32 tid;

		memcpy(&tid, rec + c->tid_off, sizeof(tid));
		if (tid == (u32)c->tid)
			c->samples++;
	} else if (h->type == PERF_RECORD_COMM && p[1] == (u32)c->tid) {
		char want[16];

		snprintf(want, sizeof(want), "wl-%d", c->comms);
		c->comm_in_order += !strcmp((const char *)(p + 2), want);
		c->comms++;
	} else if (h->type == PERF_RECORD_LOST) {
		u64 lost;

		memcpy(&lost, rec + 16, 8);
		c->lost += lost;
		c->lost_records++;
	}
	return 0;
}

static void drain(struct evlist *l, struct counts *c)
{
	struct mmap *m = &l->fwd[0];
	u64 head = mmap__read_head(m);

	mmap__for_each(m, m->tail, head, count_rec, c);
	mmap__write_tail(m, head);
	m->tail = head;
}

static void prctls(int from, int n)
{
	char name[16];

	for (int i = from; i < from + n; i++) {
		snprintf(name, sizeof(name), "wl-%d", i);
		prctl(PR_SET_NAME, name);
	}
}

/* Opens sys_enter_prctl + the tracking dummy on this thread, sharing one
 * forward ring of ring_bytes. */
static struct evlist *open_prctl(struct test_ctx *ctx, size_t ring_bytes, int *skip)
{
	struct record_opts opts = { .no_inherit = 1 };	/* per-task rings can't inherit */
	struct evlist *l = evlist__new();
	struct cpu_map *cpus = cpu_map__new_any();
	struct thread_map *threads = thread_map__new_pid(gettid());
	char err[512] = "";
	int ret = -ENOMEM;

	*skip = 0;
	if (l && cpus && threads) {
		evlist__set_maps(l, cpus, threads);
		ret = parse_events(l, "syscalls:sys_enter_prctl", err, sizeof(err));
		if (!ret)
			ret = record__config(l, &opts, err, sizeof(err));
		if (!ret)
			ret = evlist__open(l, err, sizeof(err), 0);
		if (!ret)
			ret = evlist__mmap(l, ring_bytes, 0, err, sizeof(err));
	}
	cpu_map__put(cpus);
	thread_map__put(threads);
	if (ret) {
		TEST_LOG(ctx, "  %s\n", err);
		*skip = ret == -EACCES || ret == -EPERM || ret == -ENOENT || !tp__dir();
		evlist__delete(l);
		return NULL;
	}
	return l;
}

static int test_kernel_ring(struct test_ctx *ctx)
{
	struct counts c = { .tid = gettid() };
	char saved[16] = "";
	struct evlist *l;
	int skip, n = 500;

	if (!tp__dir() || tp__id("syscalls", "sys_enter_prctl") < 0)
		TEST_SKIP_BECAUSE(ctx, "no syscalls:sys_enter_prctl tracepoint");
	prctl(PR_GET_NAME, saved);
	l = open_prctl(ctx, 1 << 20, &skip);
	if (!l && skip)
		TEST_SKIP_BECAUSE(ctx, "cannot open tracepoints (permissions?)");
	TEST_ASSERT(l, "open");
	c.tid_off = sample__time_offset(record__id_sample_type(l)) - sizeof(u32);
	evlist__enable(l);
	prctls(0, n);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	drain(l, &c);
	TEST_LOG(ctx, "  %d samples, %d comms, lost %llu\n", c.samples, c.comms,
		 (unsigned long long)c.lost);
	TEST_ASSERT(c.samples == n, "samples %d != %d", c.samples, n);
	TEST_ASSERT(c.comms == n && c.comm_in_order == n, "comms %d in order %d", c.comms,
		    c.comm_in_order);
	TEST_ASSERT(c.lost == 0, "lost %llu", (unsigned long long)c.lost);
	evlist__delete(l);

	/* one page that must overflow: what is not read is counted as LOST */
	memset(&c, 0, sizeof(c));
	c.tid = gettid();
	l = open_prctl(ctx, sysconf(_SC_PAGESIZE), &skip);
	TEST_ASSERT(l, "open one-page ring");
	c.tid_off = sample__time_offset(record__id_sample_type(l)) - sizeof(u32);
	evlist__enable(l);
	prctls(0, n);
	drain(l, &c);
	prctls(n, 1);		/* the kernel reports the loss on its next write */
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	drain(l, &c);
	TEST_LOG(ctx, "  one page: %d samples, %d comms, lost %llu in %d LOST records\n",
		 c.samples, c.comms, (unsigned long long)c.lost, c.lost_records);
	TEST_ASSERT(c.lost_records >= 1 && c.lost > 0, "no LOST record after overflow");
	TEST_ASSERT(c.samples + c.comms + c.lost == 2 * (u64)(n + 1),
		    "samples %d + comms %d + lost %llu != %d", c.samples, c.comms,
		    (unsigned long long)c.lost, 2 * (n + 1));
	evlist__delete(l);
	return TEST_OK;
}

const struct test_suite suite_kernel_ring = {
	"kernel-ring", "Kernel forward ring: exact counts and LOST accounting", test_kernel_ring,
};
