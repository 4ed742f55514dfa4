/* The reader (perfdata/reader.c) on perf.data images built by hand: every
 * sample_type bit the kernel defines (most of which this machine cannot
 * produce), lies in each variable-size part, and events whose sample_id
 * trailers differ; a file truncated while it is read. */
#include "tests/tests.h"
#include "util/event.h"
#include "perfdata/header.h"
#include "perfdata/reader.h"
#include "script/script.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALL_BITS ((PERF_SAMPLE_WEIGHT_STRUCT << 1) - 1)
/* WEIGHT and WEIGHT_STRUCT share one slot: the kernel takes one or the other */
#define FULL_TYPE (ALL_BITS & ~(u64)PERF_SAMPLE_WEIGHT)
#define FULL_READ (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST)

/* Where each variable-size part's length is in the full sample, in u64s
 * after its header, for the lies below. */
enum { AT_GROUP_NR = 9, AT_CALLCHAIN_NR = 18, AT_RAW_SIZE = 22, AT_BRANCH_NR = 23,
       AT_STACK_SIZE = 35, AT_DYN_SIZE = 38, AT_AUX_SIZE = 49, FULL_WORDS = 51 };

/* Writes dir/name.data: the header, the attrs (event i has the one id
 * 101 + i), their ids, data's records; no features. 0 or -errno. */
static int image__write(const char *dir, const char *name, const struct perf_event_attr *attrs,
			int nr, const struct buf *data, char path[300])
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC, .size = sizeof(h), .attr_size = sizeof(struct perf_file_attr),
	};
	struct buf b = { 0 };
	int fd, ret;

	h.attrs = (struct perf_file_section){ sizeof(h), nr * sizeof(struct perf_file_attr) };
	h.data.offset = h.attrs.offset + h.attrs.size + nr * sizeof(u64);
	h.data.size = data->len;
	buf__add(&b, &h, sizeof(h));
	for (int i = 0; i < nr; i++) {
		struct perf_file_attr fa = { .attr = attrs[i] };

		fa.ids = (struct perf_file_section){ h.attrs.offset + h.attrs.size + i * 8, 8 };
		buf__add(&b, &fa, sizeof(fa));
	}
	for (int i = 0; i < nr; i++)
		buf__u64(&b, 101 + i);
	buf__add(&b, data->p, data->len);
	snprintf(path, 300, "%s/%s.data", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ret = b.err ? b.err : fd < 0 ? -errno : write_all(fd, b.p, b.len);
	if (fd >= 0)
		close(fd);
	buf__release(&b);
	return ret;
}

static int image__open(struct perf_reader *r, const char *path)
{
	char err[512];

	TEST_ASSERT(!reader__open(r, path, err, sizeof(err)), "open: %s", err);
	return TEST_OK;
}

/* One sample with every bit, each field a value its position makes unique. */
static void full_sample(struct buf *b)
{
	size_t start = event__begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	buf__u64(b, 101);			/* IDENTIFIER */
	buf__u64(b, 0x401000);			/* IP */
	buf__u32(b, 7);				/* TID: pid, tid */
	buf__u32(b, 8);
	buf__u64(b, 5000000123ULL);		/* TIME */
	buf__u64(b, 0xadd7);			/* ADDR */
	buf__u64(b, 101);			/* ID */
	buf__u64(b, 55);			/* STREAM_ID */
	buf__u32(b, 1);				/* CPU, res */
	buf__u32(b, 0);
	buf__u64(b, 1000);			/* PERIOD */
	buf__u64(b, 2);				/* READ: nr, enabled, running, */
	buf__u64(b, 10);			/* {value, id, lost} x 2 */
	buf__u64(b, 9);
	for (u64 i = 0; i < 2; i++) {
		buf__u64(b, 1 + i);
		buf__u64(b, 101 + i);
		buf__u64(b, 3 * i);
	}
	buf__u64(b, 3);				/* CALLCHAIN */
	buf__u64(b, PERF_CONTEXT_USER);
	buf__u64(b, 0xa1);
	buf__u64(b, 0xa2);
	buf__u32(b, 4);				/* RAW: size, data */
	buf__add(b, "abcd", 4);
	buf__u64(b, 2);				/* BRANCH_STACK: nr, hw_idx, entries */
	buf__u64(b, 5);
	for (u64 i = 0; i < 6; i++)
		buf__u64(b, 0xb0 + i);
	buf__u64(b, PERF_SAMPLE_REGS_ABI_64);	/* REGS_USER: 3 of mask 0x13 */
	buf__u64(b, 0xc0);
	buf__u64(b, 0xc1);
	buf__u64(b, 0xc4);
	buf__u64(b, 16);			/* STACK_USER: size, data, dyn_size */
	buf__u64(b, 0x5151);
	buf__u64(b, 0x5252);
	buf__u64(b, 8);
	buf__u64(b, 300 | 4ULL << 32 | 5ULL << 48);	/* WEIGHT_STRUCT */
	buf__u64(b, 0x29080142ULL);		/* DATA_SRC */
	buf__u64(b, 0x77);			/* TRANSACTION */
	buf__u64(b, PERF_SAMPLE_REGS_ABI_64);	/* REGS_INTR: 2 of mask 0x300 */
	buf__u64(b, 0xe8);
	buf__u64(b, 0xe9);
	buf__u64(b, 0x1234000);			/* PHYS_ADDR */
	buf__u64(b, 42);			/* CGROUP */
	buf__u64(b, 4096);			/* DATA_PAGE_SIZE */
	buf__u64(b, 2 << 20);			/* CODE_PAGE_SIZE */
	buf__u64(b, 8);				/* AUX: size, data */
	buf__u64(b, 0xa0a0);
	event__end(b, start, 0, NULL);
}

