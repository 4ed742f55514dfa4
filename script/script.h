/* perf script's work, without the command line: a perf.data as text, in
 * time order, as the stock perf script prints it. */
#ifndef PERF_SCRIPT_H
#define PERF_SCRIPT_H

#include <stdio.h>

struct script_opts {
	const char *input;	/* "-": standard input; NULL: "-" if it is a pipe, else perf.data */
	int show_task, show_mmap;
	const char *fields;	/* -F: comma-separated field names, or NULL */
	const char *buildid_dir;	/* the build-id cache; NULL: $PERF_BUILDID_DIR or ~/.debug */
	FILE *out;	/* the text */
	FILE *msg;	/* warnings and the error, one line each */
	const char *const *field_args;	/* -F given again: each after fields */
	int nr_field_args;
	int hide_call_graph;	/* -G */
	int nanosecs;		/* --ns */
	int max_stack;		/* --max-stack: entries of a callchain shown (0: 127) */
	const char *comms, *pids, *tids, *cpus;	/* comma-separated filters */
	const char *time;	/* --time: the stock's start,stop ranges */
	int no_demangle;	/* --no-demangle */
	/* --show-switch-events, --show-lost-events, --show-namespace-events,
	 * --show-cgroup-events, --show-bpf-events (KSYMBOL, BPF_EVENT) and
	 * --show-text-poke-events (TEXT_POKE, KSYMBOL) */
	int show_switch, show_lost, show_namespace, show_cgroup, show_bpf, show_text_poke;
	/* --show-round-events: FINISHED_ROUND records printed, and as the
	 * stock then does, every record in file order, none held for time */
	int show_round;
	/* --header: the header's block before the records; --header-only: it
	 * alone; -I (--show-info): with the lines of every feature */
	int header, header_only, show_info;
};

/* perf script: the records of o->input as text, in time order. 0, or
 * -errno after one line on o->msg naming the file and what is wrong:
 * -EDOM for a bad -F, -ENOTSUP for a field the file's events lack,
 * -ERANGE for a bad --time. */
int script__run(const struct script_opts *o);

#endif
