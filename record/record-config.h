/* perf record's options turned into every event's perf_event_attr, and
 * the sample_id layout that follows from them. */
#ifndef PERF_RECORD_CONFIG_H
#define PERF_RECORD_CONFIG_H

#include <stddef.h>
#include "lib/util.h"
#include "bpf/loader.h"

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

/* The recording's own tasks, as its thread map has them (for the BPF
 * programs that watch only them): -t's threads, else processes (-p, -u,
 * the workload), followed into their children unless --no-inherit. None
 * for a recording of whole CPUs. Points into evlist's thread map. */
struct bpf_tasks record__bpf_tasks(const struct evlist *evlist, const struct record_opts *opts);

#endif
