/* The forward ring reader on synthetic ring images (no kernel needed). */
#include "tests/tests.h"
#include "lib/memcpy-stream.h"
#include "util/mmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DATA_SIZE 4096

struct ring_image {
	struct perf_event_mmap_page pc;
	char data[DATA_SIZE];
};

/* Writes a record of size sz with a recognizable body at ring position pos. */
static void put_record(struct mmap *m, u64 pos, u16 sz, u8 fill)
{
	char rec[512];
	struct perf_event_header *h = (void *)rec;

	memset(rec, fill, sz);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = sz;
	for (u16 i = 0; i < sz; i++)
		m->data[(pos + i) & m->mask] = rec[i];
}

struct visit {
	int n;
	u64 pos[32];
	u16 size[32];
};

static int visit(const struct mmap *m, u64 pos, const struct perf_event_header *h, void *arg)
{
	struct visit *v = arg;

	(void)m;
	v->pos[v->n] = pos;
	v->size[v->n++] = h->size;
	return v->n >= 32;
}

static int test_mmap(struct test_ctx *ctx)
{
	struct ring_image *img = calloc(1, sizeof(*img));
	struct mmap m = { 0 };
	struct visit v = { 0 };
	struct iovec iov[2];
	char copy[512];
	u64 start = 3 * DATA_SIZE + DATA_SIZE - 64, pos = start;	/* wrapped 3 times */
	int n;

	(void)ctx;
	TEST_ASSERT(img, "alloc");
	m.pc = &img->pc;
	m.data = img->data;
	m.mask = DATA_SIZE - 1;
	/* 40 bytes, then 96 bytes that cross the end of the data area, then 16 */
	put_record(&m, pos, 40, 0xa1);
	pos += 40;
	put_record(&m, pos, 96, 0xb2);
	pos += 96;
	put_record(&m, pos, 16, 0xc3);
	pos += 16;
	img->pc.data_head = pos;
	TEST_ASSERT(mmap__read_head(&m) == pos, "head");

	TEST_ASSERT(!mmap__for_each(&m, start, pos, visit, &v), "walk");
	TEST_ASSERT(v.n == 3 && v.size[0] == 40 && v.size[1] == 96 && v.size[2] == 16,
		    "n=%d sizes %u %u %u", v.n, v.size[0], v.size[1], v.size[2]);
	TEST_ASSERT(v.pos[1] == start + 40 && v.pos[2] == start + 136, "positions");

	mmap__copy(&m, v.pos[1], copy, 96);
	for (int i = 8; i < 96; i++)
		TEST_ASSERT((u8)copy[i] == 0xb2, "wrapped record byte %d = %#x", i, (u8)copy[i]);

	n = mmap__span_iov(&m, start, pos, iov);
	TEST_ASSERT(n == 2 && iov[0].iov_len == 64 && iov[1].iov_len == 152 - 64 &&
		    iov[1].iov_base == m.data, "iov n=%d", n);
	n = mmap__span_iov(&m, start, start + 64, iov);
	TEST_ASSERT(n == 1 && iov[0].iov_len == 64, "single iov");
	TEST_ASSERT(mmap__span_iov(&m, pos, pos, iov) == 0, "empty span");

	/* a size of 0, an unaligned size, or one past head stop the walk */
	put_record(&m, pos, 8, 0);
	((struct perf_event_header *)(m.data + (pos & m.mask)))->size = 0;
	TEST_ASSERT(mmap__for_each(&m, start, pos + 8, visit, &(struct visit){ 0 }) == -EINVAL, "size 0");
	((struct perf_event_header *)(m.data + (pos & m.mask)))->size = 12;
	TEST_ASSERT(mmap__for_each(&m, start, pos + 16, visit, &(struct visit){ 0 }) == -EINVAL, "size 12");
	((struct perf_event_header *)(m.data + (pos & m.mask)))->size = 64;
	TEST_ASSERT(mmap__for_each(&m, start, pos + 8, visit, &(struct visit){ 0 }) == -EINVAL,
		    "record past head");
	free(img);
	return TEST_OK;
}

/* memcpy_stream() at alignments of source and destination that its aligned
 * middle and plain ends can meet, around its 1 MiB threshold and past it:
 * the bytes must be memcpy()'s, and nothing past the end touched. */
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

static int test_memcpy_stream(void)
{
	static const size_t sizes[] = { 0, 1, 63, 4096 + 63, (1 << 20) - 1, 1 << 20,
					(1 << 20) + 7, (1 << 20) + 63, (2 << 20) + 13 };
	const size_t room = (2 << 20) + 256;
	unsigned char *src = malloc(room), *dst = malloc(room);
	int ret = src && dst ? TEST_OK : TEST_FAIL;

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
static int test_memcpy_stream_record(void)
{
	static const size_t sizes[] = { 8, 16, 24, 88, 0, 4096, 65528, 13, 7, 1 };
	const size_t room = 2 * 65536 + 256;
	unsigned char *src = malloc(room), *dst = malloc(room);
	int ret = TEST_FAIL;

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

/* A capture's copy of a whole wrapped ring: the bytes from pos to the
 * end, then from the start, as mmap__copy() gives them. */
static int test_copy_bulk(void)
{
	const u64 size = 4 << 20, pos = 5 * size + size - 4096 - 24;
	char *data = malloc(size), *bulk = malloc(size), *plain = malloc(size);
	struct mmap m = { .data = data, .mask = size - 1 };

	TEST_ASSERT(data && bulk && plain, "alloc");
	for (u64 i = 0; i < size; i++)
		data[i] = (char)(i ^ (i >> 9));
	mmap__copy(&m, pos, plain, size);
	mmap__copy_bulk(&m, pos, bulk, size);
	TEST_ASSERT(!memcmp(plain, bulk, size), "bulk copy differs from the plain one");
	TEST_ASSERT(bulk[0] == data[pos & m.mask] && bulk[4096 + 24] == data[0], "wrap");
	free(data);
	free(bulk);
	free(plain);
	return TEST_OK;
}

static int test_mmap_all(struct test_ctx *ctx)
{
	int err = test_mmap(ctx);

	if (!err)
		err = test_memcpy_stream();
	if (!err)
		err = test_memcpy_stream_record();
	return err ? err : test_copy_bulk();
}

const struct test_suite suite_mmap = {
	"mmap-forward", "Forward ring reader on synthetic ring images; bulk copies", test_mmap_all,
};
