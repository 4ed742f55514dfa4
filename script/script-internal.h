/* What the parts of perf script share: the run's state, -F's fields and
 * the functions one part calls in another. Private to script/. */
#ifndef PERF_SCRIPT_INTERNAL_H
#define PERF_SCRIPT_INTERNAL_H

#include "script/script.h"
#include "script/machine.h"
#include "perfdata/reader.h"
#include "lib/id-hash.h"

#include <traceevent/trace-seq.h>

/* libtraceevent reads a tracepoint's fields where the format says, and a
 * dynamic field where its u16 offset and length in the record say: the raw
 * data is copied into this much zeroed room so that no field of a hostile
 * record reaches past it (formats with fields beyond 64 KiB are refused). */
#define RAW_ROOM (4 * 65536)

struct script {
	const struct script_opts *o;
	FILE *out;
	struct perf_reader reader;
	struct comm_map *comms;
	struct id_hash cgroups;	/* cgroup id -> its path in a CGROUP record */
	struct id_hash read_prev;	/* READ samples: event id -> its last value (a u64) */
	struct trace_seq seq;
	unsigned char *raw;	/* RAW_ROOM bytes, zero beyond what is in use */
	u64 bad_id;		/* of the sample whose id no event has */
	const char *bad;	/* what is wrong with a malformed record */
	u64 fields;		/* -F: 1 << FIELD_*, 0 for the default lines */
	int name_width;		/* -F event: the longest event name */
	int data_src_width;	/* -F data_src: the widest one printed yet */
	struct dsos *dsos;	/* -F sym or dso: the DSOs and the maps to them */
	struct machine machine;
};

/* ---- -F: the fields the user names, in the stock perf's order and format ---- */

enum field {
	FIELD_COMM, FIELD_TID, FIELD_PID, FIELD_TIME, FIELD_CPU, FIELD_PERIOD, FIELD_EVENT,
	FIELD_TRACE, FIELD_ADDR, FIELD_DATA_SRC, FIELD_WEIGHT, FIELD_INS_LAT, FIELD_CGROUP,
	FIELD_IP, FIELD_IREGS, FIELD_UREGS, FIELD_PHYS_ADDR, FIELD_DATA_PAGE_SIZE,
	FIELD_CODE_PAGE_SIZE, FIELD_SYM, FIELD_DSO, FIELD_SYMOFF,
};

#define HAS(s, f) ((s)->fields & (1ULL << (f)))

/* fields.c */
const struct reader_evsel *script__type_leader(const struct script *s,
					       const struct reader_evsel *e);
/* -F's comma-separated names into s->fields; -EINVAL after one line. */
int script__parse_fields(struct script *s, const char *list);
/* Every event able to give each field asked for; -EINVAL after one line. */
int script__check_fields(struct script *s);

/* data-src.c: the value, then its words, in the stock perf's column. */
void script__print_data_src(struct script *s, u64 ds);

/* print.c */
void script__print_prefix(struct script *s, const struct reader_evsel *e, const char *comm,
			  u32 tid, u32 cpu, u64 time);
/* A tracepoint whose format the file holds and libtraceevent parsed. */
int script__decodable(const struct script *s, const struct reader_evsel *e);
void script__print_sample(struct script *s, const struct sample *smp);
void script__print_mmap(struct script *s, const struct perf_event_header *h,
			const struct reader_evsel *e, const struct sample_id *sid);
/* A READ sample: each count that grew, as a sample of its event. 0 or -ENOMEM. */
int script__print_read_sample(struct script *s, const struct sample *smp);

/* events.c: one record, in time order. 0, -EINVAL (s->bad says why),
 * -ENOENT (s->bad_id names no event) or -ENOMEM. */
int script__process(struct script *s, const struct perf_event_header *h);

#endif
