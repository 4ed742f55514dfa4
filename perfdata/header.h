/* The perf.data header's layout and its feature sections: their ids, what
 * the features describe, and building them for a file or a stream. */
#ifndef PERF_HEADER_H
#define PERF_HEADER_H

#include <linux/perf_event.h>
#include "lib/buf.h"
#include "util/event.h"

#define PERF_MAGIC 0x32454c4946524550ULL	/* "PERFILE2" */

struct perf_file_section {
	u64 offset;
	u64 size;
};

struct perf_file_header {
	u64 magic;
	u64 size;
	u64 attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	u64 adds_features[4];
};

struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

enum header_feature {
	HEADER_TRACING_DATA = 1, HEADER_BUILD_ID, HEADER_HOSTNAME, HEADER_OSRELEASE,
	HEADER_VERSION, HEADER_ARCH, HEADER_NRCPUS, HEADER_CPUDESC, HEADER_CPUID,
	HEADER_TOTAL_MEM, HEADER_CMDLINE, HEADER_EVENT_DESC, HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY, HEADER_BRANCH_STACK, HEADER_PMU_MAPPINGS, HEADER_GROUP_DESC,
	HEADER_AUXTRACE, HEADER_STAT, HEADER_CACHE, HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY, HEADER_CLOCKID, HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO = 25, HEADER_BPF_BTF = 26,
	HEADER_COMPRESSED = 27, HEADER_CPU_PMU_CAPS = 28, HEADER_CLOCK_DATA = 29,
	HEADER_HYBRID_TOPOLOGY = 30, HEADER_PMU_CAPS = 31,
	HEADER_FEAT_BITS = 256,
};

/* the feature id of the FEATURE record that ends a pipe's header records
 * (perf 6.1's) */
#define HEADER_LAST_FEATURE 32

#define PERF_VERSION "0.1.0-flightrec"

struct evlist;
struct dso_hits;
struct header_ahead;

/* What the feature sections describe beyond the machine itself. */
struct header_info {
	const struct evlist *evlist;
	int argc;
	const char **argv;
	u64 first_sample_time, last_sample_time;	/* 0, 0: no samples */
	int comp_level;		/* -z: the COMPRESSED feature (0: none) */
	u32 comp_ratio, comp_mmap_len;
	/* the events' clock is this perf's own choice (a flight recorder's
	 * CLOCK_MONOTONIC), not asked with -k: no CLOCKID feature, as the
	 * stock writes none without -k and readers such as hotspot's
	 * perfparser warn on one (CLOCK_DATA stays: -F tod needs it) */
	int clock_implied;
	/* the file is the header of a perf.data directory (--threads): the
	 * DIR_FORMAT feature says so, and the stock reader then reads the
	 * directory's data.N files beside it */
	int dir_format;
	struct dso_hits *hits;	/* the BUILD_ID feature's DSOs (NULL: none, -B) */
	/* BPF_PROG_INFO and BPF_BTF bodies (util/bpf-event.c); NULL: none */
	const struct buf *bpf_prog_info, *bpf_btf;
	/* features made ahead, taken as they are (NULL: all made at once) */
	const struct header_ahead *ahead;
};

/* Feature bodies made before the file that takes them, off the way of a
 * dump: those of the machine (sysfs, /proc), as it was when they were
 * made. */
#define HEADER_FEAT_AHEAD (HEADER_PMU_CAPS + 1)
struct header_ahead {
	struct buf body[HEADER_FEAT_AHEAD];
	u64 tried[4];		/* made ahead: the dump takes them as they are */
	u64 made[4];		/* of those, the ones the machine gave (others: left out) */
};

/* Makes the features of info that can be made ahead, anew. 0 or -ENOMEM
 * (then none is taken as made). header_ahead__release() frees them. */
int header_ahead__make(struct header_ahead *a, const struct header_info *info);
void header_ahead__release(struct header_ahead *a);

/* Appends the feature table and bodies for a file whose feature area
 * starts at file offset base, setting the bits in features[]. 0 or -errno. */
int header__build_features(struct buf *out, u64 base, u64 features[4],
			   const struct header_info *info);

/* Pipe mode: the features header__build_features() would write, as
 * PERF_RECORD_HEADER_FEATURE records in bit order and the end mark, then
 * the tracing data as a PERF_RECORD_HEADER_TRACING_DATA record followed
 * by the data padded to 8 bytes: the stock perf's stream. A feature too
 * big for a record (64K) is left out and counted in *dropped. 0 or -errno. */
int header__build_pipe_features(struct buf *out, const struct header_info *info, int *dropped);

/* perf's string: u32 length (NUL included, padded to 64), then the bytes. */
void header__put_string(struct buf *b, const char *s);

/* The name perf gives feature f ("CMDLINE"), static; NULL for one perf
 * 6.1 does not know. */
const char *feature__name(int f);

static inline void feature__set(u64 *bits, int f) { bits[f / 64] |= 1ULL << (f % 64); }
static inline int feature__isset(const u64 *bits, int f) { return !!(bits[f / 64] & (1ULL << (f % 64))); }

#endif
