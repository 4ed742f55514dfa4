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
	struct switch_output so;
	const char *switch_event;	/* --switch-output-event */
	struct evsel *switch_evsel;
	int switch_pending;
	u64 next_switch;		/* SWITCH_TIME deadline, ns */
	int files;
	u64 tracking_max;
	struct dump_opts dump_opts;
	struct dump_stats dump_stats;
	const char *control_spec;
	struct control control;
	int sig_fd;
	int argc;
	const char **argv;
	char err[1024];
};

/* The records describing what already exists (kernel map, watched tasks):
 * to the file in normal mode, to the tracking log when one is kept. */
int record__synthesize(struct record *rec);
/* Empties the forward rings into the file / tracking log / pending buffer.
 * Bytes drained or -errno; sets rec->switch_pending on a trigger event. */
s64 record__drain(struct record *rec);
/* Normal mode: finishes the current file under its final name. */
int record__finish_file(struct record *rec, int announce);
/* Flight recorder: one dump of every ring; errors are reported, recording goes on. */
int record__dump(struct record *rec);
/* A --switch-output trigger fired: dump (overwrite) or rotate the file. */
int record__switch(struct record *rec);
/* Has a size trigger's worth of data come in since the last switch? */
int record__size_reached(struct record *rec);

#endif