static struct perf_event_attr full_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
		.sample_type = FULL_TYPE, .read_format = FULL_READ, .sample_id_all = 1,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0x13, .sample_regs_intr = 0x300, .sample_stack_user = 16,
	};
}

static int check_full(const struct sample *s)
{
	TEST_ASSERT(s->id == 101 && s->ip == 0x401000 && s->pid == 7 && s->tid == 8 &&
		    s->time == 5000000123ULL && s->addr == 0xadd7 && s->stream_id == 55 &&
		    s->cpu == 1 && s->period == 1000, "fixed fields: id %llu ip %#llx pid %u tid %u",
		    (unsigned long long)s->id, (unsigned long long)s->ip, s->pid, s->tid);
	TEST_ASSERT(s->nr_read == 9 && s->read[0] == 2 && s->read[1] == 10 && s->read[2] == 9 &&
		    s->read[6] == 2 && s->read[7] == 102 && s->read[8] == 3, "read: %llu values",
		    (unsigned long long)s->nr_read);
	TEST_ASSERT(s->nr_callchain == 3 && s->callchain[2] == 0xa2, "callchain");
	TEST_ASSERT(s->raw_size == 4 && !memcmp(s->raw, "abcd", 4), "raw");
	TEST_ASSERT(s->nr_branch == 2 && s->branch_hw_idx && *s->branch_hw_idx == 5 &&
		    s->branch[0] == 0xb0 && s->branch[5] == 0xb5 && !s->branch_counters, "branches");
	TEST_ASSERT(s->uregs.abi == PERF_SAMPLE_REGS_ABI_64 && s->uregs.mask == 0x13 &&
		    s->uregs.regs[0] == 0xc0 && s->uregs.regs[2] == 0xc4, "user regs");
	TEST_ASSERT(s->stack_size == 16 && s->stack_dyn_size == 8 &&
		    ((const u64 *)s->stack)[1] == 0x5252, "user stack");
	TEST_ASSERT(s->weight == 300 && s->ins_lat == 4 && s->retire_lat == 5, "weight %llu",
		    (unsigned long long)s->weight);
	TEST_ASSERT(s->data_src == 0x29080142ULL && s->transaction == 0x77, "data_src, txn");
	TEST_ASSERT(s->iregs.mask == 0x300 && s->iregs.regs[0] == 0xe8 && s->iregs.regs[1] == 0xe9,
		    "intr regs");
	TEST_ASSERT(s->phys_addr == 0x1234000 && s->cgroup == 42 && s->data_page_size == 4096 &&
		    s->code_page_size == 2 << 20, "phys_addr, cgroup, page sizes");
	TEST_ASSERT(s->aux_size == 8 && *(const u64 *)s->aux == 0xa0a0, "aux");
	return TEST_OK;
}

struct copies {
	u64 p[4 * 65536 / 8];
	size_t used;
};

static int copy_records(struct perf_reader *r, const struct perf_event_header *h, u64 off,
			void *arg)
{
	struct copies *c = arg;

	(void)r;
	(void)off;
	if (sizeof(c->p) - c->used < h->size)
		return 1;
	memcpy((char *)c->p + c->used, h, h->size);
	c->used += h->size;
	return 0;
}

/* The records of an opened image, copied one after the other (the reader
 * holds a record only while it gives it): the first one. */
static struct perf_event_header *first_record(struct perf_reader *r)
{
	static struct copies c;
	char err[512];

	memset(&c, 0, sizeof(c));
	reader__for_each(r, copy_records, &c, err, sizeof(err));
	return (struct perf_event_header *)c.p;
}

/* Every bit decoded in the ABI's order; then every cut of the record and a
 * lie in each length says which part does not fit, and reads nothing
 * outside the record (ASan's build checks that). */
static int test_full(const char *dir)
{
	static const int at[] = { AT_GROUP_NR, AT_CALLCHAIN_NR, AT_BRANCH_NR, AT_STACK_SIZE,
				  AT_DYN_SIZE, AT_AUX_SIZE };
	static const u64 lies[] = { 1ULL << 40, ~0ULL, ~0ULL - 7, 0x7fffffffffffffffULL, 4096 };
	struct perf_event_attr a = full_attr();
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	struct sample s;
	char path[300];
	int ret;

	full_sample(&data);
	TEST_ASSERT(!image__write(dir, "full", &a, 1, &data, path), "write image");
	buf__release(&data);
	ret = image__open(&r, path);
	if (ret)
		return ret;
	struct perf_event_header *h = first_record(&r), *copy = malloc(h->size);
	u16 size = h->size;

	TEST_ASSERT(copy, "malloc");
	TEST_ASSERT(size == 8 + FULL_WORDS * 8, "the image's sample is %u bytes", size);
	TEST_ASSERT(!reader__parse_sample(&r, h, &s), "parse: %s", s.bad);
	ret = check_full(&s);
	/* a copy of exactly the record's size: ASan sees any read past it */
	for (u16 cut = 8; ret == TEST_OK && cut < size; cut += 8) {
		memcpy(copy, h, size - cut);
		copy->size = size - cut;
		TEST_ASSERT(reader__parse_sample(&r, copy, &s) == -EINVAL && s.bad,
			    "the sample cut by %u bytes parsed", cut);
	}
	memcpy(copy, h, size);
	for (size_t i = 0; ret == TEST_OK && i < ARRAY_SIZE(at); i++) {
		u64 *word = (u64 *)(copy + 1) + at[i], orig = *word;

		for (size_t k = 0; k < ARRAY_SIZE(lies); k++) {
			*word = lies[k];
			TEST_ASSERT(reader__parse_sample(&r, copy, &s) == -EINVAL && s.bad,
				    "length word %d set to %#llx parsed", at[i],
				    (unsigned long long)lies[k]);
		}
		*word = orig;
	}
	/* the raw data's u32 size */
	u32 *raw = (u32 *)((u64 *)(copy + 1) + AT_RAW_SIZE);

	*raw = 0xfffffff0;
	TEST_ASSERT(ret || (reader__parse_sample(&r, copy, &s) == -EINVAL && s.bad &&
			    strstr(s.bad, "raw")), "raw size lie: %s", s.bad);
	*raw = 4;
	/* a user stack whose size is no multiple of 8 */
	((u64 *)(copy + 1))[AT_STACK_SIZE] = 12;
	TEST_ASSERT(ret || (reader__parse_sample(&r, copy, &s) == -EINVAL && s.bad &&
			    strstr(s.bad, "stack")), "stack size 12: %s", s.bad);
	free(copy);
	reader__close(&r);
	return ret;
}

