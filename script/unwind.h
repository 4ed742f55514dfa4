/* The user frames of a --call-graph dwarf sample: its user registers and
 * stack dump unwound with libdw's DWARF CFI unwinder, and the functions
 * inlined at each frame, as the stock perf script lists them after the
 * kernel's callchain. */
#ifndef PERF_UNWIND_H
#define PERF_UNWIND_H

#include <stdio.h>

#include "perfdata/reader.h"

struct machine;
struct unwind_cache;

/* The most functions listed for one address: an inline nest deeper than
 * this is cut, innermost first. */
#define UNWIND_MAX_INLINES 64

/* smp has user registers with an ip and a stack dump with data in it:
 * what unwinding starts from. */
int unwind__has_stack(const struct sample *smp);

/* The user frames of smp in m's maps at its time: the interrupted ip,
 * then each caller's return address less one (the call's last byte), at
 * most max of them into pcs. Returns how many: 0 without an ip, 1 when
 * nothing can be unwound. The stack dump and the registers are the
 * file's: every read stays inside the dump or a mapped file. Per
 * process state is kept in m->unwind while the process's maps stay. */
int unwind__user_frames(struct machine *m, const struct sample *smp, u64 *pcs, int max);

/* The user frames of smp, each a line under its callchain as the stock
 * perf prints them (its file offset, then " sym+off (dso)" as sym, symoff
 * and dso ask), a function inlined there a line of its own. */
void unwind__print(struct machine *m, const struct sample *smp, int max, FILE *out, int sym,
		   int symoff, int dso);

void unwind_cache__delete(struct unwind_cache *c);

#endif
