/* What the parts of perf script share: the run's state, -F's fields and
 * the functions one part calls in another. Private to script/. */
#ifndef PERF_SCRIPT_INTERNAL_H
#define PERF_SCRIPT_INTERNAL_H

#include "script/script.h"
#include "script/machine.h"
#include "script/filter.h"
#include "script/time-filter.h"
#include "perfdata/reader.h"
#include "lib/id-hash.h"

#include <traceevent/trace-seq.h>

/* libtraceevent reads a tracepoint's fields where the format says, and a
 * dynamic field where its u16 offset and length in the record say: the raw
 * data is copied into this much zeroed room so that no field of a hostile
 * record reaches past it (formats with fields beyond 64 KiB are refused). */
#define RAW_ROOM (4 * 65536)

/* ---- -F: the fields the user names, in the stock perf's order and format ---- */

enum field {
	FIELD_COMM, FIELD_TID, FIELD_PID, FIELD_TIME, FIELD_CPU, FIELD_PERIOD, FIELD_EVENT,
	FIELD_TRACE, FIELD_ADDR, FIELD_DATA_SRC, FIELD_WEIGHT, FIELD_INS_LAT, FIELD_CGROUP,
	FIELD_IP, FIELD_IREGS, FIELD_UREGS, FIELD_PHYS_ADDR, FIELD_DATA_PAGE_SIZE,
	FIELD_CODE_PAGE_SIZE, FIELD_SYM, FIELD_DSO, FIELD_SYMOFF,
	/* the stock's other names: what this perf's files cannot hold prints
	 * nothing, as the stock prints nothing for it on them */
	FIELD_MISC, FIELD_FLAGS, FIELD_BRSTACK, FIELD_BRSTACKSYM, FIELD_BRSTACKOFF,
	FIELD_CALLINDENT, FIELD_SYNTH, FIELD_METRIC, FIELD_IPC, FIELD_MACHINE_PID, FIELD_VCPU,
	FIELD_BPF_OUTPUT,
	/* refused: data this perf script does not read */
	FIELD_SRCLINE, FIELD_SRCCODE, FIELD_BRSTACKINSN, FIELD_BRSTACKINSNLEN, FIELD_INSN,
	FIELD_INSNLEN, FIELD_TOD,
	FIELD_NR
};

/* The stock perf's output types: an event's type decides what it prints. */
enum output_type {
	OUT_HW, OUT_SW, OUT_TRACE, OUT_HW_CACHE, OUT_RAW, OUT_BREAK, OUT_SYNTH, OUT_OTHER,
	OUTPUT_TYPES
};

#define F_(f) (1ULL << (FIELD_##f))
#define HAS(s, f) ((s)->cur & (1ULL << (f)))

struct pprof_convert;

struct script {
	const struct script_opts *o;
	const char *who;	/* the command, opening its messages */
	FILE *out;
	struct perf_reader reader;
	struct comm_map *comms;
	struct id_hash cgroups;	/* cgroup id -> its path in a CGROUP record */
	struct id_hash read_prev;	/* READ samples: event id -> its last value (a u64) */
	struct trace_seq seq;
	unsigned char *raw;	/* RAW_ROOM bytes, zero beyond what is in use */
	u64 bad_id;		/* of the sample whose id no event has */
	const char *bad;	/* what is wrong with a malformed record */
	int name_width;		/* event: the longest event name */
	int data_src_width;	/* -F data_src: the widest one printed yet */
	struct dsos *dsos;	/* -F sym or dso: the DSOs and the maps to them */
	struct machine machine;
	/* what each output type shows (1 << FIELD_*), as the stock decides
	 * it: its defaults, -F's changes, less what its first event lacks */
	u64 shows[OUTPUT_TYPES];
	u64 user_set[OUTPUT_TYPES];	/* -F without a type: fields it must have */
	int user_typed[OUTPUT_TYPES];	/* -F TYPE:... set it */
	int use_callchain;	/* a callchain under each sample that has one */
	int symbols;		/* some type prints sym or dso: the maps are kept */
	u64 cur;		/* shows[] of the sample being printed: HAS() */
	struct script_filter comm_filter, pid_filter, tid_filter, cpu_filter;
	struct time_filter time_filter;	/* --time */
	/* perf data convert --to-pprof: each sample goes into a profile,
	 * nothing is printed (pprof-convert.c) */
	struct pprof_convert *conv;
};

/* script.c */
/* The records of s->o->input in time order, each printed (or, with
 * s->conv, converted) or taken in: 0 or -errno, said on s->o->msg.
 * script__exit() frees what it took, whatever it returned. */
int script__read(struct script *s);
void script__exit(struct script *s);
/* No -i: standard input when it is a pipe, else perf.data. */
const char *script__default_input(void);


/* fields.c */
enum output_type script__output_type(const struct perf_event_attr *a);
const struct reader_evsel *script__type_leader(const struct script *s,
					       const struct reader_evsel *e);
/* The stock's defaults into s->out. */
void script__default_fields(struct script *s);
/* One -F argument ([type:]list, +field/-field) applied to s->out, with the
 * stock's warnings; -EINVAL after its one-line error. */
int script__parse_fields(struct script *s, const char *arg);
/* Each type's first event able to give its fields: those it lacks left
 * out of a default, -EINVAL after one line for one asked for. */
int script__check_fields(struct script *s);

/* The defaults, every -F and the checks: 0, or after one line -EDOM (a
 * bad -F: the stock's usage error) or -ENOTSUP (a field the events
 * cannot give). */
int script__setup_fields(struct script *s);
/* Frees what the filters of script__setup_fields() hold. */
void script__exit_filters(struct script *s);

/* data-src.c: the value, then its words, in the stock perf's column. */
void script__print_data_src(struct script *s, u64 ds);

/* print.c */
/* What opens a line: a sample's or another record's task, CPU and time. */
struct script_start {
	const char *comm;	/* NULL: never named */
	u32 pid, tid, cpu;
	u64 time;
	u16 misc;
	u32 type;		/* PERF_RECORD_* */
};

/* The opening columns of the type of e, as its fields say; sets s->cur. */
void script__print_start(struct script *s, const struct reader_evsel *e,
			 const struct script_start *st);
/* A tracepoint whose format the file holds and libtraceevent parsed. */
int script__decodable(const struct script *s, const struct reader_evsel *e);
void script__print_sample(struct script *s, const struct sample *smp);
/* An MMAP or MMAP2 after its opening columns. */
void script__print_mmap(struct script *s, const struct perf_event_header *h);
/* A READ sample: each count that grew, as a sample of its event. 0 or -ENOMEM. */
int script__print_read_sample(struct script *s, const struct sample *smp);

/* A callchain's context marker: whose addresses follow, in *cpumode
 * (guests' are not resolved). 0 for a marker of no known context. */
int script__chain_context(u64 ip, u32 *cpumode);

/* pprof-convert.c: a sample into the profile. 0 or -ENOMEM. */
int pprof_convert__sample(struct script *s, const struct sample *smp);

/* events.c: one record, in time order. 0, -EINVAL (s->bad says why),
 * -ENOENT (s->bad_id names no event) or -ENOMEM. */
int script__process(struct script *s, const struct perf_event_header *h);

#endif
