#ifndef PERF_PARSE_EVENTS_H
#define PERF_PARSE_EVENTS_H

#include <stddef.h>

struct evlist;

/* Parses one -e argument, a comma list of events:
 *   NAME[:MODS]            hardware or software event (cycles, cpu-clock, cs, ...)
 *   SYS:NAME[:MODS]        tracepoint; SYS and NAME may be globs (sched:*)
 *   EVENT/TERM,.../[MODS]  terms period=N, freq=N, overwrite, no-overwrite, name=S
 * with MODS from u (user only), k (kernel only), h, p (precise, repeatable).
 * Appends one evsel per event (per match for globs). Returns 0, or -1 with
 * a one-line "event syntax error: ..." in err. */
int parse_events(struct evlist *evlist, const char *str, char *err, size_t errsz);

/* Looks up a hardware/software event name: 0 with *type and *config set, or -1. */
int parse_events__symbol(const char *name, unsigned int *type, unsigned long long *config);

#endif
