/* --switch-output: when to switch to a new output file, how the files are
 * named, and which of this run's files --switch-max-files keeps. */
#ifndef PERF_SWITCH_OUTPUT_H
#define PERF_SWITCH_OUTPUT_H

#include "lib/util.h"

enum switch_kind { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

/* When to switch to a new output file, and the files this run made. */
struct switch_output {
	enum switch_kind kind;
	u64 size;		/* bytes, for SWITCH_SIZE */
	u64 period_ns;		/* for SWITCH_TIME */
	int max_files;		/* 0: keep all */
	int earlier;		/* earlier runs' files count toward max_files */
	char **files;		/* this run's files, oldest first */
	int nr_files, cap_files;
	u64 last_cs;		/* centisecond of the last name given */
};

/* The longest --switch-output time: a year is longer than any rotation
 * wants, and keeps now + period far from wrapping a u64 of nanoseconds. */
#define SWITCH_OUTPUT_MAX_NS (365ULL * 86400 * 1000000000)

/* Parses --switch-output's value: NULL or "signal", a size with an
 * upper-case unit (B/K/M/G), or a time with a lower-case one (s/m/h/d).
 * 0, -EINVAL for junk, -ERANGE for 0, a size beyond a u64 or a time beyond
 * SWITCH_OUTPUT_MAX_NS, or -ENOMEM. */
int switch_output__parse(struct switch_output *so, const char *spec);

/* The name BASE.YYYYMMDDHHMMSSCC (centiseconds, as perf names them), in
 * O(1): unique among this run's names (a second name in one centisecond
 * waits for the next), while a name taken by someone else is found out
 * when the file is linked into place, which never replaces anything.
 * malloc'd: the caller frees it; NULL on ENOMEM. */
char *switch_output__name(struct switch_output *so, const char *base);

/* Makes room to remember one more file, so that once a file is written,
 * remembering it cannot fail and no file escapes max_files. 0 or -ENOMEM. */
int switch_output__reserve(struct switch_output *so);
/* Records that path (malloc'd, now owned by so) was written, after a
 * successful switch_output__reserve(), and with max_files deletes the
 * oldest of this run's own files beyond it (their names go to removed). */
void switch_output__created(struct switch_output *so, char *path,
			    void (*removed)(const char *path, void *arg), void *arg);
/* --switch-max-files-earlier: the files of earlier runs with the same
 * OUTPUT in its directory count toward max_files, as the files this run
 * made before (a perf daemon session restarted keeps its bound). Only
 * files that look made by a run of ours: named as switch_output__name()
 * names them, regular (never a link), ours, 0600, with one link; the
 * oldest beyond max_files are deleted at once (their names to removed).
 * 0 or -errno (the directory cannot be read, -ENOMEM). */
int switch_output__adopt(struct switch_output *so, const char *output,
			 void (*removed)(const char *path, void *arg), void *arg);
void switch_output__exit(struct switch_output *so);

#endif
