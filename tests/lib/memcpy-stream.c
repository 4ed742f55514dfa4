/* memcpy_stream() and memcpy_stream_record() (lib/memcpy-stream.c): the
 * bytes memcpy() gives, at every alignment and size, nothing around them
 * written. */
#include "tests/tests.h"
#include "lib/memcpy-stream.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One memcpy_stream() of n bytes, src + so to dst + doff, in buffers of
 * room bytes: the bytes copied, none written around them. */
static int memcpy_stream_check(unsigned char *dst, const unsigned char *src, size_t room,
			       size_t n, int so, int doff)
{
	memset(dst, 0xee, room);
	TEST_ASSERT(memcpy_stream(dst + doff, src + so, n) == dst + doff, "return value");
	TEST_ASSERT(!memcmp(dst + doff, src + so, n), "%zu bytes, src +%d, dst +%d differ", n, so,
		    doff);
	for (int g = 0; g < doff; g++)
		TEST_ASSERT(dst[g] == 0xee, "byte before dst written");
	for (size_t g = doff + n; g < doff + n + 64 && g < room; g++)
		TEST_ASSERT(dst[g] == 0xee, "%zu bytes, src +%d, dst +%d: byte %zu past the end "
			    "written", n, so, doff, g - doff - n);
	return TEST_OK;
}

/* memcpy_stream() at alignments of source and destination that its aligned
 * middle and plain ends can meet, around its 1 MiB threshold and past it:
 * the bytes must be memcpy()'s, and nothing past the end touched. */
static int test_memcpy_stream(struct test_ctx *ctx)
{
	static const size_t sizes[] = { 0, 1, 63, 4096 + 63, (1 << 20) - 1, 1 << 20,
					(1 << 20) + 7, (1 << 20) + 63, (2 << 20) + 13 };
	const size_t room = (2 << 20) + 256;
	unsigned char *src = malloc(room), *dst = malloc(room);
	int ret = src && dst ? TEST_OK : TEST_FAIL;

	(void)ctx;

	for (size_t i = 0; src && i < room; i++)
		src[i] = (unsigned char)(i * 7 + i / 251);
	for (size_t k = 0; ret == TEST_OK && k < ARRAY_SIZE(sizes); k++)
		for (int so = 0; ret == TEST_OK && so < 17; so += 5)
			for (int doff = 0; ret == TEST_OK && doff < 33; doff += 3)
				ret = memcpy_stream_check(dst, src, room, sizes[k], so, doff);
	if (!src || !dst)
		fprintf(stderr, "  FAILED: memcpy_stream: no memory\n");
	free(src);
	free(dst);
	return ret;
}

/* memcpy_stream_record() as a dump's merge uses it: records one after
 * another into a stage, then the fence; also a size that is not whole
 * words and a destination off the words. The bytes must be the records,
 * nothing around them written. */
static int test_memcpy_stream_record(struct test_ctx *ctx)
{
	static const size_t sizes[] = { 8, 16, 24, 88, 0, 4096, 65528, 13, 7, 1 };
	const size_t room = 2 * 65536 + 256;
	unsigned char *src = malloc(room), *dst = malloc(room);
	int ret = TEST_FAIL;

	(void)ctx;
	if (!src || !dst) {
		fprintf(stderr, "  FAILED: memcpy_stream_record: no memory\n");
		goto out;
	}
	for (size_t i = 0; i < room; i++)
		src[i] = (unsigned char)(i * 13 + i / 241);
	for (int doff = 0; doff < 12; doff += 3) {
		size_t used = doff, from = 5;

		memset(dst, 0xee, room);
		for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
			memcpy_stream_record(dst + used, src + from, sizes[k]);
			used += sizes[k];
			from += sizes[k];
		}
		memcpy_stream_fence();
		if (memcmp(dst + doff, src + 5, used - doff)) {
			fprintf(stderr, "  FAILED: memcpy_stream_record: records at +%d differ\n",
				doff);
			goto out;
		}
		for (size_t g = 0; g < room; g++)
			if ((g < (size_t)doff || g >= used) && dst[g] != 0xee) {
				fprintf(stderr, "  FAILED: memcpy_stream_record: byte %zu, outside the "
					"records at +%d..%zu, written\n", g, doff, used);
				goto out;
			}
	}
	ret = TEST_OK;
out:
	free(src);
	free(dst);
	return ret;
}

TEST_SUITE(suite_lib_memcpy_stream, "lib/memcpy-stream",
	   "Streaming copies: every alignment around the 1 MiB threshold, records one after "
	   "another then the fence",
	   test_memcpy_stream, test_memcpy_stream_record);
