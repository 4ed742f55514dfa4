/* CPU lists (util/cpumap.c): one CPU, the online ones, and bad lists. */
#include "tests/tests.h"
#include "util/cpumap.h"

#include <errno.h>

static int test_cpumap(struct test_ctx *ctx)
{
	struct cpu_map *m;

	(void)ctx;
	m = cpu_map__new("0");
	TEST_ASSERT(m && m->nr == 1 && m->map[0] == 0, "cpu 0");
	cpu_map__put(m);
	m = cpu_map__new(NULL);
	TEST_ASSERT(m && m->nr >= 1, "online cpus");
	cpu_map__put(m);
	TEST_ASSERT(!cpu_map__new("x") && errno == EINVAL, "bad syntax");
	TEST_ASSERT(!cpu_map__new("1-0") && errno == EINVAL, "reversed range");
	TEST_ASSERT(!cpu_map__new("0,") && errno == EINVAL, "trailing comma");
	TEST_ASSERT(!cpu_map__new("4000") && errno == ENODEV, "absent cpu");
	return TEST_OK;
}

const struct test_suite suite_util_cpumap = {
	"util/cpumap", "CPU lists: one CPU, the online ones, bad syntax, a reversed range, an absent CPU",
	test_cpumap,
};