/* The parts that come and go with other attr fields: plain WEIGHT,
 * read_format without GROUP, branch stacks without hw_idx, registers of a
 * kernel thread (ABI NONE: none follow), an empty user stack (no dyn_size). */
static int test_variants(const char *dir)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .sample_period = 1,
		.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_REGS_INTR,
		.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY, .sample_regs_user = 0xff,
		.sample_regs_intr = 1, .sample_stack_user = 4096,
	};
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	size_t start = event__begin(&data, PERF_RECORD_SAMPLE, 0);
	struct sample s;
	char path[300];
	int ret;

	buf__u64(&data, 77);	/* READ: value, running, id */
	buf__u64(&data, 66);
	buf__u64(&data, 101);
	buf__u64(&data, 1);	/* BRANCH_STACK: nr, one entry */
	buf__u64(&data, 0x10);
	buf__u64(&data, 0x20);
	buf__u64(&data, 0x30);
	buf__u64(&data, PERF_SAMPLE_REGS_ABI_NONE);	/* REGS_USER */
	buf__u64(&data, 0);	/* STACK_USER: empty */
	buf__u64(&data, 0x123456789ULL);	/* WEIGHT: all 64 bits */
	buf__u64(&data, PERF_SAMPLE_REGS_ABI_64);	/* REGS_INTR: one */
	buf__u64(&data, 0xfeed);
	event__end(&data, start, 0, NULL);
	TEST_ASSERT(!image__write(dir, "variants", &a, 1, &data, path), "write image");
	buf__release(&data);
	ret = image__open(&r, path);
	if (ret)
		return ret;
	TEST_ASSERT(!reader__parse_sample(&r, first_record(&r), &s), "parse: %s", s.bad);
	TEST_ASSERT(s.nr_read == 3 && s.read[0] == 77 && s.read[2] == 101, "read");
	TEST_ASSERT(s.nr_branch == 1 && !s.branch_hw_idx && s.branch[2] == 0x30, "branches");
	TEST_ASSERT(s.uregs.abi == PERF_SAMPLE_REGS_ABI_NONE && !s.uregs.regs, "user regs");
	TEST_ASSERT(s.stack_size == 0 && !s.stack, "empty stack");
	TEST_ASSERT(s.weight == 0x123456789ULL && !s.ins_lat, "weight %#llx",
		    (unsigned long long)s.weight);
	TEST_ASSERT(s.iregs.regs && s.iregs.regs[0] == 0xfeed, "intr regs");
	reader__close(&r);
	return TEST_OK;
}

/* Two events whose trailers differ (a tracepoint's CPU|RAW next to a
 * cpu-clock): each non-sample record is read with the layout of the event
 * its IDENTIFIER names; an id no event has, or events with their ids in
 * different places, are refused as the stock perf refuses them. */
static int test_mixed_trailers(const char *dir)
{
	struct perf_event_attr a[2] = {
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 },
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .config = PERF_COUNT_SW_PAGE_FAULTS,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW |
				 PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 },
	};
	/* the third one's id is no event's */
	const struct sample_id sids[3] = {
		{ .pid = 7, .tid = 7, .time = 1000, .id = 101 },
		{ .pid = 7, .tid = 7, .time = 2000, .id = 102, .cpu = 1 },
		{ .pid = 7, .tid = 7, .time = 3000, .id = 999 },
	};
	const struct reader_evsel *e;
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	struct perf_event_header *h;
	struct sample_id sid;
	char path[300];
	size_t start;
	int ret;

	for (int i = 0; i < 3; i++) {
		start = event__begin(&data, PERF_RECORD_COMM, 0);
		buf__u32(&data, 7);
		buf__u32(&data, 7);
		buf__add(&data, "mixed\0\0", 8);
		event__end(&data, start, a[i == 1].sample_type, &sids[i]);
	}
	TEST_ASSERT(!image__write(dir, "mixed", a, 2, &data, path), "write image");
	buf__release(&data);
	ret = image__open(&r, path);
	if (ret)
		return ret;
	h = first_record(&r);
	TEST_ASSERT(reader__parse_id(&r, h, &sid, &e) == 3 * 8 && e == &r.evsels[0] &&
		    sid.time == 1000 && sid.id == 101, "cpu-clock's trailer: time %llu",
		    (unsigned long long)sid.time);
	h = (void *)((char *)h + h->size);
	TEST_ASSERT(reader__parse_id(&r, h, &sid, &e) == 4 * 8 && e == &r.evsels[1] &&
		    sid.time == 2000 && sid.cpu == 1 && sid.id == 102,
		    "page-faults' trailer: time %llu cpu %u", (unsigned long long)sid.time, sid.cpu);
	TEST_ASSERT(reader__record_time(&r, h) == 2000, "record time");
	h = (void *)((char *)h + h->size);
	TEST_ASSERT(reader__parse_id(&r, h, &sid, &e) == -ENOENT && sid.id == 999, "unknown id");
	reader__close(&r);

	/* the second event's id elsewhere: ID after TIME instead of IDENTIFIER */
	a[1].sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
	TEST_ASSERT(!image__write(dir, "apart", a, 2, &data, path), "write image");
	char err[512] = "";

	TEST_ASSERT(reader__open(&r, path, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "non matching sample_type"), "ids apart: '%s'", err);
	reader__close(&r);
	return TEST_OK;
}

