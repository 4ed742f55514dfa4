/* perf script's sample filters: --comms, --pids, --tids, --cpu. */
#ifndef PERF_SCRIPT_FILTER_H
#define PERF_SCRIPT_FILTER_H

#include <stddef.h>

enum filter_kind { FILTER_COMM, FILTER_PID, FILTER_CPU };

/* One filter; all zero: everything passes. */
struct script_filter {
	int set;
	int *v;		/* pids, tids or CPUs */
	char **comms;	/* into words */
	char *words;
	size_t nr;
};

/* list (NULL: no filter) into f: 0, -EINVAL for a word that is no number
 * (CPU lists take ranges, a-b), or -ENOMEM. script_filter__exit() frees. */
int script_filter__parse(struct script_filter *f, const char *list, enum filter_kind kind);
int script_filter__has_number(const struct script_filter *f, int n);
int script_filter__has_comm(const struct script_filter *f, const char *comm);
void script_filter__exit(struct script_filter *f);

#endif
