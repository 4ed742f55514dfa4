#ifndef PERF_RECORD_H
#define PERF_RECORD_H

#include <linux/perf_event.h>
#include "util/target.h"
#include "util/util.h"

struct evlist;
struct perf_data;

/* Everything the record command line asks for. */
struct record_opts {
	struct target target;
	const char *output;
	u64 count;		/* -c: sample period (0: not given) */
	u64 freq;		/* -F: sample frequency (0: not given) */
	u64 mmap_bytes;		/* -m: data bytes per forward ring */
	u64 bwd_mmap_bytes;	/* data bytes per backward ring (--overwrite) */
	u64 wakeup_bytes;	/* forward rings wake the reader this full (0: half) */
	int callgraph;		/* -g */
	int no_inherit;
	int quiet;
	int verbose;
	int overwrite;		/* --overwrite */
	int workload;		/* a command was given */
	int per_task;		/* events follow the workload's pid (no -a/-C) */
};

/* What the writer saw go by, for the closing line and SAMPLE_TIME. */
struct record_stats {
	u64 samples;
	u64 lost;		/* samples the kernel reported as lost */
	u64 first_time, last_time;
	u64 wakeups;
};

/* Fills every event's attr from the options (sample_type, period/freq,
 * inherit, enable_on_exec, write_backward) and appends the dummy tracking
 * event. 0 or -errno with errbuf set. */
int record__config(struct evlist *evlist, const struct record_opts *opts,
		   char *errbuf, size_t errsz);

/* The sample_type every event shares for its sample_id trailer. */
u64 record__id_sample_type(const struct evlist *evlist);

struct tracking;
struct buf;
struct evsel;

/* Where the records drained from the forward rings go. */
struct drain_sink {
	struct perf_data *data;		/* written straight from the ring pages */
	struct tracking *tracking;	/* copies of COMM/MMAP2/FORK/EXIT/... */
	struct buf *pending;		/* copies of the rest (overwrite mode) */
	u64 pending_max;		/* its cap in bytes (0: none) */
	u64 pending_dropped;		/* records dropped for the cap */
	struct evsel *trigger;		/* --switch-output-event */
	int triggered;			/* a sample of trigger went by */
};

/* Empties every forward ring: straight from the mapped pages into
 * sink->data (then a FINISHED_ROUND), and copies into the tracking log and
 * pending buffer as the sink asks. Returns bytes drained or -errno. */
s64 record__drain_forward(struct evlist *evlist, struct drain_sink *sink,
			  struct record_stats *st);

/* Adds what one record means to the stats (samples, LOST, sample times). */
void record_stats__account(struct record_stats *st, const struct perf_event_header *h,
			   u64 time);

#endif
