/* Register names for -I/--intr-regs and --user-regs, and their sample
 * masks on this architecture. */
#ifndef PERF_REGS_H
#define PERF_REGS_H

#include <stdio.h>
#include "lib/util.h"

/* Register names for -I/--intr-regs and --user-regs, mapped to the bits of
 * sample_regs_intr / sample_regs_user (the kernel's asm/perf_regs.h order
 * for this architecture). */

/* The registers sampled when none are named: every one regs__parse()
 * knows (0: the architecture has no table here). */
u64 regs__default_mask(void);

/* Prints "available registers: NAME NAME ... \n", as perf does for "?". */
void regs__list(FILE *f);

/* Parses "NAME[,NAME...]" (case-insensitive) into *mask. 0; 1 when a name
 * is "?" (the list was printed on stderr, nothing to record); -EINVAL with
 * errbuf holding perf's one-line complaint, which names the register and
 * the listing option (opt, e.g. "-I" or "--user-regs="). */
int regs__parse(const char *arg, const char *opt, u64 *mask, char *errbuf, size_t errsz);

#endif
