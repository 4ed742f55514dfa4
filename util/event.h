/* The records of the kernel's ring and of perf.data: perf's own record
 * types, the sample_id trailer, and how to build and read them. */
#ifndef PERF_EVENT_H
#define PERF_EVENT_H

#include <linux/perf_event.h>
#include "lib/buf.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#define BUILD_ID_SIZE 20

/* The record types perf itself writes into a file, beside the kernel's:
 * they mark rounds and, in pipe mode (-o -), carry what a file's header
 * sections would hold. Every layer that walks records needs them. */
enum {
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_FEATURE = 80,
	/* the rest of perf 6.1's: its own tools write them (stat, inject,
	 * AUX area tracing), a reader meets them in the stock's files */
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
};

/* What a PERF_RECORD_EVENT_UPDATE says of the event its id names: after
 * {type, id} comes a NUL-ended string (UNIT, NAME) or a double (SCALE). */
enum event_update_type {
	EVENT_UPDATE_UNIT = 0,
	EVENT_UPDATE_SCALE = 1,
	EVENT_UPDATE_NAME = 2,
};

/* The flight recorder's samples start IDENTIFIER, IP, TID, TIME (see
 * record__config()), so a dump finds their time without decoding the rest. */
#define SAMPLE_TIME_OFFSET (sizeof(struct perf_event_header) + 3 * sizeof(u64))
/* and their pid (the TID field's first half) right before */
#define SAMPLE_PID_OFFSET (sizeof(struct perf_event_header) + 2 * sizeof(u64))

/* Where the TIME field of a sample is when its sample_type has TIME (every
 * event of a recording shares the fields before it). */
static inline size_t sample__time_offset(u64 sample_type)
{
	return sizeof(struct perf_event_header) + sizeof(u64) *
	       (!!(sample_type & PERF_SAMPLE_IDENTIFIER) + !!(sample_type & PERF_SAMPLE_IP) +
		!!(sample_type & PERF_SAMPLE_TID));
}

/* How far before a record's end the TIME of its sample_id trailer is:
 * TIME is followed by ID, STREAM_ID, CPU and IDENTIFIER, as present. */
static inline size_t sample_id__time_back(u64 sample_type)
{
	return sizeof(u64) * (1 + !!(sample_type & PERF_SAMPLE_ID) +
			      !!(sample_type & PERF_SAMPLE_STREAM_ID) +
			      !!(sample_type & PERF_SAMPLE_CPU) +
			      !!(sample_type & PERF_SAMPLE_IDENTIFIER));
}

/* Where a sample's event id is: IDENTIFIER comes first; ID (used when every
 * event has the same layout) after IP, TID, TIME and ADDR. */
static inline size_t sample__id_offset(u64 sample_type)
{
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		return sizeof(struct perf_event_header);
	return sizeof(struct perf_event_header) + sizeof(u64) *
	       (!!(sample_type & PERF_SAMPLE_IP) + !!(sample_type & PERF_SAMPLE_TID) +
		!!(sample_type & PERF_SAMPLE_TIME) + !!(sample_type & PERF_SAMPLE_ADDR));
}

/* Can a record of this size start with room bytes left (ring or file)? Records
 * are 8-byte aligned and at least a header long; anything else is corrupt. */
static inline int event__size_ok(u16 size, u64 room)
{
	return size >= sizeof(struct perf_event_header) && !(size % 8) && size <= room;
}

/* Whether h is a PERF_RECORD_LOST with its count (id, then lost), and
 * that count in *lost. */
static inline int event__lost(const struct perf_event_header *h, u64 *lost)
{
	if (h->type != PERF_RECORD_LOST || h->size < sizeof(*h) + 16)
		return 0;
	__builtin_memcpy(lost, (const char *)h + sizeof(*h) + 8, sizeof(*lost));
	return 1;
}

/* The fields every record ends with under sample_id_all. */
struct sample_id {
	u32 pid, tid;
	u64 time;
	u64 id;
	u32 cpu;
};

/* Builds one record in b: begin() reserves the header, end() appends the
 * sample_id trailer for sample_type, pads to 8 bytes and fills the header.
 * Returns the record's size (0 after a buffer error). */
size_t event__begin(struct buf *b, u32 type, u16 misc);
size_t event__end(struct buf *b, size_t start, u64 sample_type, const struct sample_id *sid);

/* The bytes of a sample_id trailer laid out as sample_type says. */
size_t event__id_size(u64 sample_type);

/* The kernel over-sizes KSYMBOL and BPF_EVENT records when several events
 * take them (two recorders at once): serving one event after another, it
 * adds each one's trailer size to the same header, so a record says it
 * also holds the trailers of the events served before its own. What it
 * writes is the body, its own trailer right after, then whatever the ring
 * held there before. These are the record's true bounds. */

/* Where a KSYMBOL or BPF_EVENT record's body ends, in bytes from its
 * header; 0 for other records, or a body that does not say where it ends
 * (reads no further than the name's NUL, for a KSYMBOL). */
size_t event__body_end(const struct perf_event_header *h);
/* The size a record should have with a trailer laid out as sample_type
 * says: a KSYMBOL or BPF_EVENT's body and one trailer, where the record is
 * longer; h->size for any other record. */
u16 event__real_size(const struct perf_event_header *h, u64 sample_type);
/* Sets h->size to event__real_size(): the bytes after it are stale ring
 * data, to be left out of any copy. Returns the bytes cut off. */
u16 event__trim(struct perf_event_header *h, u64 sample_type);

/* Parses the sample_id trailer of a non-sample record (a KSYMBOL's or
 * BPF_EVENT's after its body, see above); 0 or -EINVAL. */
int event__parse_id(const struct perf_event_header *h, u64 sample_type, struct sample_id *sid);
/* The same, for a trailer that ends end bytes into the record rather than
 * at its end (end <= h->size; -EINVAL otherwise). */
int event__parse_id_before(const struct perf_event_header *h, size_t end, u64 sample_type,
			   struct sample_id *sid);

/* Sets the TIME of a non-sample record's sample_id trailer, laid out as
 * sample_type says (placed as event__parse_id() reads it). 0, or -EINVAL
 * without TIME or for a record too short. */
int event__set_time(struct perf_event_header *h, u64 sample_type, u64 time);

/* The time of any record this tool's events produce: a sample's TIME field,
 * or the sample_id trailer's, both laid out as id_sample_type says (its
 * IDENTIFIER, IP and TID bits place a sample's TIME). 0 for a record too
 * short to have one, or without TIME (synthesized records have 0 too). */
u64 event__time(const struct perf_event_header *h, u64 id_sample_type);

const char *event__type_name(u32 type);

/* Drops whole records from the front of b (a log of records, oldest first)
 * until at most keep bytes remain; a bounded log keeps its newest half
 * this way, one memmove per cut rather than one per record. Returns the
 * number of records dropped. */
u64 event__cut_oldest(struct buf *b, size_t keep);

#endif
