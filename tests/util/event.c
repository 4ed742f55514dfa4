/* The record helpers of util/event.c on KSYMBOL and BPF_EVENT records made
 * by hand as the kernel over-sizes them (a recorder served after another:
 * its trailer after the body, stale bytes after it): their true size, the
 * trim, and the time and ids read from the trailer, not from the end. */
#include "tests/tests.h"
#include "util/event.h"

#include <string.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU)
/* what another recorder's trailer left: a stale time and id */
#define STALE 0x5757575757575757ULL

static const struct sample_id sid = { .pid = 11, .tid = 12, .time = 1000, .id = 77, .cpu = 1 };

/* A KSYMBOL named name (or a BPF_EVENT with name NULL) with its trailer
 * for ST, then stale u64s, the size counting them as the kernel does. */
static struct perf_event_header *make(struct buf *b, const char *name, int stale)
{
	size_t start = event__begin(b, name ? PERF_RECORD_KSYMBOL : PERF_RECORD_BPF_EVENT, 0);
	struct perf_event_header *h;

	buf__u64(b, name ? 0xffffffffc0001000ULL : (1ULL | 42ULL << 32));	/* addr; type, id */
	buf__u64(b, name ? 0x100 : 0x0123456789abcdefULL);	/* len, type, flags; tag */
	if (name)
		buf__str0(b, name);
	event__end(b, start, ST, &sid);
	for (int i = 0; i < stale; i++)
		buf__u64(b, STALE);
	h = (void *)(b->p + start);
	h->size = b->len - start;
	return b->err ? NULL : h;
}

static int check_oversized(const char *what, struct perf_event_header *h, u16 real)
{
	u16 size = h->size;
	struct sample_id got;

	TEST_ASSERT(event__body_end(h) == real - event__id_size(ST), "%s: body ends at %zu",
		    what, event__body_end(h));
	TEST_ASSERT(event__real_size(h, ST) == real, "%s: real size %u, not %u", what,
		    event__real_size(h, ST), real);
	/* read where the kernel wrote the trailer, not at the stale end */
	TEST_ASSERT(!event__parse_id(h, ST, &got) && got.time == sid.time && got.id == sid.id &&
		    got.pid == sid.pid && got.tid == sid.tid && got.cpu == sid.cpu,
		    "%s: trailer read as time %llu id %llu", what, (unsigned long long)got.time,
		    (unsigned long long)got.id);
	TEST_ASSERT(event__time(h, ST) == sid.time, "%s: time %llu", what,
		    (unsigned long long)event__time(h, ST));
	TEST_ASSERT(!event__set_time(h, ST, 2000) && event__time(h, ST) == 2000, "%s: set_time",
		    what);
	TEST_ASSERT(((const u64 *)((const char *)h + size))[-3] == STALE, "%s: set_time wrote "
		    "into the stale bytes", what);
	TEST_ASSERT(event__trim(h, ST) == size - real && h->size == real, "%s: trimmed to %u",
		    what, h->size);
	TEST_ASSERT(event__trim(h, ST) == 0 && h->size == real, "%s: trimmed twice", what);
	return TEST_OK;
}

static int test_oversized(struct test_ctx *ctx)
{
	struct buf b = { 0 };
	struct perf_event_header *h;
	int ret;

	(void)ctx;
	/* 13 bytes of name and its NUL pad to 16: 24 + 16 + 32 */
	h = make(&b, "bpf_prog_x_fn", 6);
	ret = h ? check_oversized("KSYMBOL", h, 72) : TEST_FAIL;
	b.len = 0;
	/* a name of 15 bytes fills 16 exactly with its NUL; of 16, takes 24 */
	h = ret ? NULL : make(&b, "bpf_prog_123456", 4);
	ret = ret ? ret : h ? check_oversized("KSYMBOL 16", h, 72) : TEST_FAIL;
	b.len = 0;
	h = ret ? NULL : make(&b, "bpf_prog_1234567", 4);
	ret = ret ? ret : h ? check_oversized("KSYMBOL 17", h, 80) : TEST_FAIL;
	b.len = 0;
	h = ret ? NULL : make(&b, NULL, 5);
	ret = ret ? ret : h ? check_oversized("BPF_EVENT", h, 56) : TEST_FAIL;
	buf__release(&b);
	return ret;
}

/* What the kernel sized right, other records, and records that do not say
 * where their body ends keep their size. */
static int test_kept(struct test_ctx *ctx)
{
	struct buf b = { 0 };
	struct perf_event_header *h = make(&b, "bpf_prog_x_fn", 0);
	struct sample_id got;
	int ret = TEST_FAIL;

	(void)ctx;
	if (!h)
		goto out;
	TEST_ASSERT(h->size == 72 && event__real_size(h, ST) == 72 && !event__trim(h, ST),
		    "a KSYMBOL of the right size: %u", event__real_size(h, ST));
	/* with no sample_id_all its size is its body's */
	TEST_ASSERT(event__real_size(h, 0) == 40, "no trailer: %u", event__real_size(h, 0));
	/* a name with no NUL: the body does not say where it ends */
	memset((char *)h + 24, 'x', h->size - 24);
	TEST_ASSERT(!event__body_end(h) && event__real_size(h, ST) == h->size,
		    "a name without its NUL: %u", event__real_size(h, ST));
	/* shorter than its body and a trailer: as it is */
	b.len = 0;
	h = make(&b, NULL, 0);
	h->size = 40;
	TEST_ASSERT(event__real_size(h, ST) == 40, "a short BPF_EVENT: %u", event__real_size(h, ST));
	h->size = 16;
	TEST_ASSERT(!event__body_end(h) && event__real_size(h, ST) == 16, "a BPF_EVENT of 16");
	/* any other record: read at its end, whatever its body */
	b.len = 0;
	event__begin(&b, PERF_RECORD_COMM, 0);
	buf__u64(&b, 5);
	buf__str0(&b, "x");
	event__end(&b, 0, ST, &sid);
	h = (void *)b.p;
	TEST_ASSERT(event__real_size(h, ST) == h->size && !event__parse_id(h, ST, &got) &&
		    got.time == sid.time, "a COMM: %u bytes, time %llu", event__real_size(h, ST),
		    (unsigned long long)got.time);
	ret = TEST_OK;
out:
	buf__release(&b);
	return ret;
}

TEST_SUITE(suite_util_event, "util/event",
	   "KSYMBOL and BPF_EVENT records the kernel over-sized: true size, trim, trailer",
	   test_oversized, test_kept);
