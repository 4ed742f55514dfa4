/* The DSOs a finished file's samples hit, copied into the build-id cache,
 * and what could not be. */
#ifndef PERF_DSO_CACHE_H
#define PERF_DSO_CACHE_H

#include "util/event.h"

struct dso_hits;

/* What went into the cache and what could not: unreadable (deleted), too
 * big, over the recording's cap, or failed (disk full); the last
 * failure's error and object. */
struct dso_hits_cache_stats {
	u64 added, unreadable, too_big, over_cap, failed;
	u64 hot_missed;		/* of those not added, the most hit (DSO_CACHE_HOT) */
	int last_err;
	char last_name[256];
};

/* What one recording may add to the cache, in all its files and dumps:
 * a user who can make binaries (sparse, or each with a build id of its
 * own) cannot fill the disk the cache is on. */
struct dso_cache_budget {
	u64 max;		/* --buildid-cache-max: bytes on disk */
	u64 added;		/* what the recording added so far */
	u64 left_out;		/* binaries left out for max */
};

/* Puts every wanted DSO into the build-id cache at dir (kallsyms for the
 * kernel, the vdso image, the files: from the fd held open if any), each
 * within what is left of budget, which it adds to (NULL: no bound). Counts what went in
 * and what could not in st. */
void dso_hits__fill_cache(struct dso_hits *s, const char *dir, struct dso_cache_budget *budget,
			  struct dso_hits_cache_stats *st);
/* A binary holding at least 1/DSO_CACHE_HOT of the samples that hit
 * binaries is one the samples hit most: a report without it in the
 * cache misses much. Those that hold less (a memfd, the vdso, a library
 * gone since) are said only with -v. */
#define DSO_CACHE_HOT 10

/* One line on stderr when something of file's could not go into the
 * cache: a copy that failed (a full disk), even with quiet (-q); one of
 * the binaries the samples hit most, unless quiet; anything with
 * verbose (-v). */
void dso_hits_cache_stats__report(const struct dso_hits_cache_stats *st, const char *file,
				  int quiet, int verbose);

/* The biggest binary copied into the cache: a bound on the time a
 * recording's end or a dump's writer spends on one. */
#define DSO_CACHE_MAX (512ULL << 20)
/* --buildid-cache-max's default: more than a desktop's binaries take. */
#define DSO_CACHE_BUDGET (2ULL << 30)

#endif
