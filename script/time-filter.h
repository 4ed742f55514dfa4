/* perf script --time: the time ranges samples must fall in, written as
 * the stock perf writes them. */
#ifndef PERF_SCRIPT_TIME_FILTER_H
#define PERF_SCRIPT_TIME_FILTER_H

#include "lib/util.h"

/* [start, end], both in ns and kept; 0 leaves that side open. */
struct time_range {
	u64 start, end;
};

/* All zero: every time passes. */
struct time_filter {
	struct time_range *r;
	int nr;
};

/* str as the stock reads it: "start,stop" in seconds[.fraction], either
 * side empty for open, several ranges separated by spaces in increasing
 * order; or percents of [first, last] (the file's first and last sample):
 * "10%/2" (the second 10% slice), "0%-10%", "20%" (the first 20%), several
 * separated by commas. NULL: no filter. 0, -EINVAL for a string the stock
 * calls invalid (ranges reversed or overlapping included), -ENODATA for a
 * percent without first and last, or -ENOMEM. time_filter__exit() frees. */
int time_filter__parse(struct time_filter *tf, const char *str, u64 first, u64 last);
/* Whether a sample at time t is left out: never when it has no time (0). */
int time_filter__skip(const struct time_filter *tf, u64 t);
void time_filter__exit(struct time_filter *tf);

#endif
