/* The number parsers of lib/util.c: sizes, u64s, ranges, powers of two. */
#include "tests/tests.h"
#include "lib/util.h"

#include <errno.h>

static int test_util(struct test_ctx *ctx)
{
	u64 v;

	(void)ctx;
	TEST_ASSERT(!parse_size("16M", &v) && v == 16ULL << 20, "16M");
	TEST_ASSERT(!parse_size("512K", &v) && v == 512 << 10, "512K");
	TEST_ASSERT(!parse_size("1G", &v) && v == 1ULL << 30, "1G");
	TEST_ASSERT(!parse_size("100B", &v) && v == 100, "100B");
	TEST_ASSERT(!parse_size("4kb", &v) && v == 4096, "4kb");
	TEST_ASSERT(parse_size("16X", &v) == -EINVAL, "16X");
	TEST_ASSERT(parse_size("-1", &v) == -EINVAL, "-1");
	TEST_ASSERT(parse_size("99999999999999999999G", &v) == -ERANGE, "overflow");
	TEST_ASSERT(parse_size("16BB", &v) == -EINVAL && parse_size("K", &v) == -EINVAL &&
		    parse_size("", &v) == -EINVAL && parse_size(NULL, &v) == -EINVAL, "junk sizes");
	TEST_ASSERT(!parse_size("17179869183G", &v) && v == 17179869183ULL << 30, "largest G");
	TEST_ASSERT(parse_size("17179869184G", &v) == -ERANGE, "2^64 bytes");
	TEST_ASSERT(!parse_size("18446744073709551615", &v) && v == UINT64_MAX, "u64 max bytes");
	TEST_ASSERT(parse_size("18446744073709551616B", &v) == -ERANGE, "2^64 B");
	TEST_ASSERT(!parse_size("0", &v) && v == 0, "0 bytes parses, callers judge it");
	TEST_ASSERT(parse_u64("12a", &v) == -EINVAL && parse_u64("", &v) == -EINVAL, "junk");
	TEST_ASSERT(parse_u64("-1", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL &&
		    parse_u64(" 1", &v) == -EINVAL && parse_u64("1 ", &v) == -EINVAL &&
		    parse_u64("0x10", &v) == -EINVAL && parse_u64(NULL, &v) == -EINVAL, "signs, blanks, hex");
	TEST_ASSERT(!parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "u64 max");
	TEST_ASSERT(parse_u64("18446744073709551616", &v) == -ERANGE, "2^64");
	TEST_ASSERT(parse_u64("99999999999999999999999999999", &v) == -ERANGE, "way past 2^64");
	v = 42;
	TEST_ASSERT(parse_u64_range("0", 1, 10, &v) == -ERANGE && v == 42, "below the range");
	TEST_ASSERT(parse_u64_range("11", 1, 10, &v) == -ERANGE && v == 42, "above the range");
	TEST_ASSERT(parse_u64_range("x", 1, 10, &v) == -EINVAL, "junk in a range");
	TEST_ASSERT(!parse_u64_range("10", 1, 10, &v) && v == 10, "the top of the range");
	TEST_ASSERT(!parse_u64_range("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX,
		    "the whole u64 range");
	TEST_ASSERT(roundup_pow2(3) == 4 && roundup_pow2(4) == 4 && roundup_pow2(1) == 1, "pow2");
	return TEST_OK;
}

const struct test_suite suite_lib_util = {
	"lib/util", "Size, number and range parsers", test_util,
};
