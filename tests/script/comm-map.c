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

const struct test_suite suite_script_comm_map = {
	"script/comm-map", "Task names: a thousand forks each named by its parent's name, the table "
	"growing under the name it copies",
	test_comm_inherit,
};
