#ifndef PERF_RECORD_H
#define PERF_RECORD_H

#include <linux/perf_event.h>
#include "util/bpf-event.h"
#include "util/bpf-sideband.h"
#include "util/callchain.h"
#include "record/control.h"
#include "perfdata/data.h"
#include "record/drain.h"
#include "flight/dump.h"
#include "record/switch-output.h"
#include "util/target.h"
#include "flight/tracking.h"
#include "flight/history.h"
#include "flight/trigger.h"
#include "lib/util.h"
#include "flight/writer.h"

struct evlist;
struct evsel;
struct record;

/* What /proc synthesis describes (--synth): tasks (COMM, FORK), their
 * maps (MMAP2), cgroups (none here: the stock writes them for
 * --all-cgroups only). */
enum {
	SYNTH_TASK = 1,
	SYNTH_MMAP = 2,
	SYNTH_CGROUP = 4,
	SYNTH_ALL = SYNTH_TASK | SYNTH_MMAP | SYNTH_CGROUP,
};
#define DELAY_EDGES_MAX 64	/* -D: 32 ranges */

/* Everything the record command line asks for. */
struct record_opts {
	struct target target;
	int delay_ms;		/* -D: events start disabled (-1: until --control enable) */
	int nr_delay_edges;	/* -D MSECS or A-B,C-D: the times (ms after the workload */
	u32 delay_edges[DELAY_EDGES_MAX];	/* starts) to enable, disable, enable... */
	int timestamp_filename;	/* --timestamp-filename: OUTPUT.<timestamp> */
	int timestamp_boundary;	/* --timestamp-boundary: SAMPLE_TIME (always written) */
	u64 max_size;		/* --max-size: stop once the file holds this many bytes (0: no cap) */
	u64 mmap_flush;		/* --mmap-flush: the rings wait until one holds this many bytes */
	int comp_level;		/* -z: zstd level of the ring data (0: not compressed) */
	u32 comp_mmap_len;	/* -z: a ring's mmap length, the stock reader's room per record */
	int all_cgroups;	/* --all-cgroups: CGROUP in samples, PERF_RECORD_CGROUP records */
	int nr_cgroups;		/* -G names given so far, empty ones included */
	const char *output;
	int tail_synthesize;	/* --tail-synthesize: what exists is described at the end */
	unsigned int no_synth;	/* --synth: the SYNTH_* kinds left out (0: all) */
	u64 count;		/* -c: sample period (0: not given) */
	u64 freq;		/* -F: sample frequency (0: not given) */
	u64 mmap_bytes;		/* -m: data bytes per forward ring */
	u64 bwd_mmap_bytes;	/* data bytes per backward ring (--overwrite) */
	u64 wakeup_bytes;	/* forward rings wake the reader this full (0: half) */
	int callgraph;		/* -g: --call-graph fp */
	struct callchain_param call_graph;	/* --call-graph */
	int sample_address;	/* -d (and dwarf callchains) */
	int period;		/* -P: the period in every sample, even a fixed one */
	int raw_samples;	/* -R */
	int sample_cpu;		/* --sample-cpu */
	int sample_time;	/* -T: samples carry TIME anyway; accepted as perf does */
	int no_samples;		/* -n */
	int no_buffering;	/* --no-buffering: wake the reader on every sample */
	int no_bpf_event;	/* --no-bpf-event: no KSYMBOL/BPF_EVENT records */
	int user_callchains;	/* --user-callchains: callchains without kernel frames */
	int kernel_callchains;	/* --kernel-callchains: ... without user frames */
	int sample_weight;	/* -W */
	int sample_phys_addr;	/* --phys-data */
	int sample_data_page_size;	/* --data-page-size */
	int sample_code_page_size;	/* --code-page-size */
	u64 sample_intr_regs;	/* -I: sample_regs_intr (0: not asked) */
	u64 sample_user_regs;	/* --user-regs: sample_regs_user (0: not asked) */
	int inherit_stat;	/* -s: per-thread counts, READ records at exit */
	int running_time;	/* --running-time */
	int sample_identifier;	/* --sample-identifier */
	int use_clockid;	/* -k */
	int clockid;
	int switch_events;	/* --switch-events */
	int namespaces;		/* --namespaces */
	int freq_max;		/* -F max: the kernel's perf_event_max_sample_rate */
	int realtime_prio;	/* -r: SCHED_FIFO priority of the recorder (0: none) */
	u64 proc_map_timeout;	/* --proc-map-timeout, ms */
	int dry_run;		/* --dry-run: configure, open nothing */
	int no_buildid;		/* -B */
	int no_buildid_cache;	/* -N: there is no build-id cache to update: accepted */
	int buildid_all;	/* --buildid-all: every synthesized map has its build id anyway */
	int buildid_mmap;	/* --buildid-mmap: build ids in the kernel's MMAP2 records */
	int no_inherit;
	int group;		/* --group: every -e event in one group */
	int all_user;		/* --all-user: exclude_kernel on every event */
	int all_kernel;		/* --all-kernel: exclude_user on every event */
	int quiet;
	int verbose;
	int overwrite;		/* --overwrite, or --history: the flight recorder */
	u64 history_size;	/* --history: bytes of compressed history (0: none) */
	int history_level;	/* --history: its zstd level */
	int workload;		/* a command was given */
	int per_task;		/* events follow the workload's pid (no -a/-C) */
};

/* -D: MSECS, -1, or ranges A-B,C-D,... (ms, increasing) into opts. 0 or
 * -EINVAL. */
int record__parse_delay(struct record_opts *opts, const char *arg);

