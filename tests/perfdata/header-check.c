/* Tests perfdata/header-check.c: BUILD_ID and CMDLINE sections the stock
 * perf would overrun a buffer on are refused, those it reads are not;
 * NUMA_TOPOLOGY CPU lists as the stock parses them. */
#include "tests/tests.h"
#include "perfdata/header.h"
#include "perfdata/header-internal.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define ENTRY_FIXED (sizeof(struct perf_event_header) + 4 + 24)

/* One BUILD_ID entry at p: misc, the id length byte (build_id[20]) and
 * the size its header claims. Returns the bytes written (the fixed part
 * and a 4-byte name). */
static size_t put_entry(char *p, u16 misc, u8 id_len, u16 size)
{
	struct perf_event_header h = { .type = 0, .misc = misc, .size = size };

	memset(p, 0, ENTRY_FIXED + 4);
	memcpy(p, &h, sizeof(h));
	memset(p + sizeof(h) + 4, 0xab, 20);
	p[sizeof(h) + 4 + 20] = (char)id_len;
	memcpy(p + ENTRY_FIXED, "/a", 3);
	return ENTRY_FIXED + 4;
}

static int check(const char *body, size_t len)
{
	return header__check_feature(HEADER_BUILD_ID, body, len, 2);
}

static int test_build_id_sizes(struct test_ctx *ctx)
{
	char body[4 * (ENTRY_FIXED + 4)];
	size_t one = ENTRY_FIXED + 4, len;

	(void)ctx;
	len = put_entry(body, 1 << 15, 20, one);
	len += put_entry(body + len, 1 << 15, 20, one);
	TEST_ASSERT(check(body, len) == 0, "two entries of 20-byte ids refused");

	/* the id's length is only read with misc bit 15 */
	put_entry(body + one, 0, 157, one);
	TEST_ASSERT(check(body, len) == 0, "a length byte without misc bit 15 refused");

	put_entry(body + one, 1 << 15, 21, one);
	TEST_ASSERT(check(body, len) == -EINVAL, "a 21-byte id accepted");

	/* an entry that claims to run past the section: the stock still
	 * reads its fixed part, length byte and all */
	put_entry(body + one, 1 << 15, 157, 4000);
	TEST_ASSERT(check(body, len) == -EINVAL, "a 157-byte id past the section's end accepted");

	put_entry(body + one, 1 << 15, 20, 4000);
	TEST_ASSERT(check(body, len) == 0, "an entry past the section's end with a sane id refused");

	/* a name longer than PATH_MAX overruns the stock's stack array (a
	 * fuzzed size's high byte: 100 -> 16484, "stack smashing detected") */
	put_entry(body + one, 0, 0, ENTRY_FIXED + PATH_MAX);
	TEST_ASSERT(check(body, len) == 0, "an entry with a PATH_MAX name refused");
	put_entry(body + one, 0, 0, ENTRY_FIXED + PATH_MAX + 1);
	TEST_ASSERT(check(body, len) == -EINVAL, "an entry with a name over PATH_MAX accepted");
	return TEST_OK;
}

/* CMDLINE: nr strings, all in the section; the stock copies them into an
 * array of the section's size (a fuzzed size of 0: "munmap_chunk():
 * invalid pointer"). */
static int test_cmdline(struct test_ctx *ctx)
{
	char body[4 + 2 * (4 + 8)] = { 2 };
	u32 len = 8;

	(void)ctx;
	memcpy(body + 4, &len, 4);
	memcpy(body + 8, "perf", 5);
	memcpy(body + 16, &len, 4);
	memcpy(body + 20, "record", 7);
	TEST_ASSERT(header__check_feature(HEADER_CMDLINE, body, sizeof(body), 2) == 0,
		    "a CMDLINE of two strings refused");
	for (size_t size = 0; size < sizeof(body); size++)
		TEST_ASSERT(header__check_feature(HEADER_CMDLINE, body, size, 2) == -EINVAL,
			    "a CMDLINE of two strings in a %zu-byte section accepted", size);
	body[0] = 3;
	TEST_ASSERT(header__check_feature(HEADER_CMDLINE, body, sizeof(body), 2) == -EINVAL,
		    "a CMDLINE of two strings that says three accepted");
	return TEST_OK;
}

/* A NUMA_TOPOLOGY body of one node whose CPU list is cpus. */
static int check_numa(const char *cpus)
{
	char body[4 + 4 + 8 + 8 + 4 + 64] = { 0 };
	u32 nr = 1, len = 64;

	memcpy(body, &nr, 4);
	memcpy(body + 24, &len, 4);
	memcpy(body + 28, cpus, strlen(cpus) + 1);
	return header__check_feature(HEADER_NUMA_TOPOLOGY, body, sizeof(body), 2);
}

/* Each verdict is the stock perf 6.1's on a -z file whose node 0 lists
 * these CPUs: where its parse fails it reads no later feature, and then
 * fails on every COMPRESSED record ("Couldn't decompress data"). The
 * refusals were all accepted before (a fuzzed bit did "0-1" -> "8-1"). */
static int test_numa_cpu_lists(struct test_ctx *ctx)
{
	static const char *const ok[] = { "0-1", "", "0x1", "0,", "0-", "0-+1", "0- 1", "0,x",
					  "00-1", "1,0", "0,,1", "0,-1", "40000", "4-7,0-3",
					  "0,2,4,6,1,3" };
	static const char *const bad[] = { "8-1", "1-0", "091", "1-", "0--1", "x", " 0",
					   "0-1x", "0-1-2", "2147483647", "0,0", "0-2,1", "1,0-1",
					   "1-1,1", "3,0-7" };

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		TEST_ASSERT(check_numa(ok[i]) == 0, "NUMA CPU list \"%s\" refused", ok[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		TEST_ASSERT(check_numa(bad[i]) == -EINVAL, "NUMA CPU list \"%s\" accepted", bad[i]);
	return TEST_OK;
}

TEST_SUITE(suite_perfdata_header_check, "perfdata/header-check",
	   "Feature checks: BUILD_ID ids longer than 20 bytes refused, also in an entry "
	   "that runs past its section or with a name over PATH_MAX; ones the stock reads "
	   "accepted; CMDLINE strings past their section and NUMA CPU lists the stock "
	   "cannot parse refused",
	   test_build_id_sizes, test_cmdline, test_numa_cpu_lists);