/* ksymbol_record B NAME SID T SLACK: a KSYMBOL as the kernel writes it for
 * an event of sample_type T, then SLACK bytes it over-sized it by: the
 * bytes the ring held there, here a stale sample's ending in id 102. */
static void ksymbol_record(struct buf *b, const char *name, const struct sample_id *sid, u64 t,
			   size_t slack)
{
	size_t start = event__begin(b, PERF_RECORD_KSYMBOL, 0), len = strlen(name) + 1;

	buf__u64(b, 0xffffffffc0001000ULL);	/* addr, len, type BPF, flags */
	buf__u32(b, 0x40);
	buf__u32(b, 1);
	buf__add(b, name, len);
	buf__add(b, "\0\0\0\0\0\0\0", (8 - len % 8) % 8);
	event__end(b, start, t, sid);
	for (size_t i = 8; i <= slack; i += 8)
		buf__u64(b, i == slack ? 102 : 0x5a5a0000 + i);
	((struct perf_event_header *)(b->p + start))->size += slack;
}

/* The kernel's KSYMBOL and BPF_EVENT records may be longer than their body
 * and trailer (it adds the trailer sizes of every event it serves to one
 * header): each is read with the trailer after its body, whatever follows;
 * perf's synthesized ones (a trailer of zeros) with the first event's. */
static int test_oversized(const char *dir)
{
	struct perf_event_attr a[2] = {
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 },
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .config = PERF_COUNT_SW_DUMMY, .ksymbol = 1, .bpf_event = 1,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER, .sample_id_all = 1 },
	};
	const struct sample_id mine = { .pid = 7, .tid = 8, .time = 3000, .id = 102, .cpu = 1 },
		first = { .pid = 5, .tid = 5, .time = 1000, .id = 101 }, synth = { 0 };
	/* per record: the bytes after its body, its event, its time */
	static const struct { int after, evsel; u64 time; } want[] = {
		{ 4 * 8 + 64, 1, 3000 }, { 3 * 8 + 24, 0, 1000 }, { 3 * 8, 0, 0 },
		{ 4 * 8 + 8, 1, 3000 },
	};
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	char path[300];
	size_t at;

	ksymbol_record(&data, "bpf_prog_1234_f", &mine, a[1].sample_type, 64);
	ksymbol_record(&data, "bpf_prog_5678_name_fn", &first, a[0].sample_type, 24);
	ksymbol_record(&data, "bpf_prog_9abc_g", &synth, a[0].sample_type, 0);
	at = event__begin(&data, PERF_RECORD_BPF_EVENT, 0);
	buf__u64(&data, 1 | 77ULL << 32);	/* type PROG_LOAD, flags, id 77 */
	buf__u64(&data, 0x1234);		/* tag */
	event__end(&data, at, a[1].sample_type, &mine);
	buf__u64(&data, 0xdead);		/* no event's id */
	((struct perf_event_header *)(data.p + at))->size += 8;
	TEST_ASSERT(!image__write(dir, "oversized", a, 2, &data, path), "write image");
	buf__release(&data);
	if (image__open(&r, path))
		return TEST_FAIL;
	at = 0;
	for (struct perf_event_header *h = first_record(&r); at < ARRAY_SIZE(want);
	     h = (void *)((char *)h + h->size), at++) {
		const struct reader_evsel *e;
		struct sample_id sid;
		int ret = reader__parse_id(&r, h, &sid, &e);

		TEST_ASSERT(ret == want[at].after && e == &r.evsels[want[at].evsel] &&
			    sid.time == want[at].time && reader__record_time(&r, h) == want[at].time,
			    "record %zu: %d bytes after its body, time %llu", at, ret,
			    (unsigned long long)sid.time);
	}
	reader__close(&r);
	return TEST_OK;
}

/* data_src values taking every branch of the stock perf's spelling: each
 * op, level bits alone and together, remote hops, level numbers, snoops,
 * TLB, locks and blocks */
#define DS(op, lvl, snoop, lock, tlb) (PERF_MEM_S(OP, op) | PERF_MEM_S(LVL, lvl) | \
	PERF_MEM_S(SNOOP, snoop) | PERF_MEM_S(LOCK, lock) | PERF_MEM_S(TLB, tlb))
