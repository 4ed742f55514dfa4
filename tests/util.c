#include "tests/tests.h"
#include "util/cpumap.h"
#include "util/util.h"

#include <errno.h>

static int test_util(struct test_ctx *ctx)
{
	u64 v;
	struct cpu_map *m;

	(void)ctx;
	TEST_ASSERT(!parse_size("16M", &v) && v == 16ULL << 20, "16M");
	TEST_ASSERT(!parse_size("512K", &v) && v == 512 << 10, "512K");
	TEST_ASSERT(!parse_size("1G", &v) && v == 1ULL << 30, "1G");
	TEST_ASSERT(!parse_size("100B", &v) && v == 100, "100B");
	TEST_ASSERT(!parse_size("4kb", &v) && v == 4096, "4kb");
	TEST_ASSERT(parse_size("16X", &v) == -EINVAL, "16X");
	TEST_ASSERT(parse_size("-1", &v) == -EINVAL, "-1");
	TEST_ASSERT(parse_size("99999999999999999999G", &v) == -ERANGE, "overflow");
	TEST_ASSERT(parse_u64("12a", &v) == -EINVAL && parse_u64("", &v) == -EINVAL, "junk");
	TEST_ASSERT(roundup_pow2(3) == 4 && roundup_pow2(4) == 4 && roundup_pow2(1) == 1, "pow2");

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

const struct test_suite suite_util = {
	"util", "Size, number and CPU list parsers", test_util,
};
