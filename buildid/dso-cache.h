/* The DSOs a finished file's samples hit, copied into the build-id cache,
 * and what could not be. */
#ifndef PERF_DSO_CACHE_H
#define PERF_DSO_CACHE_H

#include "util/event.h"

struct dso_hits;

/* What went into the cache and what could not: unreadable (deleted), too
 * big, or failed (disk full); the last failure's error and object. */
struct dso_hits_cache_stats {
	u64 added, unreadable, too_big, failed;
	int last_err;
	char last_name[256];
};

/* Puts every wanted DSO into the build-id cache at dir (kallsyms for the
 * kernel, the vdso image, the files: from the fd held open if any).
 * max: the biggest file copied. Counts what went in and what could not
 * in st. */
void dso_hits__fill_cache(struct dso_hits *s, const char *dir, u64 max, struct dso_hits_cache_stats *st);
/* One line on stderr when something of file's could not go into the cache;
 * with quiet (-q) only when a copy failed (a full disk), not for binaries
 * gone or too big. */
void dso_hits_cache_stats__report(const struct dso_hits_cache_stats *st, const char *file,
				  int quiet);

/* The biggest binary copied into the cache: a bound on the time and the
 * disk a recording's end or a dump's writer spends on it. */
#define DSO_CACHE_MAX (512ULL << 20)

#endif
