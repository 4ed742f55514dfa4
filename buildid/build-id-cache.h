/* The build-id cache's contents: whether an object is there, and putting
 * one in, laid out as perf's own cache. */
#ifndef PERF_BUILD_ID_CACHE_H
#define PERF_BUILD_ID_CACHE_H

#include <stddef.h>
#include "util/event.h"

/* 1 when the cache at dir has the object name with build id bid (through
 * its .build-id link), else 0: what need not be read again. */
int build_id_cache__has(const char *dir, const char *name, const u8 *bid, int len);

/* What build_id_cache__add() copies: a file (fd open on it, so that a
 * binary deleted since it was mapped is still found), or the bytes given
 * (kallsyms, a vdso image). */
struct cache_src {
	int fd;			/* -1: use data/len */
	const void *data;
	size_t len;
};

/* What one object may cost the cache. */
struct cache_limit {
	u64 max;	/* the biggest file copied, by its size (bigger: -EFBIG) */
	u64 room;	/* the disk it may take */
	u64 used;	/* out: the disk it took, the entry's overhead
			 * included (0: nothing added) */
	int over;	/* out: left out for room (-EDQUOT) */
};

/* Puts one object into the cache at dir the way perf's cache lays it out:
 * DIR/NAME/HEX/FILE (FILE "elf", "kallsyms" or "vdso" by name), and the
 * link DIR/.build-id/XX/REST -> ../../NAME/HEX. An entry already there is
 * left as it is. A file copied from an fd keeps its mode (0755 at most)
 * and its holes (blocks of zeros become holes too), the rest is 0600. The
 * copy has no name until it is complete: nothing is left of one that
 * failed, or whose recorder was killed. 0 or -errno. */
int build_id_cache__add(const char *dir, const char *name, const u8 *bid, int len,
			const struct cache_src *src, struct cache_limit *lim);

#endif
