/* A flight-recorder dump: the capture buffers it keeps from dump to dump,
 * its options and counts, and the steps from capture to a complete file. */
#ifndef PERF_DUMP_H
#define PERF_DUMP_H

#include <limits.h>
#include "lib/buf.h"
#include "perfdata/data.h"
#include "buildid/dso-hits.h"
#include "flight/capture.h"
#include "perfdata/header.h"
#include "flight/history-stream.h"
#include "flight/merge.h"
#include "flight/prelude.h"
#include "flight/ring-copy.h"
#include "flight/stage-pipe.h"

struct evlist;
struct tracking;
struct writer_ops;

struct dump_opts {
	int keep_all;		/* --dump-window=all: no common-window trim */
	u64 margin;		/* bytes trimmed for records in flight during a copy */
	int monotonic;		/* samples carry CLOCK_MONOTONIC times (use_clockid) */
	int clockid_asked;	/* that clock was asked with -k (else no CLOCKID feature) */
	int last;		/* recording has ended: no later dump to defer records to */
	int comp_level;		/* -z: records as zstd COMPRESSED records (0: as they are) */
	u32 comp_mmap_len;	/* -z: the COMPRESSED feature's mmap_len */
	int buildid;		/* the BUILD_ID feature (0: -B) */
	int buildid_all;	/* --buildid-all */
	char buildid_dir[PATH_MAX];	/* the build-id cache to fill ("": -N) */
	struct dso_cache_budget *cache_budget;	/* the recording's, shared by its dumps */
	int history_slots;	/* --history: its rings (0: no history) */
};

/* What dumps did, one dump's or the sum over a session's: every field is
 * a count, so that sums are field by field. */
struct dump_stats {
	u64 dumps;
	u64 records;		/* written, tracking included */
	u64 samples;
	u64 kernel_lost;	/* from PERF_RECORD_LOST in the rings */
	u64 overwritten_bytes;	/* written by the kernel but overwritten before a dump */
	u64 overwritten_est;	/* the same in records, estimated from record sizes */
	u64 trimmed;		/* samples older than the common window */
	u64 deferred;		/* records left for the next dump (newer than the window) */
	u64 failed;
	u64 empty;		/* triggers with nothing new to dump */
	u64 prune_failed;	/* tracking could not be pruned (no memory): the cap still holds */
	u64 overlap;		/* records of a twin switch's overlap, in the ring dumped before */
};

void dump_stats__add(struct dump_stats *sum, const struct dump_stats *one);

/* One dump at a time: the capture buffers of every backward ring, made
 * when the rings are mapped, and what the capture hands to the write. The
 * capture runs on the recorder's loop; the write (index, window, prelude,
 * merge, file) may run on another thread, reading only what the capture
 * copied, while the loop goes on. */
struct dump {
	struct ring_copy *rc;
	int nr_rings;
	struct capture_crew *crew;	/* copies them all at once */
	const struct evlist *evlist;	/* attrs and features of the files */
	u64 id_sample_type;
	struct dump_opts opts;
	u64 memory;			/* capture buffers, their indexes, the merge's slices, the stages */
	/* handed over by the capture */
	struct buf fwd;			/* the tracking log, then the pending forward records */
	u64 log_len;
	char path[PATH_MAX];
	int keep_old;
	struct header_info info;
	const struct held_files *held;	/* the binaries the log maps, held open */
	int nr_held;			/* ... those of them this capture may use */
	struct buf bpf_prog_info, bpf_btf;	/* copies info points at */
	u64 captured_ns;		/* when the last ring was copied */
	u64 captured_bytes;
	u64 capture_ns;			/* trigger to every ring copied */
	struct history_take take;	/* --history: what it held (given back when written) */
	struct history_stream *hist;	/* each ring's share of it, read as the merge goes */
	struct history_scan scan;	/* the raw buffers' tasks */
	u64 *done;			/* per merge stream: records merged so far */
	u64 window;			/* the common window's start (0: none) */
	/* kept from dump to dump */
	struct perf_data ahead;		/* the next dump's file, opened and faulted in ahead */
	int ahead_err;			/* why it is not (0, -errno): the writer's */
	struct header_ahead feats_ahead;	/* the next dump's machine features */
	int feats_ready;		/* feats_ahead made, for the dumps that follow */
	struct prelude prelude;
	struct merge merge;
	struct stage_pipe pipe;		/* the records on their way to the file */
	/* what the dump did (the prelude's size is in prelude) */
	struct dump_stats st;
	u64 prepare_ns;			/* capture to index, window and prelude done */
	u64 write_ns;			/* capture to file in place */
	u64 file_bytes;
	u64 warm_bytes;			/* of them, written into pages faulted in ahead */
	int warm_err;			/* why there were none (0, -errno) */
	int no_features;		/* a full disk left no room for them */
	struct dso_hits_cache_stats cache;	/* the build-id cache, after the file is in place */
	u64 last_sample_time;
	int err;			/* 0, -ENODATA (no new sample: no file), -errno */
	char placed[PATH_MAX];		/* the name the file got (path, or path-N) */
	char errbuf[PATH_MAX + 256];
};

