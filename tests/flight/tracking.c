/* The tracking log (flight/tracking.c): task records pruned once their
 * task is gone, the cap's evictions, and BPF programs' records pruned
 * once the program is unloaded. */
#include "tests/tests.h"
#include "tests/hand-records.h"
#include "util/event.h"
#include "flight/tracking.h"

#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>

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

static void put_ksym(struct tracking *t, u64 addr, int unreg, u64 time)
{
	struct buf b = { 0 };
	struct sample_id sid = { .time = time };
	size_t at = event__begin(&b, PERF_RECORD_KSYMBOL, 0);

	buf__u64(&b, addr);
	buf__u32(&b, 64);
	buf__add(&b, &(u16){ PERF_RECORD_KSYMBOL_TYPE_BPF }, sizeof(u16));
	buf__add(&b, &(u16){ unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0 }, sizeof(u16));
	buf__str0(&b, "bpf_prog_0123456789abcdef_x");
	event__end(&b, at, ST, &sid);
	tracking__add(t, (const void *)b.p);
	buf__release(&b);
}

static void put_bpf_event(struct tracking *t, u32 id, int unload, u64 time)
{
	struct buf b = { 0 };
	struct sample_id sid = { .time = time };
	size_t at = event__begin(&b, PERF_RECORD_BPF_EVENT, 0);

	buf__add(&b, &(u16){ unload ? PERF_BPF_EVENT_PROG_UNLOAD : PERF_BPF_EVENT_PROG_LOAD },
		 sizeof(u16));
	buf__add(&b, &(u16){ 0 }, sizeof(u16));
	buf__u32(&b, id);
	buf__zero(&b, BPF_TAG_SIZE);
	event__end(&b, at, ST, &sid);
	tracking__add(t, (const void *)b.p);
	buf__release(&b);
}

/* The log's records of one type, as "time," for each: what survived. */
static void times_of(struct tracking *t, u32 type, char *out, size_t sz)
{
	size_t n = 0;

	out[0] = 0;
	tracking__for_each(t, h)
		if (h->type == type && n < sz)
			n += snprintf(out + n, sz - n, "%llu,",
				      (unsigned long long)event__time(h, ST));
}

static int test_prune(struct test_ctx *ctx)
{
	struct tracking t;
	char got[128];

	(void)ctx;

	tracking__init(&t, 0, ST);
	put_ksym(&t, 0xffffffffc0001000ULL, 0, 0);	/* loaded before recording */
	put_bpf_event(&t, 7, 0, 0);
	put_ksym(&t, 0xffffffffc0002000ULL, 0, 1);
	put_bpf_event(&t, 8, 0, 1);
	put_ksym(&t, 0xffffffffc0002000ULL, 1, 3);	/* 8 unloaded at 3 */
	put_bpf_event(&t, 8, 1, 3);
	put_ksym(&t, 0xffffffffc0002000ULL, 0, 5);	/* its address reused by 9 */
	put_bpf_event(&t, 9, 0, 5);
	TEST_ASSERT(!tracking__prune(&t, 3), "prune");
	TEST_ASSERT(t.nr_records == 8, "an unload at the prune time is kept: %llu records",
		    (unsigned long long)t.nr_records);
	TEST_ASSERT(!tracking__prune(&t, 4), "prune");
	times_of(&t, PERF_RECORD_KSYMBOL, got, sizeof(got));
	TEST_ASSERT(!strcmp(got, "0,5,"), "KSYMBOLs left: %s (0,5, expected)", got);
	times_of(&t, PERF_RECORD_BPF_EVENT, got, sizeof(got));
	TEST_ASSERT(!strcmp(got, "0,5,"), "BPF_EVENTs left: %s (0,5, expected)", got);
	TEST_ASSERT(t.pruned_records == 4 && t.nr_records == 4, "%llu pruned, %llu left",
		    (unsigned long long)t.pruned_records, (unsigned long long)t.nr_records);

	/* the log is in drain order: 9's load at 5, read from one CPU's ring,
	 * comes before the unload at 3, read later from another's, of the
	 * program 8 whose address it reuses; 9 is live */
	{
		struct tracking o;

		tracking__init(&o, 0, ST);
		put_ksym(&o, 0xffffffffc0003000ULL, 0, 1);
		put_bpf_event(&o, 8, 0, 1);
		put_ksym(&o, 0xffffffffc0003000ULL, 0, 5);
		put_bpf_event(&o, 9, 0, 5);
		put_ksym(&o, 0xffffffffc0003000ULL, 1, 3);
		put_bpf_event(&o, 8, 1, 3);
		TEST_ASSERT(!tracking__prune(&o, 4), "prune");
		times_of(&o, PERF_RECORD_KSYMBOL, got, sizeof(got));
		TEST_ASSERT(!strcmp(got, "5,"), "out of order: KSYMBOLs left: %s (5, expected)", got);
		times_of(&o, PERF_RECORD_BPF_EVENT, got, sizeof(got));
		TEST_ASSERT(!strcmp(got, "5,"), "out of order: BPF_EVENTs left: %s (5, expected)", got);
		tracking__exit(&o);
	}

	/* over the cap, tasks' records go, live programs' stay */
	for (int i = 0; i < 50; i++) {
		struct buf b = { 0 };
		struct sample_id sid = { .pid = 100 + i, .tid = 100 + i, .time = 10 + i };
		size_t at = event__begin(&b, PERF_RECORD_COMM, 0);

		buf__u32(&b, 100 + i);
		buf__u32(&b, 100 + i);
		buf__str0(&b, "task");
		event__end(&b, at, ST, &sid);
		tracking__add(&t, (const void *)b.p);
		buf__release(&b);
	}
	t.cap = 512;
	tracking__prune(&t, 0);
	times_of(&t, PERF_RECORD_KSYMBOL, got, sizeof(got));
	TEST_ASSERT(!strcmp(got, "0,5,") && t.evicted_records > 0,
		    "over the cap: KSYMBOLs %s, %llu evicted", got,
		    (unsigned long long)t.evicted_records);
	tracking__exit(&t);
	return TEST_OK;
}

