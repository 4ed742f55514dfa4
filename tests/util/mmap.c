/* The forward ring reader on synthetic ring images (no kernel needed). */
#include "tests/tests.h"
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

/* A capture's copy of a whole wrapped ring: the bytes from pos to the
 * end, then from the start, as mmap__copy() gives them. */
static int test_copy_bulk(struct test_ctx *ctx)
{
	const u64 size = 4 << 20, pos = 5 * size + size - 4096 - 24;
	char *data = malloc(size), *bulk = malloc(size), *plain = malloc(size);
	struct mmap m = { .data = data, .mask = size - 1 };

	(void)ctx;

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

TEST_SUITE(suite_util_mmap, "util/mmap",
	   "Forward ring reader on synthetic ring images; bulk copies",
	   test_mmap, test_copy_bulk);