/* Memory the capture buffers of nr rings of data_bytes take, with the
 * stages a dump is written through and the merge's slices. */
u64 dump__memory(int nr, u64 data_bytes);
/* The capture buffers for every backward ring of evlist (mapped), faulted
 * in now. NULL with errno set; dump__delete() undoes a half-built one. */
struct dump *dump__new(const struct evlist *evlist, u64 id_sample_type,
		       const struct dump_opts *opts);
void dump__delete(struct dump *d);
/* Bytes written in the backward rings since the last capture. */
u64 dump__fresh_bytes(const struct dump *d);

/* The recorder's part: copies every backward ring, all at once (the
 * capture crew), before anything else, then the tracking log and pending (which is emptied), so
 * that the rest reads nothing the recorder goes on changing. With twin
 * events, the caller has switched them (evlist__switch_twins()), unless
 * this is the last dump, and the rings switched from are read where they
 * are: they stand still until the next capture, which waits for this
 * dump's write. trigger_ns:
 * when the dump was asked for (now_ns()). 0 or -errno with d->errbuf set.
 * With --history the caller then moves the history into d->take. */
int dump__capture(struct dump *d, const struct tracking *trk, struct buf *pending,
		  const char *path, int keep_old, const struct header_info *info,
		  u64 trigger_ns);
/* Readies the next dump: opens its file in path's directory, unless it
 * is open (it waits in d->ahead for that dump), and makes its features
 * that do not depend on the dump (the machine's, read from sysfs: too
 * slow to read at each dump), as the machine is now. 0 or -errno of the file, kept in
 * d->ahead_err too (the dump reports it); features that could not be
 * made are made by the dump. */
int dump__ready_next(struct dump *d, const char *path);
/* Faults as many bytes of the file opened ahead into the page cache as
 * the rings hold, until *stop (set by another thread). Runs while no dump
 * is written: dump__write() is then a copy into pages that are there, not
 * the making of each one. With -z the file is far smaller than the rings,
 * and made as it is written. 0 or -errno, which costs the next dump its
 * speed, nothing else. */
int dump__warm(struct dump *d, const int *stop);
/* Whether the next dump's file is made ahead, all of it: what is worth
 * reading through again while idle (dump__warm()). Not with -z, nor
 * where the making was refused or never ran (-r). */
int dump__ahead_made(const struct dump *d);
/* The rest of a captured dump: validates and indexes the copies, trims
 * them to the common window, selects the tracking prelude, and writes
 * prelude and samples merged in time order to d->path, created privately
 * and renamed into place. Sets d->err (0, -ENODATA when there was no new
 * sample and no file was written, -errno with d->errbuf), d->st,
 * d->placed, d->last_sample_time; returns d->err. */
int dump__write(struct dump *d);
/* For writer__start(): the writer writes a dump (dump__write()), readies
 * the next (dump__ready_next()) and makes its file ahead (dump__warm()). */
extern const struct writer_ops dump__writer_ops;

#endif
