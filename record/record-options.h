/* perf record's command line: struct record_opts, what the options ask
 * for, and the parser that fills it and the rest of struct record. */
#ifndef PERF_RECORD_OPTIONS_H
#define PERF_RECORD_OPTIONS_H

#include "util/callchain.h"
#include "util/target.h"
#include "lib/util.h"

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
	u64 aux_mmap_bytes;	/* -m ,AUX: an AUX area's bytes (no AUX event here: unused) */
	int strict_freq;	/* --strict-freq: -F above the kernel's maximum fails */
	int transaction;	/* --transaction: no event here has the flags: unused */
	u64 aio;		/* --aio: control blocks (writes are synchronous here) */
	u64 synth_threads;	/* --num-thread-synthesize (the /proc scan is one thread) */
	const char *clang_opt;	/* --clang-opt: for BPF C events, which this perf has none of */
	const char *clang_path;	/* --clang-path: the same */
	const char *vmlinux;	/* --vmlinux: the running kernel's image, checked against it */
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
	u64 buildid_cache_max;	/* --buildid-cache-max (0: DSO_CACHE_BUDGET) */
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
	const char *threads_spec;	/* --threads[=spec] ("": cpu); NULL: none */
	int off_cpu;		/* --off-cpu: offcpu-time samples from BPF */
	u64 off_cpu_thresh_ms;	/* --off-cpu-thresh: blocks this long go out whole */
};

/* -D: MSECS, -1, or ranges A-B,C-D,... (ms, increasing) into opts. 0 or
 * -EINVAL. */
int record__parse_delay(struct record_opts *opts, const char *arg);

/* Parses perf record's command line into rec: every option, then what
 * they mean together (targets, ring sizes, triggers). 0 to go on, with
 * *argc the number of workload words left at the start of argv; otherwise
 * perf's exit code after saying why (129), or -1 after -h (which exits
 * 0). */
int record__parse_options(struct record *rec, int *argc, const char **argv);

#endif
