#ifndef PERF_RECORD_SESSION_H
#define PERF_RECORD_SESSION_H

#include "util/control.h"
#include "util/data.h"
#include "util/dump.h"
#include "util/record.h"
#include "util/switch-output.h"
#include "util/tracking.h"

/* One perf record run: what builtin-record.c sets up and loops over, and
 * what util/record-output.c writes out. */
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
	int keep_tracking;
	struct buf pending;		/* overwrite mode: forward-ring samples for the next dump */
	u64 pending_max;		/* its cap: the oldest half goes beyond it */
	u64 pending_dropped;		/* records dropped for that cap */
	struct switch_output so;
	const char *switch_event;	/* --switch-output-event */
	struct evsel *switch_evsel;
	int switch_pending;		/* one switch, however many triggers asked */
	u64 switch_base;		/* normal mode: data_size when this file's own data began */
	u64 next_switch;		/* SWITCH_TIME deadline, ns */
	int files;
	int write_failed;		/* normal mode: the file could take no more */
	u64 tracking_max;
	struct dump_opts dump_opts;
	struct dump_stats dump_stats;
	const char *control_spec;
	struct control control;
	int acks_owed;			/* control commands answered once their switch is done */
	int sig_fd;
	int argc;
	const char **argv;
	char err[1024];
};

/* The records describing what already exists (kernel map, watched tasks):
 * to the file in normal mode, to the tracking log when one is kept. */
int record__synthesize(struct record *rec);
/* Normal mode: creates the output file and writes prelude (the records
 * that make it stand alone); a size trigger counts what comes after.
 * 0 or -errno, reported. */
int record__start_file(struct record *rec, const void *prelude, size_t len);
/* Empties the forward rings into the file / tracking log / pending buffer.
 * Bytes drained or -errno; sets rec->switch_pending on a trigger event. */
s64 record__drain(struct record *rec);
/* Normal mode: finishes the current file under its final name (with what
 * was written so far, after a write error too). */
int record__finish_file(struct record *rec, int announce);
/* Flight recorder: one dump of every ring. 0, -ENODATA when there was
 * nothing new (said, not an error), or -errno: reported and counted, and
 * recording goes on. */
int record__dump(struct record *rec);
/* A --switch-output trigger fired: dump (overwrite) or rotate the file. */
int record__switch(struct record *rec);
/* Has a size trigger's worth of data come in since the last switch? */
int record__size_reached(struct record *rec);

#endif
