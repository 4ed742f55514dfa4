/* The -e event syntax, --filter and --exclude-perf, into a session's
 * events. */
#ifndef PERF_PARSE_EVENTS_H
#define PERF_PARSE_EVENTS_H

#include <stddef.h>

struct evlist;

/* Parses one -e argument, a comma list of events:
 *   NAME[:MODS]            hardware or software event (cycles, cpu-clock, cs, ...)
 *   SYS:NAME[:MODS]        tracepoint; SYS and NAME may be globs (sched:*)
 *   EVENT/TERM,.../[MODS]  terms period=N, freq=N, name=S, inherit, no-inherit,
 *                          call-graph=fp|dwarf|no, stack-size=N, max-stack=N,
 *                          overwrite, no-overwrite
 *   [GROUP]{EVENT,...}[:MODS]  one group led by the first event; the group's
 *                          MODS add to each member's
 * with MODS from u (user only), k (kernel only), h, p (precise, repeatable),
 * S (the leader's samples read the group).
 * Appends one evsel per event (per match for globs). Returns 0, or -1 with
 * a one-line "event syntax error: ..." in err. */
int parse_events(struct evlist *evlist, const char *str, char *err, size_t errsz);

/* --filter: ands filter to the filter of every event the last -e added,
 * which must all be tracepoints. --exclude-perf: the same with the filter
 * "common_pid != <our pid>". 0, or -1 with perf's one-line message in err. */
int parse_events__filter(struct evlist *evlist, const char *filter, char *err, size_t errsz);
int parse_events__exclude_perf(struct evlist *evlist, char *err, size_t errsz);

/* Looks up a hardware/software event name: 0 with *type and *config set, or -1. */
int parse_events__symbol(const char *name, unsigned int *type, unsigned long long *config);

#endif