static const u64 data_srcs[] = {
	DS(NA, NA, NA, NA, NA) | PERF_MEM_S(LVLNUM, NA) | PERF_MEM_S(BLK, NA),
	DS(LOAD, HIT | PERF_MEM_LVL_L1, NONE, NA, HIT | PERF_MEM_TLB_L1),
	DS(STORE, MISS | PERF_MEM_LVL_L3, HITM, LOCKED, MISS | PERF_MEM_TLB_WK) |
		PERF_MEM_S(BLK, DATA),
	DS(PFETCH, HIT, HIT | PERF_MEM_SNOOP_MISS, NA, OS) | PERF_MEM_S(REMOTE, REMOTE) |
		PERF_MEM_S(HOPS, 2) | PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(SNOOPX, FWD) |
		PERF_MEM_S(BLK, ADDR),
	DS(EXEC, L2 | PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_IO, NA, NA, L2) |
		PERF_MEM_S(LVLNUM, L2) | PERF_MEM_S(BLK, DATA) | PERF_MEM_S(BLK, ADDR),
	0,
	DS(LOAD, REM_RAM1 | PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_UNC | PERF_MEM_LVL_LFB, NA, NA,
	   NA) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(LVLNUM, PMEM),
	DS(LOAD, HIT, NA, NA, NA) | PERF_MEM_S(LVLNUM, ANY_CACHE) | PERF_MEM_S(SNOOPX, PEER),
	DS(STORE, MISS, NA, NA, NA) | PERF_MEM_S(LVLNUM, LFB) | PERF_MEM_S(HOPS, 0),
	DS(LOAD, NA, NA, NA, NA) | PERF_MEM_S(LVLNUM, IO) | PERF_MEM_S(HOPS, 3),
};
static const u64 page_sizes[] = { 0, 4096, 2 << 20, 1 << 30, 12345, 1, 2048 };

/* perf script -F fields on path, by this perf: its text in *ours. */
static int run_ours(const char *path, const char *fields, char **ours)
{
	size_t len = 0;
	FILE *out = open_memstream(ours, &len);
	struct script_opts o = { .input = path, .fields = fields, .out = out, .msg = stderr };
	int rc;

	TEST_ASSERT(out, "open_memstream");
	rc = script__run(&o);
	fclose(out);
	TEST_ASSERT(rc == 0, "perf script -F %s: %d", fields, rc);
	return TEST_OK;
}

/* The same by the stock perf: its text, or NULL if it cannot run. */
static char *run_stock(const char *path, const char *fields)
{
	const char *perf = getenv("STOCK_PERF") ? getenv("STOCK_PERF") : "/usr/bin/perf";
	struct buf b = { 0 };
	char cmd[1024], chunk[4096];
	size_t n;
	FILE *p;

	if (access(perf, X_OK))
		return NULL;
	snprintf(cmd, sizeof(cmd), "%s script -i %s -F %s 2>/dev/null", perf, path, fields);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf__add(&b, chunk, n);
	buf__u8(&b, 0);
	if (pclose(p) == 0 && !b.err)
		return b.p;
	buf__release(&b);
	return NULL;
}

/* Samples with what this machine cannot record (weights, data sources,
 * physical addresses, registers, page sizes), printed by -F field by
 * field as the stock perf prints them. */
