/* The unwinder of dwarf stack dumps (script/unwind.c): what it needs to
 * start, and registers and dumps of garbage against a real mapped file,
 * which must give the ip and no read outside the dump or the file. */
#include "tests/tests.h"
#include "script/machine.h"
#include "script/unwind.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NR_REGS 24	/* AX..GS, R8..R15: what --call-graph dwarf samples */
#define MAP_START 0x555500000000ULL

static u64 rnd(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A sample of pid 7 with registers and a dump of garbage, ip in the text
 * of the file mapped at MAP_START and sp near the dump's addresses. */
static void garbage_sample(struct sample *smp, u64 *regs, u64 *stack, size_t words, u64 *state)
{
	memset(smp, 0, sizeof(*smp));
	smp->pid = smp->tid = 7;
	for (int i = 0; i < NR_REGS; i++)
		regs[i] = rnd(state) % 3 ? MAP_START + rnd(state) % 0x400000 : rnd(state);
	regs[7] = 0x7ffd00000000ULL + (rnd(state) & ~7ULL) % 0x100000;	/* sp */
	regs[8] = MAP_START + 0x1000 + rnd(state) % 0x100000;		/* ip */
	for (size_t i = 0; i < words; i++)
		stack[i] = rnd(state) % 2 ? regs[7] + rnd(state) % 0x2000 :
			   rnd(state) % 2 ? MAP_START + rnd(state) % 0x400000 : rnd(state);
	smp->uregs = (struct sample_regs){ 2, (1ULL << NR_REGS) - 1, regs };
	smp->stack = stack;
	smp->stack_size = words * 8;
	smp->stack_dyn_size = (rnd(state) % (words + 1)) * 8;
}

static int test_garbage(struct test_ctx *ctx)
{
	struct dsos *d = dsos__new("/nonexistent");
	static u64 stack[1024];
	u64 regs[NR_REGS], pcs[127], state = 0x9e3779b97f4a7c15ULL;
	char exe[PATH_MAX];
	struct machine m;
	struct sample smp;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)ctx;
	TEST_ASSERT(len > 0 && d && !machine__init(&m, d, NULL, 0), "init");
	exe[len] = 0;
	TEST_ASSERT(!machine__mmap(&m, 7, &(struct mmap_desc){ MAP_START, 0x2000000, 0, PROT_EXEC, 0,
							       exe, NULL, 0 }), "mmap");
	/* nothing to start from: no frame */
	garbage_sample(&smp, regs, stack, 1024, &state);
	smp.uregs.regs = NULL;
	TEST_ASSERT(!unwind__has_stack(&smp) && !unwind__user_frames(&m, &smp, pcs, 127),
		    "no registers");
	garbage_sample(&smp, regs, stack, 1024, &state);
	smp.uregs.mask &= ~(1ULL << 8);
	TEST_ASSERT(!unwind__user_frames(&m, &smp, pcs, 127), "no ip");
	for (int i = 0; i < 300; i++) {
		int n;

		garbage_sample(&smp, regs, stack, 1024, &state);
		n = unwind__user_frames(&m, &smp, pcs, i % 2 ? 127 : 1 + i % 5);
		TEST_ASSERT(n >= 1 && n <= (i % 2 ? 127 : 1 + i % 5) && pcs[0] == regs[8],
			    "round %d: %d frames, first %#llx", i, n, (unsigned long long)pcs[0]);
	}
	machine__exit(&m);
	dsos__delete(d);
	return TEST_OK;
}

TEST_SUITE(suite_script_unwind, "script/unwind",
	   "perf script's dwarf unwinder: what it starts from, 300 garbage register sets and "
	   "stack dumps against a mapped file",
	   test_garbage);
