/* --off-cpu's rewrite (bpf/off-cpu.c) on hand-made bpf-output samples:
 * what off_cpu__parse() reads of them, what off_cpu__build() lays out for
 * each sample_type, and the records it refuses (truncated, lying sizes,
 * too many frames, fields it does not know). */
#include "tests/tests.h"
#include "bpf/off-cpu.h"

#include <errno.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/offcpu-data.h"

#define FLIGHT_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A bpf-output sample of sample_type t (fields then RAW) into out, as the
 * kernel writes it: pid 10, tid 11, emitted at 5000, id 7, CPU 1, raw data
 * of a block of 1000 ns from CPU 1 with k kernel and u user frames
 * (kernel 0xffff...0 + i, user 0x400000 + i). Its size. */
static size_t hand_sample(u64 t, u32 k, u32 u, u64 *out)
{
	struct perf_event_header *h = (void *)out;
	struct offcpu_data d = { .pid = 10, .tid = 11, .time = 4000, .duration = 1000, .cpu = 1,
				 .kernel_nr = k, .user_nr = u };
	u64 *p = out + 1;
	u32 raw = OFFCPU_DATA_HEAD + (k + u) * 8;

	for (u32 i = 0; i < k + u && i < 2 * OFFCPU_MAX_STACK; i++)
		d.ips[i] = i < k ? 0xffffffff81000000ULL + i : 0x400000 + i;
	if (t & PERF_SAMPLE_IDENTIFIER)
		*p++ = 7;
	if (t & PERF_SAMPLE_IP)
		*p++ = 0x1234;
	if (t & PERF_SAMPLE_TID)
		*p++ = 11ULL << 32 | 10;
	if (t & PERF_SAMPLE_TIME)
		*p++ = 5000;
	if (t & PERF_SAMPLE_ID)
		*p++ = 7;
	if (t & PERF_SAMPLE_CPU)
		*p++ = 1;
	memcpy(p, &raw, 4);
	memcpy((char *)p + 4, &d, raw);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = ALIGN_UP((char *)p + 4 + raw - (char *)out, 8);
	return h->size;
}

/* The misc of a record in a u64 buffer. */
static u16 misc_of(const u64 *r)
{
	struct perf_event_header h;

	memcpy(&h, r, sizeof(h));
	return h.misc;
}

static int test_parse_build(struct test_ctx *ctx)
{
	u64 in[1024], out[OFF_CPU_RECORD_MAX / 8], *p = out + 1;
	u64 type = off_cpu__event_type(FLIGHT_TYPE), ot = off_cpu__sample_type(FLIGHT_TYPE);
	struct off_cpu_sample s;
	ssize_t n;

	(void)ctx;
	TEST_ASSERT(type == (FLIGHT_TYPE | PERF_SAMPLE_RAW), "%#llx", (unsigned long long)type);
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, hand_sample(type, 2, 3, in), &s), "parse");
	TEST_ASSERT(s.id == 7 && s.pid == 10 && s.tid == 11 && s.cpu == 1, "%llu %u %u %u",
		    (unsigned long long)s.id, s.pid, s.tid, s.cpu);
	/* the switch-out: the kernel's stamp less the time off CPU */
	TEST_ASSERT(s.time == 4000 && s.period == 1000, "%llu %llu",
		    (unsigned long long)s.time, (unsigned long long)s.period);
	TEST_ASSERT(s.kernel_nr == 2 && s.user_nr == 3, "%u %u", s.kernel_nr, s.user_nr);
	n = off_cpu__build(ot, &s, out, sizeof(out));
	/* IDENTIFIER IP TID TIME CPU PERIOD, then nr, KERNEL, 2, USER, 3 */
	TEST_ASSERT(n == 8 + 6 * 8 + 8 * (1 + 1 + 2 + 1 + 3), "%zd", n);
	TEST_ASSERT(misc_of(out) == PERF_RECORD_MISC_KERNEL, "misc");
	TEST_ASSERT(p[0] == 7 && p[1] == 0xffffffff81000000ULL && p[2] == (11ULL << 32 | 10) &&
		    p[3] == 4000 && p[4] == 1 && p[5] == 1000, "fields");
	TEST_ASSERT(p[6] == 7 && p[7] == PERF_CONTEXT_KERNEL && p[9] == 0xffffffff81000001ULL &&
		    p[10] == PERF_CONTEXT_USER && p[11] == 0x400002 && p[13] == 0x400004,
		    "callchain %llx %llx", (unsigned long long)p[6], (unsigned long long)p[10]);
	/* the two in one */
	TEST_ASSERT(off_cpu__rewrite(type, ot, (void *)in, in + 512, 4096) == n &&
		    !memcmp(in + 512, out, n), "rewrite differs from parse + build");
	return TEST_OK;
}

