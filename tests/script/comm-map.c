/* The task names of perf script (script/comm-map.c): a fork's name taken
 * from its parent's while the table grows under it. */
#include "tests/tests.h"
#include "script/comm-map.h"

#include <stdio.h>
#include <string.h>

/* A fork inherits its parent's name: set() given get()'s pointer must
 * survive the table growing under it (a use-after-free once > 128 tasks). */
static int test_comm_inherit(struct test_ctx *ctx)
{
	struct comm_map *m = comm_map__new();
	char want[16];

	(void)ctx;

	TEST_ASSERT(m, "comm_map__new");
	TEST_ASSERT(!comm_map__set(m, 1, 1, "parent-name"), "set");
	for (int tid = 2; tid < 1000; tid++)
		TEST_ASSERT(!comm_map__set(m, 1, tid, comm_map__get(m, tid - 1)), "set %d", tid);
	for (int tid = 1; tid < 1000; tid++) {
		snprintf(want, sizeof(want), "parent-name");
		TEST_ASSERT(comm_map__get(m, tid) && !strcmp(comm_map__get(m, tid), want),
			    "tid %d named '%s'", tid, comm_map__get(m, tid));
	}
	comm_map__delete(m);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return TEST_OK;
}

static int named(const struct comm_map *m, pid_t tid, const char *want)
{
	const char *c = comm_map__get(m, tid);

	return want ? c && !strcmp(c, want) : !c;
}

/* The stock perf's rules for a FORK: the child is a new task named as its
 * parent is now, even where a synthesized COMM named that tid before (a
 * task forked after the synthesis of an overwrite recording); nameless
 * when the parent is nameless or known under another process. */
static int test_comm_fork(struct test_ctx *ctx)
{
	struct comm_map *m = comm_map__new();

	(void)ctx;

	TEST_ASSERT(m, "comm_map__new");
	TEST_ASSERT(!comm_map__set(m, 100, 100, "bash") && !comm_map__set(m, 200, 200, "perf"),
		    "set");
	TEST_ASSERT(!comm_map__fork(m, 200, 200, 100, 100), "fork");
	TEST_ASSERT(named(m, 200, "bash"), "a named tid forked again: %s", comm_map__get(m, 200));
	TEST_ASSERT(!comm_map__fork(m, 200, 201, 200, 200) && named(m, 201, "bash"), "thread");
	/* a nameless parent makes a nameless child, whatever it was called */
	TEST_ASSERT(!comm_map__set(m, 300, 300, "old") && !comm_map__fork(m, 300, 300, 77, 77),
		    "fork of 77");
	TEST_ASSERT(named(m, 300, NULL), "child of a nameless task: %s", comm_map__get(m, 300));
	/* the idle task's children (kthreadd, init) */
	TEST_ASSERT(!comm_map__fork(m, 2, 2, 0, 0) && named(m, 2, "swapper"), "kthreadd");
	/* a parent tid that the map holds under another process is stale */
	TEST_ASSERT(!comm_map__fork(m, 400, 400, 999, 201), "fork from a stale 201");
	TEST_ASSERT(named(m, 400, NULL) && named(m, 201, NULL), "stale parent: %s %s",
		    comm_map__get(m, 400), comm_map__get(m, 201));
	TEST_ASSERT(!comm_map__set(m, 400, 400, "named") && named(m, 400, "named"), "COMM after");
	comm_map__delete(m);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return TEST_OK;
}

TEST_SUITE(suite_script_comm_map, "script/comm-map",
	   "Task names: a thousand forks each named by its parent's name, the table growing "
	   "under the name it copies; a FORK names the child as the stock perf does",
	   test_comm_inherit, test_comm_fork);