static int test_stock_fields(struct test_ctx *ctx, const char *dir)
{
	static const char fields[] = "comm,tid,pid,time,cpu,period,event,addr,data_src,weight,"
		"ins_lat,ip,iregs,uregs,phys_addr,data_page_size,code_page_size";
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .sample_period = 4000, .freq = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT_STRUCT |
			       PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
			       PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
			       PERF_SAMPLE_CODE_PAGE_SIZE,
		.sample_id_all = 1, .comm = 1, .exclude_guest = 1,
		/* named, unnamed (23: R15, 24..31 none) and XMM halves */
		.sample_regs_user = 0x3 | 1 << 8 | 1 << 23 | 1 << 24 | 3ULL << 32 | 1ULL << 63,
		.sample_regs_intr = 0x5,
	};
	struct sample_id sid = { .pid = 7, .tid = 8, .time = 1000, .cpu = 1 };
	struct buf data = { 0 };
	char path[300], *ours, *stock;
	size_t start = event__begin(&data, PERF_RECORD_COMM, 0);
	int ret;

	buf__u32(&data, 7);
	buf__u32(&data, 8);
	buf__add(&data, "handmade\0", 9);
	event__end(&data, start, a.sample_type, &sid);
	/* cgroup 42 has a name, 43 none */
	start = event__begin(&data, PERF_RECORD_CGROUP, 0);
	buf__u64(&data, 42);
	buf__add(&data, "/handmade.slice\0", 16);
	event__end(&data, start, a.sample_type, &sid);
	for (size_t i = 0; i < ARRAY_SIZE(data_srcs); i++) {
		start = event__begin(&data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		buf__u64(&data, 0x400000 + i);
		buf__u32(&data, 7);
		buf__u32(&data, 8);
		buf__u64(&data, 2000000000ULL + i * 1234567);
		buf__u64(&data, i * 0x1111111);
		buf__u32(&data, i % 2);
		buf__u32(&data, 0);
		buf__u64(&data, 1000 * i + 1);
		/* user registers: a kernel thread's (none) every third sample */
		buf__u64(&data, i % 3 ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
		for (int r = 0; i % 3 && r < __builtin_popcountll(a.sample_regs_user); r++)
			buf__u64(&data, 0x100 * i + r);
		buf__u64(&data, (50 + i) | (u64)(i + 1) << 32 | (u64)i << 48);
		buf__u64(&data, data_srcs[i]);
		buf__u64(&data, PERF_SAMPLE_REGS_ABI_64);
		for (int r = 0; r < 2; r++)
			buf__u64(&data, 0xffff0000 + r + i);
		buf__u64(&data, 0x7000000 + i * 4096);
		buf__u64(&data, 42 + i % 2);
		buf__u64(&data, page_sizes[i % ARRAY_SIZE(page_sizes)]);
		buf__u64(&data, page_sizes[(i + 3) % ARRAY_SIZE(page_sizes)]);
		event__end(&data, start, 0, NULL);
	}
	ret = image__write(dir, "fields", &a, 1, &data, path);
	buf__release(&data);
	TEST_ASSERT(!ret, "write image: %s", strerror(-ret));
	/* the stock 6.1 has no cgroup field: the name the CGROUP record gives,
	 * as later ones print it */
	ret = run_ours(path, "comm,cgroup", &ours);
	if (ret)
		return ret;
	TEST_ASSERT(!strncmp(ours, "        handmade  /handmade.slice\n        handmade  unknown\n",
			     60), "-F comm,cgroup: %s", ours);
	free(ours);
	ret = run_ours(path, fields, &ours);
	if (ret)
		return ret;
	TEST_ASSERT(strstr(ours, "handmade     7/8     [001]     2.001234:       1001"),
		    "the second sample: %s", ours);
	stock = run_stock(path, fields);
	if (!stock) {
		free(ours);
		TEST_SKIP_BECAUSE(ctx, "no stock perf ran: the -F output was not compared");
	}
	TEST_LOG(ctx, "%s", stock);
	for (char *o = ours, *t = stock; ret == TEST_OK && *o | *t;) {
		size_t ol = strcspn(o, "\n"), tl = strcspn(t, "\n");

		if (ol != tl || memcmp(o, t, ol)) {
			fprintf(stderr, "  ours:  %.*s\n  stock: %.*s\n", (int)ol, o, (int)tl, t);
			ret = TEST_FAIL;
		}
		o += ol + !!o[ol];
		t += tl + !!t[tl];
	}
	free(ours);
	free(stock);
	TEST_ASSERT(ret == TEST_OK, "-F %s differs from the stock perf's", fields);
	return TEST_OK;
}

static void image__cleanup(const char *dir)
{
	static const char *const names[] = { "full", "variants", "mixed", "apart", "fields", "oversized",
						     "truncated" };
	char path[300];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s.data", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* Ids sections that lie: two events claiming one id (a fuzzed file made
 * the second's section run over the first's ids and the data, and the
 * stock perf refused it, reading a sample with the wrong event's layout).
 * The reader refuses it too, naming the id and the events. */
static int test_shared_id(const char *dir)
{
	struct perf_event_attr a[2] = {
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_IDENTIFIER },
		{ .type = PERF_TYPE_SOFTWARE, .size = sizeof(a[0]), .sample_period = 1,
		  .config = PERF_COUNT_SW_PAGE_FAULTS,
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER },
	};
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	char path[300], err[512];
	size_t start = event__begin(&data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	int fd, ret;
	u64 id;

	buf__u64(&data, 101);
	buf__u64(&data, 0x401000);
	event__end(&data, start, 0, NULL);
	TEST_ASSERT(!image__write(dir, "shared-id", a, 2, &data, path), "write image");
	buf__release(&data);
	/* as written each event has its own id and the file reads */
	ret = image__open(&r, path);
	if (ret)
		return ret;
	reader__close(&r);
	/* the second event's id becomes the first's */
	fd = open(path, O_WRONLY);
	id = 101;
	TEST_ASSERT(fd >= 0 && pwrite(fd, &id, 8, sizeof(struct perf_file_header) +
				      2 * sizeof(struct perf_file_attr) + 8) == 8, "rewrite id");
	close(fd);
	ret = reader__open(&r, path, err, sizeof(err));
	reader__close(&r);	/* undoes the partial open */
	TEST_ASSERT(ret == -EINVAL && strstr(err, "event ids: id 101 is claimed by events 0 and 1"),
		    "an id two events claim: %s", err);
	return TEST_OK;
}

#define NR_TRUNC 2000	/* samples: the data spans many pages */

static int count_full(struct perf_reader *r, const struct perf_event_header *h, u64 off,
		      void *arg)
{
	struct sample s;

	(void)off;
	if (h->type == PERF_RECORD_SAMPLE && !reader__parse_sample(r, h, &s) && s.ip == 0x401000 &&
	    s.nr_callchain == 3 && s.callchain[2] == 0xa2)
		(*(int *)arg)++;
	else
		return -EBADMSG;	/* a garbled record */
	return 0;
}

/* A file truncated after the reader opened it (a recorder that rotates
 * it, a user): the reader reads its records as they are now, through a
 * window, so it gives those still there, each one whole, then says the
 * file was truncated; no access faults. Read in a child: a SIGBUS there
 * is this test's failure, not the suite's end. */
static int test_truncated(const char *dir)
{
	struct perf_event_attr a = full_attr();
	struct perf_reader r = { 0 };
	struct buf data = { 0 };
	char path[300], err[512];
	int status = 0, seen = 0;
	pid_t pid;

	for (int i = 0; i < NR_TRUNC; i++)
		full_sample(&data);
	TEST_ASSERT(!image__write(dir, "truncated", &a, 1, &data, path), "write image");
	buf__release(&data);
	if (image__open(&r, path))
		return TEST_FAIL;
	/* to its first page: a mapping of it reads zeros to the page's end,
	 * then faults */
	TEST_ASSERT(!truncate(path, sysconf(_SC_PAGESIZE)), "truncate %s", path);
	fflush(NULL);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid) {
		int rc = reader__for_each(&r, count_full, &seen, err, sizeof(err));

		if (rc == -EBADMSG || (!rc && seen != NR_TRUNC))
			_exit(1);
		_exit(rc && !strstr(err, "truncated while being read") ? 2 : 0);
	}
	reader__close(&r);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	TEST_ASSERT(!WIFSIGNALED(status), "the reader died of %s reading a file truncated after "
		    "it opened it", strsignal(WTERMSIG(status)));
	TEST_ASSERT(WIFEXITED(status) && !WEXITSTATUS(status), "the reader %s",
		    WEXITSTATUS(status) == 2 ? "stopped without saying the file was truncated" :
		    "lost or garbled records");
	return TEST_OK;
}

#define WIN_SAMPLES 30000	/* 12 MiB of samples: windows of 4 MiB refilled */
#define WIN_AUX (5 << 20)	/* AUXTRACE data longer than a window */

struct win_seen {
	int samples, other;
};

static int count_window(struct perf_reader *r, const struct perf_event_header *h, u64 off,
			void *arg)
{
	struct win_seen *w = arg;
	struct sample s;

	(void)off;
	if (h->type >= 64)	/* perf's own: AUXTRACE_INFO, AUXTRACE, EVENT_TYPE */
		return 0;
	if (h->type == PERF_RECORD_SAMPLE && (uintptr_t)h % 8 == 0 &&
	    !reader__parse_sample(r, h, &s) && s.ip == 0x401000 && s.nr_callchain == 3 &&
	    s.callchain[2] == 0xa2 && s.aux_size == 8 && *(const u64 *)s.aux == 0xa0a0)
		w->samples++;
	else
		w->other++;
	return 0;
}

/* Records through the windows: records across a window's end, perf's own
 * records of sizes no multiple of 8 (the kernel's after them unaligned in
 * the file, aligned when given), AUXTRACE data longer than a window
 * skipped; from a file, then the same records as a stream from a pipe. */
static void window_records(struct buf *b)
{
	u32 info[2] = { 1, 0 };		/* AUXTRACE_INFO: Intel PT */
	u64 aux[5] = { WIN_AUX, 0, 0, 0, 0 };	/* AUXTRACE: size, offset... */
	struct perf_event_header h = { PERF_RECORD_AUXTRACE_INFO, 0, 8 + sizeof(info) };
	struct buf one = { 0 };

	full_sample(&one);
	buf__add(b, &h, sizeof(h));
	buf__add(b, info, sizeof(info));
	for (int i = 0; i < WIN_SAMPLES; i++) {
		buf__add(b, one.p, one.len);
		if (i == WIN_SAMPLES / 3) {
			h = (struct perf_event_header){ PERF_RECORD_AUXTRACE, 0, 8 + sizeof(aux) };
			buf__add(b, &h, sizeof(h));
			buf__add(b, aux, sizeof(aux));
			buf__zero(b, WIN_AUX);
		}
		if (i % 1000 == 7) {	/* 12 bytes: what follows is unaligned */
			h = (struct perf_event_header){ PERF_RECORD_HEADER_EVENT_TYPE, 0, 12 };
			buf__add(b, &h, sizeof(h));
			buf__u32(b, 0);
		}
	}
	buf__release(&one);
}

/* Feeds len bytes to fd 0 through a pipe from a child; the old stdin in
 * *saved. The child's pid, or -1. */
static pid_t pipe_stdin(const char *p, size_t len, int *saved)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(write_all(fds[1], p, len) ? 1 : 0);
	}
	close(fds[1]);
	*saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	return pid;
}

