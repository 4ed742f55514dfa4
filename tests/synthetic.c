#include "tests/tests.h"
#include "util/synthetic.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static int test_synthetic(struct test_ctx *ctx)
{
	struct build_id_cache *c = build_id_cache__new();
	struct buf b = { 0 };
	char exe[PATH_MAX], comm[16] = "";
	u8 bid[BUILD_ID_SIZE];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int comms = 0, exe_maps = 0, exe_bid_ok = 0, kernel = 0, bid_len;
	pid_t me = getpid();

	(void)ctx;
	TEST_ASSERT(c && n > 0, "setup");
	exe[n] = '\0';
	prctl(PR_GET_NAME, comm);
	bid_len = build_id_cache__get(c, exe, bid);
	TEST_ASSERT(!synthesize__process(&b, me, ST, c), "synthesize self");
	if (!synthesize__kernel_mmap(&b, ST))
		kernel = 1;
	TEST_ASSERT(synthesize__process(&b, 0x7ffffff0, ST, c) == -ESRCH, "absent pid");

	for (size_t off = 0; off < b.len;) {
		struct perf_event_header *h = (void *)(b.p + off);
		const u32 *ids = (const u32 *)(h + 1);
		struct sample_id sid;

		TEST_ASSERT(h->size >= 8 && h->size % 8 == 0 && off + h->size <= b.len, "size");
		TEST_ASSERT(!event__parse_id(h, ST, &sid) && sid.time == 0, "trailer");
		if (h->type == PERF_RECORD_COMM && ids[0] == (u32)me) {
			TEST_ASSERT(!strcmp((const char *)(ids + 2), comm), "comm %s",
				    (const char *)(ids + 2));
			comms++;
		}
		if (h->type == PERF_RECORD_MMAP2 && !strcmp((const char *)h + 72, exe)) {
			exe_maps++;
			TEST_ASSERT(sid.pid == (u32)me, "pid in trailer");
			if (bid_len && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
			    ((const u8 *)h)[40] == bid_len && !memcmp((const u8 *)h + 44, bid, bid_len))
				exe_bid_ok++;
		}
		if (h->type == PERF_RECORD_MMAP)
			TEST_ASSERT(!strcmp((const char *)h + 40, "[kernel.kallsyms]_text") &&
				    (h->misc & PERF_RECORD_MISC_KERNEL), "kernel map");
		off += h->size;
	}
	TEST_ASSERT(comms >= 1, "no COMM for ourselves");
	TEST_ASSERT(exe_maps >= 1, "no executable MMAP2 for %s", exe);
	TEST_ASSERT(!bid_len || exe_bid_ok == exe_maps, "build id of %s", exe);
	TEST_LOG(ctx, "  %zu bytes, kernel map %s, build id %d bytes\n", b.len,
		 kernel ? "yes" : "hidden", bid_len);
	buf__release(&b);
	build_id_cache__delete(c);
	return TEST_OK;
}

const struct test_suite suite_synthetic = {
	"synthetic", "Synthesize COMM/MMAP2/FORK of existing tasks", test_synthetic,
};
