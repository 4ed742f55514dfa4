/* perf data convert --to-pprof: a perf.data read as perf script reads
 * it (time order, tasks and maps in time, symbols from the build-id cache
 * first, dwarf stacks unwound), its samples written as one pprof profile. */
#ifndef PERF_PPROF_CONVERT_H
#define PERF_PPROF_CONVERT_H

#include <stdio.h>

struct pprof_convert_opts {
	const char *input;	/* NULL: standard input if a pipe, else perf.data */
	const char *output;	/* NULL: the input's name with .pb.gz */
	const char *buildid_dir;	/* NULL: $PERF_BUILDID_DIR or ~/.debug */
	int time_labels;	/* a time label on each sample (no two then merge) */
	int force;		/* replace an existing output */
	int verbose;		/* a line on what was made */
	FILE *msg;		/* the error, one line */
};

/* The profile of o->input in o->output, made 0600 in its directory and
 * named only once complete, never through a symbolic link. 0, or -errno
 * after one line on o->msg naming the culprit. */
int pprof_convert__run(const struct pprof_convert_opts *o);

#endif
