/* The perf.data reader: a file read and checked as hostile input, its
 * records walked in file order, samples and sample_id trailers decoded. */
#ifndef PERF_READER_H
#define PERF_READER_H

#include "util/event.h"
#include "perfdata/header.h"
#include "lib/id-hash.h"
#include "util/tp.h"
#include "perfdata/stream.h"
#include "lib/buf.h"

/* perf's own record types start here; the kernel's are below */
#define READER_USER_TYPE_START 64
/* the first type the stock perf 6.1 does not know (HEADER_MAX) */
#define READER_USER_TYPE_END 83

struct tep_handle;
struct decompressor;

struct reader_evsel {
	struct perf_event_attr attr;
	char *name;
	const u64 *ids;
	u64 nr_ids;
	u64 id_type;	/* the fields of its records' sample_id trailer */
	u64 *own_ids;	/* ids of a HEADER_ATTR record: a copy, freed at close */
};

/* A perf.data read and checked: every offset and size read from it lies
 * inside the file before anything uses it. A file is read in two parts:
 * what is before and after its data section (header, attrs, ids, the
 * features), held whole, and the records, through a window. A stream
 * (perf record -o -: a pipe, or such a stream in a file) has only the
 * magic in its header: the rest comes as records, read as they come. */
struct perf_reader {
	struct perf_file_header hdr;
	int pipe;		/* a stream: attrs and features come as records */
	int fd, own_fd;
	u64 size;		/* a file's size when opened; 0 for a pipe */
	char *head;		/* the file's bytes before the data section */
	char *tail;		/* and after it, to the size it had */
	struct buf *feats;	/* a stream's HEADER_FEATURE bodies, by feature */
	struct stream src;	/* the records */
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
	struct buf dec;			/* the records of the last COMPRESSED record */
	size_t dec_pos;			/* the next of them */
	u64 dec_off;			/* that COMPRESSED record's offset */
	u64 payload;			/* what follows the last record given (AUXTRACE's data) */
	u64 *align;			/* a record at an offset that is no multiple of 8, copied */
	const char *path;		/* what reader__open() was given, for messages */
	int named;			/* every event has its name */
	int auxtrace_info;		/* an AUXTRACE_INFO was read: AUXTRACE may follow */
	/* A perf.data directory (perf record --threads): fd is its header
	 * file "data", whose records are read first, then those of each of
	 * parts, the record files beside it, in turn. */
	int dfd;			/* the directory, or -1 for a file or stream */
	char *own_path;			/* "DIR/data", for messages about the header */
	char **parts;			/* the record files' names, in the order read */
	int nr_parts;
	int part;			/* the one being read: 0 "data", k parts[k - 1] */
	int part_fd;			/* parts[part - 1]'s, or -1 */
	u64 part_size;			/* the bytes of records of the one being read */
	struct id_hash described;	/* the tracepoint ids TRACING_DATA describes */
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

/* Opens and validates path ("-": standard input, a pipe or a file), a
 * file, a stream or a directory of perf record --threads (its header
 * file, and the names of its record files: DIR_FORMAT version 1 says
 * there are some; without it, the header file's records are all): for a stream, its records up to the first of the
 * kernel's (attrs, features, tracing data, names) are read and checked
 * too. 0, or -errno / -EINVAL with one line in err saying what is wrong
 * with the file. reader__close() undoes a partial open. */
int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz);
void reader__close(struct perf_reader *r);

/* A perf.data directory's file part (see struct perf_reader): "data"
 * for 0. */
const char *reader__part_name(const struct perf_reader *r, int part);

/* Calls cb for each record of the data section (of a stream: each record
 * after those reader__open() took; of a directory: its header file's,
 * then each record file's whole, r->part saying whose) in order, each
 * one checked for size, alignment and bounds first; the records of COMPRESSED records are
 * decompressed and given in their place, with the COMPRESSED record's
 * offset. perf's own records that say how to read the rest (HEADER_ATTR,
 * EVENT_UPDATE, ID_INDEX, HEADER_FEATURE, HEADER_TRACING_DATA...) are
 * taken in and checked before cb sees them; the data that follows an
 * AUXTRACE or HEADER_TRACING_DATA record is no record: cb does not see it.
 * h is valid only until cb returns. Returns 0, -EINVAL (with err set to
 * the offset and the problem), or cb's non-zero return. */
typedef int (*reader_cb)(struct perf_reader *r, const struct perf_event_header *h,
			 u64 offset, void *arg);
int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz);

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
 * bytes after the record's body: its trailer's and, for a KSYMBOL or
 * BPF_EVENT the kernel over-sized, the slack after it (see reader.c);
 * -EINVAL (the record is shorter than its trailer) or -ENOENT (sid->id is
 * no event's). */
int reader__parse_id(const struct perf_reader *r, const struct perf_event_header *h,
		     struct sample_id *sid, const struct reader_evsel **evsel);
/* The time of any record (sample or sample_id trailer), 0 if it has none. */
u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h);

/* A feature's body (reader__open() checked it; of a stream, the first
 * HEADER_FEATURE record's, which stays where it is), or NULL if absent. */
const void *reader__feature(const struct perf_reader *r, int feat, u64 *size);

#endif
