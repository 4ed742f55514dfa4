/* The prelude of a dump (flight/prelude.c): the task records a dump's
 * samples need, picked from the tracking log by time, parents included. */
#include "tests/tests.h"
#include "tests/hand-records.h"
#include "util/event.h"
#include "flight/prelude.h"

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

const struct test_suite suite_flight_prelude = {
	"flight/prelude", "Prelude: the tasks of a dump's samples, their parents and the kernel map, "
	"by time; a pending sample's task too",
	test_prelude,
};