/* Parses perf record's command line into rec (util/record-options.c):
 * every option, then what they mean together (targets, ring sizes,
 * triggers). 0 to go on, with *argc the number of workload words left at
 * the start of argv; otherwise perf's exit code after saying why (129), or
 * -1 after -h (which exits 0). */
int record__parse_options(struct record *rec, int *argc, const char **argv);

/* Fills every event's attr from the options (sample_type, period/freq,
 * inherit, enable_on_exec, write_backward) and appends the dummy tracking
 * event. 0 or -errno with errbuf set. */
int record__config(struct evlist *evlist, const struct record_opts *opts,
		   char *errbuf, size_t errsz);

/* After record__config(): the sample_id trailer of the tracking records,
 * and the fields every sample starts with (event__time()). */
u64 record__id_sample_type(const struct evlist *evlist);

/* One perf record run: what builtin-record.c sets up and loops over, and
 * the steps of its loop (util/record.c). */
#define TRACKING_MAX_DEFAULT (64ULL << 20)
#define PENDING_MAX_DEFAULT (64ULL << 20)
#define DUMP_MARGIN (32 << 10)	/* room for records in flight while a ring is copied */

struct record {
	struct record_opts opts;
	struct evlist *evlist;
	struct perf_data data;		/* normal mode: the file being written */
	struct record_stats stats;
	struct workload workload;
	struct tracking tracking;	/* tasks and maps, for dumps and rotated files */
	struct bpf_progs bpf;		/* the BPF programs seen load (not with --no-bpf-event) */
	struct bpf_sideband bpf_sb;	/* wakes the loop when one loads */
	int keep_tracking;
	struct buf pending;		/* overwrite mode: forward-ring samples for the next dump */
	u64 pending_max;		/* its cap: the oldest half goes beyond it */
	u64 pending_dropped;		/* records dropped for that cap */
	int drain_behind;		/* the last drain left records the history could not take */
	int drain_first;		/* in drain_first's ring: the next drain starts there */
	struct switch_output so;
	const char *switch_event;	/* --switch-output-event */
	struct evsel *switch_evsel;
	struct trigger trigger;		/* asked-for switches: delay, rate limit, the pending one */
	u64 switch_base;		/* normal mode: data_size when this file's own data began */
	u64 next_switch;		/* SWITCH_TIME deadline, ns */
	u64 delay_base;			/* -D: when the workload started, ns (0: no plan to follow) */
	int delay_edge;			/* -D: the next of opts.delay_edges */
	int files;
	int write_failed;		/* normal mode: the file could take no more */
	u64 tracking_max;
	struct dump_opts dump_opts;
	struct dump_stats dump_stats;	/* every dump's, summed */
	u64 prelude_max;		/* the biggest prelude of one dump, in records */
	struct dump *dump;		/* overwrite mode: the capture buffers */
	struct history *history;	/* --history: forward records kept compressed */
	struct writer writer;		/* writes dumps off the loop */
	u64 trigger_ns;			/* when the pending switch became due */
	const char *control_spec;
	struct control control;
	int acks_owed;			/* control commands answered once their switch is done */
	int acks_in_flight;		/* ... and those the dump being written will answer */
	int sig_fd;
	int argc;
	const char **argv;
	char err[1024];
};

/* The records describing what already exists (kernel map, watched tasks):
 * to the file in normal mode, to the tracking log when one is kept. */
int record__synthesize(struct record *rec);	/* 0 or -errno, said */
/* Normal mode: creates the output file and writes prelude (the records
 * that make it stand alone); a size trigger counts what comes after.
 * 0 or -errno, reported. */
int record__start_file(struct record *rec, const void *prelude, size_t len);
/* Empties the forward rings into the file / tracking log / pending buffer.
 * Bytes drained or -errno; asks for a switch on a trigger event. */
s64 record__drain(struct record *rec);
/* The same, in the loop: nothing until a ring holds --mmap-flush bytes. */
s64 record__drain_ready(struct record *rec);
/* Normal mode: finishes the current file under its final name (with what
 * was written so far, after a write error too). */
int record__finish_file(struct record *rec, int announce);
/* Flight recorder: one dump of every ring, written before it returns (the
 * last one). 0, -ENODATA when there was nothing new (said, not an error),
 * or -errno: reported and counted. */
int record__dump(struct record *rec);
/* Flight recorder: a dump the writer has finished (from writer__reap()):
 * says how it went, answers the commands it served, counts it, and prunes
 * the tracking log. Its error, or 0. */
int record__dump_done(struct record *rec, struct dump *d);
/* A trigger somebody asked for (signal, control, event): one switch,
 * however many ask, due after --switch-output-delay, unless over
 * --switch-output-max-rate (said, counted and dropped). Whether a switch
 * will answer it: 0 when it was dropped. */
int record__ask_switch(struct record *rec);
/* Is a switch due now: an asked-for one whose delay is over, or a size or
 * time trigger? Never while the writer is busy with a dump. */
int record__switch_due(struct record *rec);
/* Answers *acks control commands (and zeroes the count). */
void record__send_acks(struct record *rec, int *acks);
/* A --switch-output trigger fired: rotate the file, or capture the rings
 * and hand the dump to the writer (which must be free). 0, or -errno when
 * recording cannot go on. */
int record__switch(struct record *rec);
/* Has a size trigger's worth of data come in since the last switch? */
int record__size_reached(struct record *rec);

/* Files are named OUTPUT.<timestamp> (--switch-output, --timestamp-filename). */
static inline int record__timestamped(const struct record *rec)
{
	return rec->so.kind != SWITCH_NONE || rec->opts.timestamp_filename;
}

#endif
