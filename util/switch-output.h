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

/* Parses --switch-output's value: NULL or "signal", a size with an
 * upper-case unit (B/K/M/G), or a time with a lower-case one (s/m/h/d).
 * 0 or -EINVAL. */
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
