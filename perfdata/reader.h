/* The perf.data reader: a file read and checked as hostile input, its
 * records walked in file order, samples and sample_id trailers decoded. */
#ifndef PERF_READER_H
#define PERF_READER_H

#include "util/event.h"
#include "perfdata/header.h"
#include "lib/id-hash.h"
#include "util/tp.h"

struct tep_handle;
struct decompressor;

/* Records that are not where map has them: decompressed out of
 * COMPRESSED records, or copied from an offset that is not 8-aligned
 * (the stock perf does not pad COMPRESSED records). Kept until the reader
 * closes, as callers hold on to the records. */
struct reader_chunk {
	char *p;
	size_t len;
	u64 off;	/* the file offset of the record they came from */
};

struct reader_evsel {
	struct perf_event_attr attr;
	char *name;
	const u64 *ids;
	u64 nr_ids;
	u64 id_type;	/* the fields of its records' sample_id trailer */
};

/* A perf.data read and checked: every offset and size read from it lies
 * inside the file before anything uses it. */
struct perf_reader {
	const char *map;	/* the file's bytes as they were when opened: a copy */
	size_t size;
	struct perf_file_header hdr;
	struct reader_evsel *evsels;
	int nr_evsels;
	/* Where a record's event id is when there are several events: the
	 * u64 index after a sample's header, and the u64 count from the end
	 * of another record's trailer. Every event has it at the same place
	 * (the stock perf refuses a file where they differ), so the id says
	 * whose layout the rest of the record has. */
	int id_pos, is_pos;
	struct tep_handle *tep;	/* from TRACING_DATA, or NULL */
	struct tp_formats formats;	/* what became of TRACING_DATA's formats */
	struct id_hash ids;		/* id -> its reader_evsel */
	struct decompressor *decomp;	/* the file's zstd stream, from its first COMPRESSED */
	u64 comp_max;			/* what one COMPRESSED record may decompress to */
	u64 comp_budget;		/* what the rest of them may decompress to */
	struct buf comp_left;		/* the start of a record the next COMPRESSED goes on with */
	struct reader_chunk *chunks;
	size_t nr_chunks;
};

/* User or interrupt registers: abi NONE (a kernel thread) means none. */
struct sample_regs {
	u64 abi;	/* PERF_SAMPLE_REGS_ABI_* */
	u64 mask;	/* the attr's register mask: regs[] in its bit order */
	const u64 *regs;	/* hweight(mask) values, NULL without */
};

/* The decoded fields of one PERF_RECORD_SAMPLE, pointers into the file.
 * A field the event does not sample has the value the stock perf gives
 * it (period: the attr's fixed period; data_src: "not available"). */
struct sample {
	const struct reader_evsel *evsel;
	u64 id, ip, time, addr, stream_id, period;
	u32 pid, tid, cpu;
	u32 cpumode;	/* PERF_RECORD_MISC_KERNEL, _USER...: whose ip it is */
	const u64 *read;	/* the read_format values: nr_read u64s */
	u64 nr_read;
	u64 nr_callchain;
	const u64 *callchain;
	u32 raw_size;
	const void *raw;
	u64 nr_branch;		/* entries of {from, to, flags} */
	const u64 *branch, *branch_hw_idx, *branch_counters;	/* NULL if absent */
	struct sample_regs uregs, iregs;
	u64 stack_size, stack_dyn_size;	/* the dump's room and what it holds */
	const void *stack;
	u64 weight;
	u16 ins_lat, retire_lat;	/* WEIGHT_STRUCT's second and third parts */
	u64 data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
	u64 aux_size;
	const void *aux;
	const char *bad;	/* after -EINVAL: what does not fit */
};

/* Opens and validates path. 0, or -errno / -EINVAL with one line in err
 * saying what is wrong with the file. reader__close() undoes a partial open. */
int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz);
void reader__close(struct perf_reader *r);

/* Calls cb for each record of the data section in file order, each one
 * checked for size, alignment and bounds first; the records of
 * COMPRESSED records are decompressed and given in their place, with the
 * COMPRESSED record's offset. Returns 0, -EINVAL (with
 * err set to the offset and the problem), or cb's non-zero return. */
typedef int (*reader_cb)(struct perf_reader *r, const struct perf_event_header *h,
			 u64 offset, void *arg);
int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz);

/* The file offset of a record reader__for_each() gave: that of the
 * COMPRESSED record it came out of, for a decompressed one. */
u64 reader__offset(const struct perf_reader *r, const struct perf_event_header *h);

/* The event a record belongs to: with one event or id 0 the first one (as
 * the stock perf), NULL when no event has that id. */
const struct reader_evsel *reader__evsel(const struct perf_reader *r, u64 id);
/* Decodes a sample against its event's sample_type and read_format. 0,
 * -EINVAL (s->bad says what does not fit in the record), or -ENOENT when
 * its id is no event's (s->id says which). */
int reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *h,
			 struct sample *s);
/* The sample_id trailer of a non-sample record, laid out as the event its
 * id names says: that event in *evsel, the fields in sid. Returns the
 * trailer's bytes, -EINVAL (the record is shorter than its trailer) or
 * -ENOENT (sid->id is no event's). */
int reader__parse_id(const struct perf_reader *r, const struct perf_event_header *h,
		     struct sample_id *sid, const struct reader_evsel **evsel);
/* The time of any record (sample or sample_id trailer), 0 if it has none. */
u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h);

/* Where a feature's body is in the file (reader__open() checked that it
 * is), or NULL if absent. */
const void *reader__feature(const struct perf_reader *r, int feat, u64 *size);

#endif