static int test_refused(struct test_ctx *ctx)
{
	u64 in[1024];
	u64 type = off_cpu__event_type(FLIGHT_TYPE);
	struct perf_event_header *h = (void *)in;
	struct off_cpu_sample s;
	size_t size;
	u32 raw;

	(void)ctx;
	size = hand_sample(type, 2, 3, in);
	/* the record shorter than the buffer says, or cut anywhere */
	TEST_ASSERT(off_cpu__parse(type, h, size - 8, &s) == -EINVAL, "a cut buffer read");
	for (size_t cut = sizeof(*h); cut < size - 8; cut += 8) {
		h->size = cut;
		TEST_ASSERT(off_cpu__parse(type, h, size, &s) == -EINVAL, "cut at %zu read", cut);
	}
	h->size = size;
	/* the RAW size past the record */
	memcpy(&raw, (char *)h + 8 + 5 * 8, 4);
	raw += 16;
	memcpy((char *)h + 8 + 5 * 8, &raw, 4);
	TEST_ASSERT(off_cpu__parse(type, h, size, &s) == -EINVAL, "a RAW size too big read");
	/* more frames than the data holds, or than the program can write */
	hand_sample(type, 2, 3, in);
	memcpy((char *)h + 8 + 5 * 8 + 4 + 28, &(u32){ 40 }, 4);	/* user_nr */
	TEST_ASSERT(off_cpu__parse(type, h, size, &s) == -EINVAL, "frames past the data read");
	memcpy((char *)h + 8 + 5 * 8 + 4 + 24, &(u32){ OFFCPU_MAX_STACK + 1 }, 4);
	TEST_ASSERT(off_cpu__parse(type, h, size, &s) == -EINVAL, "128 kernel frames read");
	/* not a sample, a layout with fields it does not know, no RAW */
	size = hand_sample(type, 2, 3, in);
	h->type = PERF_RECORD_MMAP2;
	TEST_ASSERT(off_cpu__parse(type, h, size, &s) == -EINVAL, "an MMAP2 read");
	h->type = PERF_RECORD_SAMPLE;
	TEST_ASSERT(off_cpu__parse(type | PERF_SAMPLE_PERIOD, h, size, &s) == -EINVAL,
		    "PERIOD in the layout read");
	TEST_ASSERT(off_cpu__parse(type & ~PERF_SAMPLE_RAW, h, size, &s) == -EINVAL,
		    "no RAW read");
	return TEST_OK;
}

static int test_frame_limits(struct test_ctx *ctx)
{
	u64 in[1024], out[OFF_CPU_RECORD_MAX / 8];
	u64 type = off_cpu__event_type(FLIGHT_TYPE), ot = off_cpu__sample_type(FLIGHT_TYPE);
	struct off_cpu_sample s;
	ssize_t n;

	(void)ctx;
	/* both stacks full: within OFF_CPU_RECORD_MAX */
	hand_sample(type, OFFCPU_MAX_STACK, OFFCPU_MAX_STACK, in);
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, sizeof(in), &s), "full stacks refused");
	n = off_cpu__build(ot, &s, out, sizeof(out));
	TEST_ASSERT(n > 0 && n <= OFF_CPU_RECORD_MAX, "%zd", n);
	TEST_ASSERT(out[1 + 6] == 2 + 2 * OFFCPU_MAX_STACK, "nr %llu",
		    (unsigned long long)out[1 + 6]);
	TEST_ASSERT(off_cpu__build(ot, &s, out, n - 8) == -ENOSPC, "built into too little");
	/* no frames at all: a user-mode sample, IP 0, an empty callchain */
	hand_sample(type, 0, 0, in);
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, sizeof(in), &s), "no frames refused");
	n = off_cpu__build(ot, &s, out, sizeof(out));
	TEST_ASSERT(n == 8 + 7 * 8, "%zd", n);
	TEST_ASSERT(misc_of(out) == PERF_RECORD_MISC_USER &&
		    out[2] == 0 && out[7] == 0, "misc %u ip %llu nr %llu",
		    misc_of(out), (unsigned long long)out[2],
		    (unsigned long long)out[7]);
	/* user frames only */
	hand_sample(type, 0, 2, in);
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, sizeof(in), &s), "user frames refused");
	n = off_cpu__build(ot, &s, out, sizeof(out));
	TEST_ASSERT(n == 8 + 6 * 8 + 8 * 4 && out[8] == PERF_CONTEXT_USER && out[9] == 0x400000,
		    "%zd", n);
	return TEST_OK;
}

/* Normal mode without IDENTIFIER: the event by ID; a layout without CPU
 * gets none in the file either. */
static int test_layouts(struct test_ctx *ctx)
{
	const u64 id_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
	u64 in[1024], out[OFF_CPU_RECORD_MAX / 8], *p = out + 1;
	u64 type = off_cpu__event_type(id_type), ot = off_cpu__sample_type(id_type);
	struct off_cpu_sample s;
	ssize_t n;

	(void)ctx;
	TEST_ASSERT(!(ot & PERF_SAMPLE_IDENTIFIER) && (ot & PERF_SAMPLE_CPU) &&
		    (ot & PERF_SAMPLE_PERIOD) && (ot & PERF_SAMPLE_CALLCHAIN) &&
		    !(ot & PERF_SAMPLE_RAW), "%#llx", (unsigned long long)ot);
	hand_sample(type, 1, 1, in);
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, sizeof(in), &s), "parse");
	TEST_ASSERT(s.id == 7 && s.time == 4000 && s.cpu == 1, "%llu %llu",
		    (unsigned long long)s.id, (unsigned long long)s.time);
	n = off_cpu__build(ot, &s, out, sizeof(out));
	/* IP TID TIME ID CPU PERIOD, nr KERNEL 1 USER 1 */
	TEST_ASSERT(n == 8 + 6 * 8 + 5 * 8, "%zd", n);
	TEST_ASSERT(p[0] == 0xffffffff81000000ULL && p[2] == 4000 && p[3] == 7 && p[4] == 1 &&
		    p[5] == 1000 && p[6] == 4, "fields");
	/* a stamp below the time off CPU: 0, not a wrap */
	((u64 *)in)[3] = 10;
	TEST_ASSERT(!off_cpu__parse(type, (void *)in, sizeof(in), &s) && s.time == 0, "%llu",
		    (unsigned long long)s.time);
	return TEST_OK;
}

TEST_SUITE(suite_bpf_off_cpu, "bpf/off-cpu",
	   "--off-cpu's rewrite: bpf-output samples parsed, offcpu-time samples laid out per "
	   "sample_type, truncated or lying records refused, frame limits",
	   test_parse_build, test_refused, test_frame_limits, test_layouts);
