/* perf record's options turned into every event's perf_event_attr, and
 * the sample_id layout that follows from them. */
#ifndef PERF_RECORD_CONFIG_H
#define PERF_RECORD_CONFIG_H

#include <stddef.h>
#include "lib/util.h"

struct evlist;
struct record_opts;

/* Fills every event's attr from the options (sample_type, period/freq,
 * inherit, enable_on_exec, write_backward) and appends the dummy tracking
 * event. 0 or -errno with errbuf set. */
int record__config(struct evlist *evlist, const struct record_opts *opts,
		   char *errbuf, size_t errsz);

/* After record__config(): the sample_id trailer of the tracking records,
 * and the fields every sample starts with (event__time()). */
u64 record__id_sample_type(const struct evlist *evlist);

#endif
