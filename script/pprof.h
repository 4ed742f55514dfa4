/* A pprof profile built up in memory and written as pprof reads it: each
 * string, mapping, function, location and stack held once, the samples
 * of one stack and the same labels added up into one, so that its size
 * follows the distinct stacks, not the number of samples; encoded as
 * profile.proto (protobuf-c) and gzipped (zlib). */
#ifndef PERF_PPROF_H
#define PERF_PPROF_H

#include "lib/util.h"

struct pprof;

/* A mapping as pprof has it: [start, limit) shows file from offset. */
struct pprof_mapping {
	u64 start, limit, offset;
	const char *file;
	const u8 *bid;		/* bid_len bytes, written as hex; 0: none */
	int bid_len;
};

/* What tells samples of one stack apart: each a pprof label. */
struct pprof_labels {
	u32 pid, tid, cpu;
	const char *comm;
	int has_time;		/* time: the sample's, in nanoseconds */
	u64 time;
};

/* NULL without memory; pprof__delete() frees it. */
struct pprof *pprof__new(void);
void pprof__delete(struct pprof *p);

/* A column of every sample's values, pprof's sample_type: its index, or
 * -ENOMEM, or -EBUSY once a sample was added (the columns are fixed). */
int pprof__add_type(struct pprof *p, const char *type, const char *unit);
/* The column pprof shows by default. */
void pprof__set_default_type(struct pprof *p, int col);
/* The profile's time_nanos (wall clock, since the epoch) and
 * duration_nanos. */
void pprof__set_time(struct pprof *p, s64 time_nanos, s64 duration_nanos);

/* The id (1, 2, ...) of the mapping, the function or the location (of
 * mapping id 0: none; function 0: an address alone) with these fields,
 * made on first use; 0 without memory. */
u64 pprof__mapping(struct pprof *p, const struct pprof_mapping *m);
u64 pprof__function(struct pprof *p, const char *name, const char *file);
u64 pprof__location(struct pprof *p, u64 mapping, u64 addr, u64 function);

/* Adds values[0..n) to columns col..col + n - 1 of the sample with the
 * stack locs[0..nr) (location ids, leaf first) and labels l. 0, -ENOMEM,
 * or -EINVAL for columns or ids the profile does not have. */
int pprof__add(struct pprof *p, const u64 *locs, u32 nr, const struct pprof_labels *l, int col,
	       const s64 *values, int n);
/* How many distinct samples, stacks and locations it holds. */
void pprof__counts(const struct pprof *p, u64 *samples, u64 *stacks, u64 *locations);

/* The profile, encoded and gzipped, written to fd. 0, or -errno of the
 * write, -ENOMEM, -EIO (zlib). */
int pprof__write(const struct pprof *p, int fd);

#endif
