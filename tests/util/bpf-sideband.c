/* The BPF side band's reading of its rings (util/bpf-sideband.c), on a
 * ring image: a PROG_LOAD the kernel over-sized (another recorder's event
 * served first) is seen all the same. */
#include "tests/tests.h"
#include "util/bpf-event.h"
#include "util/bpf-sideband.h"
#include "util/event.h"

#include <string.h>

#define RING_SIZE 4096

struct image {
	struct perf_event_mmap_page pc;
	char data[RING_SIZE];
};

/* A BPF_EVENT PROG_LOAD of program id, with no trailer of its own (the
 * side band's events have no sample_id_all) and stale u64s after its body
 * that the kernel counts in its size. Returns its size. */
static u16 put_load(char *at, u32 id, int stale)
{
	struct perf_event_header h = { .type = PERF_RECORD_BPF_EVENT, .size = 24 + 8 * stale };
	u64 body[2] = { PERF_BPF_EVENT_PROG_LOAD | (u64)id << 32, 0x0123456789abcdefULL };

	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), body, sizeof(body));
	memset(at + 24, 0x57, 8 * stale);
	return h.size;
}

static int test_oversized_load(struct test_ctx *ctx)
{
	static struct image img;
	struct mmap m = { .pc = &img.pc, .data = img.data, .mask = RING_SIZE - 1 };
	struct bpf_sideband sb = { .epfd = -1, .nr = 1, .rings = &m };
	struct bpf_progs p;
	u64 head = 0, missed;

	(void)ctx;
	bpf_progs__init(&p);
	/* ids no program has: each load seen is one whose info is missed
	 * (an over-sized one was dropped unseen) */
	head += put_load(img.data + head, 0xfffffff0, 0);
	head += put_load(img.data + head, 0xfffffff1, 4 + 5);	/* two recorders' trailers */
	head += put_load(img.data + head, 0xfffffff2, 12);
	img.pc.data_head = head;
	bpf_sideband__read(&sb, &p);
	missed = p.missed;
	bpf_progs__exit(&p);
	TEST_ASSERT(m.tail == head && img.pc.data_tail == head, "tail %llu of %llu",
		    (unsigned long long)m.tail, (unsigned long long)head);
	TEST_ASSERT(missed == 3, "%llu of the 3 loads seen", (unsigned long long)missed);
	return TEST_OK;
}

TEST_SUITE(suite_util_bpf_sideband, "util/bpf-sideband",
	   "BPF side band: a PROG_LOAD record the kernel over-sized is read",
	   test_oversized_load);