static int test_window(const char *dir)
{
	struct perf_event_attr a = full_attr();
	struct perf_reader r = { 0 };
	struct buf data = { 0 }, stream = { 0 };
	struct win_seen w = { 0 };
	u64 magic[2] = { PERF_MAGIC, 16 };
	struct perf_event_header h = { PERF_RECORD_HEADER_ATTR, 0, 8 + sizeof(a) + 8 };
	char path[300], err[512];
	int saved, status, rc;
	pid_t pid;

	window_records(&data);
	TEST_ASSERT(!data.err && !image__write(dir, "window", &a, 1, &data, path), "write image");
	if (image__open(&r, path))
		return TEST_FAIL;
	rc = reader__for_each(&r, count_window, &w, err, sizeof(err));
	reader__close(&r);
	TEST_ASSERT(!rc && w.samples == WIN_SAMPLES && !w.other, "file: %d samples of %d, %d "
		    "others: %s", w.samples, WIN_SAMPLES, w.other, rc ? err : "read");
	/* the stream: magic, size 16, the event as a HEADER_ATTR, the records */
	buf__add(&stream, magic, sizeof(magic));
	buf__add(&stream, &h, sizeof(h));
	buf__add(&stream, &a, sizeof(a));
	buf__u64(&stream, 101);
	buf__add(&stream, data.p, data.len);
	buf__release(&data);
	TEST_ASSERT(!stream.err, "stream image");
	fflush(NULL);
	pid = pipe_stdin(stream.p, stream.len, &saved);
	TEST_ASSERT(pid > 0, "pipe");
	memset(&w, 0, sizeof(w));
	rc = reader__open(&r, "-", err, sizeof(err));
	if (!rc)
		rc = reader__for_each(&r, count_window, &w, err, sizeof(err));
	reader__close(&r);
	dup2(saved, STDIN_FILENO);
	close(saved);
	buf__release(&stream);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
		    "the writer of the stream");
	TEST_ASSERT(!rc && w.samples == WIN_SAMPLES && !w.other, "stream: %d samples of %d, %d "
		    "others: %s", w.samples, WIN_SAMPLES, w.other, rc ? err : "read");
	return TEST_OK;
}

/* A sample of IP and TIME: the time says which file it is in. */
static void dir_sample(struct buf *b, u64 time)
{
	size_t start = event__begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	buf__u64(b, 0x401000);
	buf__u64(b, time);
	event__end(b, start, 0, NULL);
}

/* dd/name: bytes, or with a header (one event, a sample of time 1000,
 * the DIR_FORMAT feature saying version). 0 or -errno. */
