#ifndef PERF_SWITCH_OUTPUT_H
#define PERF_SWITCH_OUTPUT_H

#include "util/util.h"

enum switch_kind { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

/* When to switch to a new output file, and the files this run made. */
struct switch_output {
	enum switch_kind kind;
	u64 size;		/* bytes, for SWITCH_SIZE */
	u64 period_ns;		/* for SWITCH_TIME */
	int max_files;		/* 0: keep all */
	char **files;		/* this run's files, oldest first */
	int nr_files;
};

/* The longest --switch-output time: a year is longer than any rotation
 * wants, and keeps now + period far from wrapping a u64 of nanoseconds. */
#define SWITCH_OUTPUT_MAX_NS (365ULL * 86400 * 1000000000)

/* Parses --switch-output's value: NULL or "signal", a size with an
 * upper-case unit (B/K/M/G), or a time with a lower-case one (s/m/h/d).
 * 0, -EINVAL for junk, -ERANGE for 0, a size beyond a u64 or a time beyond
 * SWITCH_OUTPUT_MAX_NS, or -ENOMEM. */
int switch_output__parse(struct switch_output *so, const char *spec);

/* A new name BASE.YYYYMMDDHHMMSSCC (centiseconds, as perf names them) that
 * does not exist yet. malloc'd: the caller frees it; NULL on ENOMEM. */
char *switch_output__name(const char *base);

/* Records that path was written, and with max_files deletes the oldest of
 * this run's own files beyond it (their names go to the removed callback). */
int switch_output__created(struct switch_output *so, const char *path,
			   void (*removed)(const char *path, void *arg), void *arg);
void switch_output__exit(struct switch_output *so);

#endif