/* Records lost: the tasks are named from /proc at most once a gap, and
 * only after a new loss; what is appended is counted, a torn tail is not
 * taken. */
static int test_rename(struct test_ctx *ctx)
{
	struct tracking t, names;
	struct buf torn = { 0 };

	(void)ctx;
	tracking__init(&t, 0, ST);
	tracking__init(&names, 0, ST);
	put_task_named(&names, PERF_RECORD_COMM, 30, 30, 0, "alive");
	put_task_named(&names, PERF_RECORD_COMM, 30, 31, 0, "alive-thread");
	TEST_ASSERT(!tracking__rename_due(&t, 100, 10), "nothing lost, nothing due");
	tracking__lost(&t, 5);
	TEST_ASSERT(tracking__rename_due(&t, 100, 10), "a loss makes it due");
	TEST_ASSERT(!tracking__rename(&t, &names.log, 100), "rename");
	TEST_ASSERT(t.nr_records == 2 && t.renamed == 2 && t.renamings == 1 && t.lost == 5,
		    "2 names appended: %llu records, %llu renamed", (unsigned long long)t.nr_records,
		    (unsigned long long)t.renamed);
	TEST_ASSERT(!tracking__rename_due(&t, 200, 10), "no new loss, not due");
	tracking__ring_full(&t);
	TEST_ASSERT(tracking__rename_due(&t, 200, 10), "a ring found full makes it due");
	TEST_ASSERT(!tracking__rename(&t, &names.log, 200) && t.renamed == 4, "rename when full");
	TEST_ASSERT(!tracking__rename_due(&t, 300, 10), "nothing full or lost since, not due");
	tracking__lost(&t, 1);
	TEST_ASSERT(!tracking__rename_due(&t, 205, 10), "a new loss within the gap waits");
	TEST_ASSERT(tracking__rename_due(&t, 210, 10), "a new loss after the gap is due");
	buf__add(&torn, names.log.p, names.log.len - 1);
	TEST_ASSERT(!tracking__rename(&t, &torn, 210) && t.renamed == 5 && t.nr_records == 5,
		    "the torn second name is not taken: %llu renamed",
		    (unsigned long long)t.renamed);
	buf__release(&torn);
	tracking__exit(&names);
	tracking__exit(&t);
	return TEST_OK;
}

/* The time of the index-th record of t's log. */
static u64 log_time(const struct tracking *t, int index)
{
	size_t off = 0;
	const struct perf_event_header *h = (const void *)t->log.p;

	for (; index > 0; index--) {
		off += h->size;
		h = (const void *)(t->log.p + off);
	}
	return event__time(h, ST);
}

/* A task whose FORK outlived the loss (its COMM did not) is named after
 * its parent from the fork on: its name from /proc must come after the
 * last fork of its tid, or samples keep the parent's name. */
static int test_rename_after_fork(struct test_ctx *ctx)
{
	struct tracking t, names;

	(void)ctx;
	tracking__init(&t, 0, ST);
	tracking__init(&names, 0, ST);
	put_task(&t, PERF_RECORD_FORK, 40, 40, 500);	/* an older task of tid 40 */
	put_task(&t, PERF_RECORD_EXIT, 40, 40, 600);
	put_task(&t, PERF_RECORD_FORK, 40, 40, 1000);	/* the live one */
	put_task(&t, PERF_RECORD_FORK, 50, 51, 700);
	put_task_named(&names, PERF_RECORD_COMM, 40, 40, 0, "live");
	put_task_named(&names, PERF_RECORD_COMM, 50, 51, 0, "thread");
	put_task_named(&names, PERF_RECORD_COMM, 60, 60, 0, "unforked");
	tracking__lost(&t, 1);
	TEST_ASSERT(!tracking__rename(&t, &names.log, 100) && t.nr_records == 7, "rename");
	TEST_ASSERT(log_time(&t, 4) == 1001, "tid 40's name at %llu, not just after its last fork",
		    (unsigned long long)log_time(&t, 4));
	TEST_ASSERT(log_time(&t, 5) == 701, "tid 51's name at %llu, not just after its fork",
		    (unsigned long long)log_time(&t, 5));
	TEST_ASSERT(log_time(&t, 6) == 0, "a name with no fork logged at %llu, not 0",
		    (unsigned long long)log_time(&t, 6));
	tracking__exit(&names);
	tracking__exit(&t);
	return TEST_OK;
}

TEST_SUITE(suite_flight_tracking, "flight/tracking",
	   "Tracking log: exited tasks pruned, a record moved over its own header, the cap's "
	   "evictions, superseded names first; BPF programs pruned once unloaded, kept over the "
	   "cap; named again from /proc after a loss, once a gap, each name after its task's fork",
	   test_tracking, test_prune, test_rename, test_rename_after_fork);
