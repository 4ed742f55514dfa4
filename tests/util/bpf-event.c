/* BPF programs as util/bpf-event.c sees them: a program loaded here gets
 * its KSYMBOL, BPF_EVENT and BPF_PROG_INFO entry. */
#include "tests/tests.h"
#include "util/bpf-event.h"
#include "util/event.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A program loaded here: bpf_progs__synthesize() names it as the kernel
 * does, and its BPF_PROG_INFO entry has every array inside its data. */
static int test_synthesize(struct test_ctx *ctx)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_progs p;
	struct bpf_prog_info info = { 0 };
	struct buf out = { 0 };
	u32 len = sizeof(info), count, info_len, data_len, id;
	char want[64];
	int fd, err, named = 0, loads = 0, found = 0;
	size_t off;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "frt_unit", "GPL", insns, 2, NULL);
	if (fd < 0 && geteuid())
		TEST_SKIP_BECAUSE(ctx, "loading a BPF program needs root: %s", strerror(-fd));
	TEST_ASSERT(fd >= 0, "loading a BPF program: %s", strerror(-fd));
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	if (err)
		close(fd);
	TEST_ASSERT(!err, "its info: %s", strerror(-err));
	id = info.id;
	off = snprintf(want, sizeof(want), "bpf_prog_");
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		off += snprintf(want + off, sizeof(want) - off, "%02x", info.tag[i]);
	snprintf(want + off, sizeof(want) - off, "_frt_unit");
	bpf_progs__init(&p);
	err = bpf_progs__synthesize(&p, &out, ST);
	close(fd);
	TEST_ASSERT(!err, "synthesize: %s", strerror(-err));
	for (off = 0; off + sizeof(struct perf_event_header) <= out.len;) {
		const struct perf_event_header *h = (const void *)(out.p + off);

		if (h->type == PERF_RECORD_KSYMBOL)
			named += !strcmp((const char *)(h + 1) + 16, want);
		if (h->type == PERF_RECORD_BPF_EVENT)
			loads += !memcmp((const char *)(h + 1) + 4, &id, sizeof(id));
		off += h->size;
	}
	TEST_ASSERT(named == 1 && loads == 1, "%d KSYMBOL named %s, %d BPF_EVENT of %u",
		    named, want, loads, id);
	/* u32 count, then {u32 info_len, u32 data_len, u64 arrays, info, data} */
	memcpy(&count, p.info.p, sizeof(count));
	off = sizeof(count);
	for (u32 i = 0; i < count && off + 16 <= p.info.len; i++) {
		struct bpf_prog_info e = { 0 };
		u64 arrays;

		memcpy(&info_len, p.info.p + off, 4);
		memcpy(&data_len, p.info.p + off + 4, 4);
		memcpy(&arrays, p.info.p + off + 8, 8);
		TEST_ASSERT(info_len <= sizeof(e) && off + 16 + info_len + data_len <= p.info.len,
			    "entry %u: info_len %u data_len %u past the body", i, info_len, data_len);
		memcpy(&e, p.info.p + off + 16, info_len);
		if (e.id == id) {
			found++;
			TEST_ASSERT(!bpf_prog_info__check(&e, info_len, arrays, data_len),
				    "the reader refuses the entry");
			/* what the stock would follow out of the entry, or not take */
			TEST_ASSERT(bpf_prog_info__check(&e, info_len, arrays, data_len - 1) &&
				    bpf_prog_info__check(&e, BPF_PROG_INFO_MAX + 1, arrays, data_len),
				    "a short data or a long info accepted");
			e.prog_tags = data_len - BPF_TAG_SIZE + 1;
			TEST_ASSERT(bpf_prog_info__check(&e, info_len, arrays, data_len) &&
				    !bpf_prog_info__check(&e, info_len, arrays & ~(1ULL << 8), data_len),
				    "the tags' offset past data, in the mask or not");
			e.prog_tags = 0;
			TEST_ASSERT(arrays == 0x1f9, "arrays %#llx", (unsigned long long)arrays);
			TEST_ASSERT(e.nr_jited_ksyms == 1 && e.jited_ksyms + 8 <= data_len &&
				    e.jited_func_lens + 4 <= data_len &&
				    e.prog_tags + BPF_TAG_SIZE <= data_len &&
				    e.jited_prog_insns + e.jited_prog_len <= data_len,
				    "offsets outside data (%u bytes)", data_len);
			memcpy(&e, p.info.p + off + 16, info_len);
			TEST_ASSERT(!memcmp(p.info.p + off + 16 + info_len + e.prog_tags, info.tag,
					    BPF_TAG_SIZE), "the tag in data");
		}
		off += 16 + info_len + data_len;
	}
	TEST_ASSERT(found == 1 && off == p.info.len, "%d entries of %u; %zu of %zu bytes walked",
		    found, id, off, p.info.len);
	buf__release(&out);
	bpf_progs__exit(&p);
	return TEST_OK;
}

const struct test_suite suite_util_bpf_event = {
	"util/bpf-event", "BPF programs: a loaded program's KSYMBOL, BPF_EVENT and BPF_PROG_INFO entry",
	test_synthesize,
};
