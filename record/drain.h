/* The drain of the forward rings: where their records go (file, tracking
 * log, pending buffer, history) and what it counts on the way. */
#ifndef PERF_DRAIN_H
#define PERF_DRAIN_H

#include <linux/perf_event.h>
#include <pthread.h>
#include "lib/util.h"

struct bpf_progs;
struct buf;
struct dso_hits;
struct evlist;
struct evsel;
struct history;
struct perf_data;
struct tracking;

/* What the drain saw go by, for the closing line and SAMPLE_TIME. */
struct record_stats {
	u64 samples;
	u64 lost;		/* samples the kernel reported as lost */
	u64 first_time, last_time;
	u64 end_time;		/* the latest time of any record, sample or not */
	u64 wakeups;
};

/* Where the records drained from the forward rings go. */
struct drain_sink {
	struct perf_data *data;		/* written straight from the ring pages */
	struct tracking *tracking;	/* copies of COMM/MMAP2/FORK/EXIT/... */
	struct buf *pending;		/* copies of the rest (overwrite mode) */
	struct history *history;	/* or the rest per ring, compressed (--history) */
	u64 pending_max;		/* its cap in bytes (0: none) */
	u64 pending_dropped;		/* records dropped for the cap */
	u64 id_sample_type;		/* where a sample's time is (event__time()) */
	struct evsel *trigger;		/* --switch-output-event: samples then have IDENTIFIER */
	struct evsel *when;		/* --switch-output-when's event: its samples trigger, and stay */
	u64 flush;			/* --mmap-flush: nothing is drained until a ring holds this much */
	int triggered;			/* a sample of trigger or when went by */
	u64 when_time;			/* the time of the first sample of when (0: none) */
	/* the history took no more, and records were left in ring
	 * first_ring: the next drain starts there, due or not, so that a
	 * ring after it does not wait for ever for the spares */
	int behind;
	int first_ring;
	struct bpf_progs *bpf;		/* a BPF program's load: its info is read (NULL: not) */
	pthread_mutex_t *bpf_lock;	/* held for it where drain threads share bpf (or NULL) */
	/* a drain thread's (--threads): one ring to drain into its own
	 * data file, with no FINISHED_ROUND (the file holds one ring's
	 * records, in the kernel's order, as the stock's data.N), and the
	 * build-id model shared by every thread fed under its lock */
	int ring;			/* 1 + the only ring to drain; 0: every ring */
	int no_round;
	struct dso_hits *hits;
	pthread_mutex_t *hits_lock;
	/* --off-cpu: its bpf-output event, whose samples go on rewritten
	 * as offcpu-time samples (off_cpu__rewrite(): from its attr's
	 * sample_type to its file_sample_type) */
	struct evsel *off_cpu;
};

/* Empties every forward ring: straight from the mapped pages into
 * sink->data (then a FINISHED_ROUND), and copies into the tracking log and
 * pending buffer as the sink asks. When the history cannot take a record
 * yet (its compressor is behind), the drain stops before it and sets
 * sink->behind and sink->first_ring: the rest stays in the rings for the
 * next call, given the same sink fields. Returns bytes drained or -errno. */
s64 drain__forward(struct evlist *evlist, struct drain_sink *sink, struct record_stats *st);

/* Adds what one record means to the stats (samples, LOST, sample times). */
void record_stats__account(struct record_stats *st, const struct perf_event_header *h,
			   u64 time);

#endif