static int dir__write(const char *dd, const char *name, int header, u64 version, u64 time)
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC, .size = sizeof(h), .attr_size = sizeof(struct perf_file_attr),
	};
	struct perf_file_attr fa = { .attr = { .type = PERF_TYPE_SOFTWARE,
		.size = sizeof(fa.attr), .sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME } };
	struct buf b = { 0 }, recs = { 0 };
	char path[400];
	int fd, ret;

	dir_sample(&recs, time);
	if (header) {
		h.attrs = (struct perf_file_section){ sizeof(h), sizeof(fa) };
		h.data = (struct perf_file_section){ sizeof(h) + sizeof(fa), recs.len };
		feature__set(h.adds_features, HEADER_DIR_FORMAT);
		buf__add(&b, &h, sizeof(h));
		buf__add(&b, &fa, sizeof(fa));
	}
	buf__add(&b, recs.p, recs.len);
	if (header) {
		struct perf_file_section f = { b.len + sizeof(f), sizeof(version) };

		buf__add(&b, &f, sizeof(f));
		buf__u64(&b, version);
	}
	snprintf(path, sizeof(path), "%s/%s", dd, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ret = b.err ? b.err : fd < 0 ? -errno : write_all(fd, b.p, b.len);
	if (fd >= 0)
		close(fd);
	buf__release(&b);
	buf__release(&recs);
	return ret;
}

/* Each record is in the file its time says (data 1000, data.N N). */
static int dir_record(struct perf_reader *r, const struct perf_event_header *h, u64 off,
		      void *arg)
{
	const char *name = reader__part_name(r, r->part);
	u64 want = !strcmp(name, "data") ? 1000 : strtoull(name + 5, NULL, 10);
	int *seen = arg;

	(void)off;
	if (reader__record_time(r, h) != want)
		return -EDOM;
	(*seen)++;
	return 0;
}

static int dir__read(const char *dd, int *seen, char *err, size_t errsz)
{
	struct perf_reader r;
	int ret = reader__open(&r, dd, err, errsz);

	*seen = 0;
	if (!ret)
		ret = reader__for_each(&r, dir_record, seen, err, errsz);
	reader__close(&r);
	return ret;
}

/* A perf.data directory: the header file's records, then each regular
 * data.* file's; a FIFO left out without waiting on it, an empty file
 * and a directory too; a link refused, and so is an unknown version or
 * no record file at all. */
static int test_dir(const char *dir)
{
	static const char *const names[] = { "data", "data.1", "data.2", "data.3", "data.4",
					     "data.5" };
	char dd[300], path[400], err[512];
	int seen = 0, ret;

	snprintf(dd, sizeof(dd), "%s/dir.data", dir);
	TEST_ASSERT(!mkdir(dd, 0700), "mkdir %s", dd);
	TEST_ASSERT(!dir__write(dd, "data", 1, 1, 1000) && !dir__write(dd, "data.1", 0, 0, 1) &&
		    !dir__write(dd, "data.2", 0, 0, 2), "write");
	snprintf(path, sizeof(path), "%s/data.3", dd);
	TEST_ASSERT(!mkfifo(path, 0600), "mkfifo");
	snprintf(path, sizeof(path), "%s/data.4", dd);
	TEST_ASSERT(!mkdir(path, 0700), "mkdir");
	snprintf(path, sizeof(path), "%s/data.5", dd);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	ret = dir__read(dd, &seen, err, sizeof(err));
	TEST_ASSERT(!ret && seen == 3, "read %d records of 3: %d %s", seen, ret, ret ? err : "");
	snprintf(path, sizeof(path), "%s/data.5", dd);
	unlink(path);
	TEST_ASSERT(!symlink("data.1", path), "symlink");
	ret = dir__read(dd, &seen, err, sizeof(err));
	TEST_ASSERT(ret == -ELOOP && strstr(err, "data.5: a symbolic link"), "a link: %d %s",
		    ret, err);
	unlink(path);
	TEST_ASSERT(!dir__write(dd, "data", 1, 2, 1000), "write");
	ret = dir__read(dd, &seen, err, sizeof(err));
	TEST_ASSERT(ret == -EINVAL && strstr(err, "DIR_FORMAT version 2"), "version 2: %s", err);
	TEST_ASSERT(!dir__write(dd, "data", 1, 1, 1000), "write");
	for (int i = 1; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dd, names[i]);
		unlink(path);
	}
	ret = dir__read(dd, &seen, err, sizeof(err));
	TEST_ASSERT(ret == -EINVAL && strstr(err, "no data.N"), "no record file: %s", err);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dd, names[i]);
		if (unlink(path))
			rmdir(path);
	}
	TEST_ASSERT(!rmdir(dd), "rmdir %s", dd);
	return TEST_OK;
}

static int test_reader(struct test_ctx *ctx)
{
	char dir[] = "/tmp/perf-test-reader-XXXXXX";
	int ret;

	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	ret = test_full(dir);
	if (ret == TEST_OK)
		ret = test_variants(dir);
	if (ret == TEST_OK)
		ret = test_mixed_trailers(dir);
	if (ret == TEST_OK)
		ret = test_oversized(dir);
	if (ret == TEST_OK)
		ret = test_shared_id(dir);
	if (ret == TEST_OK)
		ret = test_stock_fields(ctx, dir);
	if (ret == TEST_OK)
		ret = test_truncated(dir);
	if (ret == TEST_OK)
		ret = test_window(dir);
	if (ret == TEST_OK)
		ret = test_dir(dir);
	image__cleanup(dir);
	return ret;
}

const struct test_suite suite_perfdata_reader = {
	"perfdata/reader", "perf.data reader: every sample_type bit, lies in lengths, mixed trailers, KSYMBOL/BPF_EVENT records the kernel over-sized, an id two events claim, a file truncated while read, records through windows from a file and a pipe (unaligned, across windows, AUXTRACE data skipped), a perf.data directory (its data.* files, a FIFO, a link)",
	test_reader,
};
