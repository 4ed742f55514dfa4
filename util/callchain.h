/* --call-graph: how user stacks are recorded (frame pointers or dwarf),
 * and the registers a dwarf unwinder needs. */
#ifndef PERF_CALLCHAIN_H
#define PERF_CALLCHAIN_H

#include <stddef.h>
#include "lib/util.h"

enum callchain_mode { CALLCHAIN_NONE, CALLCHAIN_FP, CALLCHAIN_DWARF };

/* --call-graph: how user stacks are recorded. */
struct callchain_param {
	enum callchain_mode mode;
	u32 dump_size;		/* dwarf: bytes of user stack per sample */
};

#define CALLCHAIN_DWARF_SIZE_DEFAULT 8192

/* Parses a --call-graph value: "fp", "dwarf" or "dwarf,SIZE". 0, or
 * -EINVAL with errbuf saying what is wrong in one line. */
int callchain__parse(struct callchain_param *p, const char *arg, char *errbuf, size_t errsz);

/* The user registers a dwarf unwinder needs on this architecture (0: the
 * architecture is not supported). */
u64 callchain__user_regs(void);

#endif
