#ifndef PERF_READER_H
#define PERF_READER_H

#include "util/header.h"
#include "util/id-hash.h"

struct tep_handle;

struct reader_evsel {
	struct perf_event_attr attr;
	char *name;
	const u64 *ids;
	u64 nr_ids;
};

/* A perf.data mapped read-only and checked: every offset and size read from
 * it lies inside the file before anything uses it. */
struct perf_reader {
	int fd;
	const char *map;
	size_t size;
	struct perf_file_header hdr;
	struct reader_evsel *evsels;
	int nr_evsels;
	u64 id_sample_type;	/* the sample_id layout all events share */
	struct tep_handle *tep;	/* from TRACING_DATA, or NULL */
	struct id_hash ids;		/* id -> its reader_evsel */
};

/* The decoded fields of one PERF_RECORD_SAMPLE. */
struct sample {
	const struct reader_evsel *evsel;
	u64 id, ip, time, period;
	u32 pid, tid, cpu;
	u64 nr_callchain;
	const u64 *callchain;
	u32 raw_size;
	const void *raw;
};

/* Opens and validates path. 0, or -errno / -EINVAL with one line in err
 * saying what is wrong with the file. reader__close() undoes a partial open. */
int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz);
void reader__close(struct perf_reader *r);

/* Calls cb for each record of the data section in file order, each one
 * checked for size, alignment and bounds first. Returns 0, -EINVAL (with
 * err set to the offset and the problem), or cb's non-zero return. */
typedef int (*reader_cb)(struct perf_reader *r, const struct perf_event_header *h,
			 u64 offset, void *arg);
int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz);

/* The event a record belongs to: with one event or id 0 the first one (as
 * the stock perf), NULL when no event has that id. */
const struct reader_evsel *reader__evsel(const struct perf_reader *r, u64 id);
/* Decodes a sample against its event's sample_type. 0, -EINVAL, or -ENOENT
 * when its id is no event's (s->id says which). */
int reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *h,
			 struct sample *s);
/* The time of any record (sample or sample_id trailer), 0 if it has none. */
u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h);

/* Where a feature's body is in the file (reader__open() checked that it
 * is), or NULL if absent. */
const void *reader__feature(const struct perf_reader *r, int feat, u64 *size);

#endif
