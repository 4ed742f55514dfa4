/* struct record, one perf record run, and the steps its loop takes: the
 * drain, the file in normal mode and its rotation, the dumps. */
#ifndef PERF_RECORD_H
#define PERF_RECORD_H

#include <limits.h>
#include <linux/perf_event.h>
#include "util/bpf-event.h"
#include "util/bpf-sideband.h"
#include "record/control.h"
#include "perfdata/data.h"
#include "record/drain.h"
#include "record/record-config.h"
#include "record/record-options.h"
#include "flight/dump.h"
#include "record/switch-output.h"
#include "record/switch-output-when.h"
#include "record/post-dump.h"
#include "flight/tracking.h"
#include "flight/history.h"
#include "flight/trigger.h"
#include "lib/util.h"
#include "flight/writer.h"

struct drain_threads;
struct off_cpu;
struct evlist;
struct evsel;
struct record;

/* One perf record run: what builtin-record.c sets up and loops over, and
 * the steps of its loop (record/record.c). */
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
	struct buf kernel_map;		/* the kernel's MMAP, read before tracking starts */
	u64 pending_max;		/* its cap: the oldest half goes beyond it */
	u64 pending_dropped;		/* records dropped for that cap */
	int drain_behind;		/* the last drain left records the history could not take */
	int drain_first;		/* in drain_first's ring: the next drain starts there */
	struct switch_output so;
	const char *switch_event;	/* --switch-output-event */
	struct evsel *switch_evsel;
	struct switch_when when;	/* --switch-output-when: its conditions, event, programs */
	struct trigger trigger;		/* asked-for switches: delay, rate limit, the pending one */
	u64 switch_base;		/* normal mode: data_size when this file's own data began */
	u64 next_switch;		/* SWITCH_TIME deadline, ns */
	u64 delay_base;			/* -D: when the workload started, ns (0: no plan to follow) */
	int delay_edge;			/* -D: the next of opts.delay_edges */
	int files;
	int write_failed;		/* normal mode: the file could take no more */
	int status;			/* the exit status a refusal in set-up asks for (the stock's); 0: 1 */
	u64 tracking_max;
	struct dump_opts dump_opts;
	struct dso_cache_budget cache_budget;	/* --buildid-cache-max: all files' and dumps' */
	struct dump_stats dump_stats;	/* every dump's, summed */
	u64 prelude_max;		/* the biggest prelude of one dump, in records */
	struct dump *dump;		/* overwrite mode: the capture buffers */
	struct history *history;	/* --history: forward records kept compressed */
	struct writer writer;		/* writes dumps off the loop */
	struct drain_threads *threads;	/* --threads: the rings' drain threads (NULL: none) */
	struct off_cpu *off_cpu;	/* --off-cpu: the BPF program (NULL: none) */
	struct evsel *off_cpu_evsel;	/* ... and its event, offcpu-time */
	struct post_dump post_dump;	/* --switch-output-exec */
	const char *state_path;		/* --switch-output-state (NULL: none) */
	u64 state_next_ns;		/* its next write may be then, not before */
	int state_dirty;		/* something it says changed since it was written */
	int state_failed;		/* its last write failed (said once) */
	const char *asked_why;		/* what asked for the pending switch: signal, control, ... */
	const char *switch_why;		/* ... and for the switch in hand (static strings) */
	u64 triggers_merged;		/* asked while a switch was pending: served by that one */
	char *last_dump;		/* the last file placed (NULL: none yet) */
	u64 last_dump_time;		/* ... when, ns of CLOCK_REALTIME */
	u64 trigger_ns;			/* when the pending switch became due */
	u64 when_ns;			/* --switch-output-when: the pending switch's span ended then */
	const char *control_spec;
	struct control control;
	struct control_acks acks_owed;	/* control commands answered once their switch is done */
	struct control_acks acks_in_flight; /* ... and those the dump being written will answer */
	char placed[PATH_MAX];		/* the file the switch in hand placed; "" until then */
	char why_none[PATH_MAX + 512];	/* ... or why it placed none */
	int sig_fd;
	int stop_signo;		/* the SIGINT, SIGTERM or SIGHUP that stopped it; 0 if none */
	int argc;
	const char **argv;
	char err[1024];
};

/* The records describing what already exists (kernel map, watched tasks):
 * to the file in normal mode, to the tracking log when one is kept. */
int record__synthesize(struct record *rec);	/* 0 or -errno, said */
/* The kernel's map, for record__synthesize, read before tracking starts:
 * /proc/kallsyms takes long on a busy machine, and where the tracking
 * event samples too (-p, -t) its rings would fill meanwhile with nobody
 * to empty them. The map does not change while perf runs. 0 or -errno,
 * said. */
int record__read_kernel_map(struct record *rec);
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
/* Normal mode, recording over (err: the loop's): the last drain, then the
 * file finished with whatever it holds, after a write error too. The
 * error that loses data: a file that could not be finished. */
int record__end_file(struct record *rec, int err);
/* Flight recorder, recording over (err: the loop's): the dump in progress
 * is finished, then one last dump. err, or else the last dump's error
 * (none when it had nothing new). */
int record__last_dump(struct record *rec, int err);
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
 * --switch-output-max-rate (said, counted and dropped). WHY (a static
 * string: signal, control, event, when) is what a post-dump run is told
 * caused the dump. Whether a switch will answer it: 0 when it was
 * dropped. */
int record__ask_switch(struct record *rec, const char *why);
/* Is a switch due now: an asked-for one whose delay is over, or a size or
 * time trigger? Never while the writer is busy with a dump. */
int record__switch_due(struct record *rec);
/* Answers the control commands of ACKS (and empties it) with the file
 * the switch in hand placed, or why it placed none (rec->why_none, else
 * WHY). */
void record__send_acks(struct record *rec, struct control_acks *acks, const char *why);
/* --switch-max-files-earlier: the files of earlier runs of this output
 * are counted (and the oldest beyond the bound deleted). 0 or -errno,
 * said. */
int record__adopt_earlier(struct record *rec);
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
