/* Putting objects into the build-id cache (buildid/build-id-cache.c): a
 * sparse file's holes kept, the room one object may take, nothing left
 * of a copy that did not fit. */
#include "tests/tests.h"
#include "buildid/build-id-cache.h"
#include "buildid/build-id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPARSE_SIZE (64ULL << 20)
#define DATA_AT (32ULL << 20)

/* DIR/src: SPARSE_SIZE bytes, 64K of data at DATA_AT and 64K of zeros
 * written at 0 (blocks on disk that hold nothing). */
static int make_sparse(const char *path, char *data)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0755), ok;

	if (fd < 0)
		return -1;
	for (int i = 0; i < 65536; i++)
		data[i] = (char)(i * 7 + 1);
	memset(data + 65536, 0, 65536);
	ok = pwrite(fd, data + 65536, 65536, 0) == 65536 &&
	     pwrite(fd, data, 65536, DATA_AT) == 65536 && !ftruncate(fd, SPARSE_SIZE);
	close(fd);
	return ok ? 0 : -1;
}

/* Whether the copy at path reads back as make_sparse() wrote it. */
static int same_bytes(const char *path, const char *data)
{
	char buf[65536];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = !fstat(fd, &st) && (u64)st.st_size == SPARSE_SIZE &&
	     pread(fd, buf, sizeof(buf), DATA_AT) == (ssize_t)sizeof(buf) &&
	     !memcmp(buf, data, sizeof(buf)) && pread(fd, buf, sizeof(buf), 0) == sizeof(buf) &&
	     !memcmp(buf, data + 65536, sizeof(buf));
	close(fd);
	return ok;
}

/* The regular files under dir (-1: not counted). */
static int count_files(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* An entry's directories and link are charged too: the same file under
 * another build id does not fit a room one byte short of what the first
 * took, and takes as much in a room of exactly that. */
static int entry_overhead(struct test_ctx *ctx, const char *cache, const char *name,
			  const struct cache_src *s, u64 used)
{
	static const u8 bid2[20] = { 0xab, 0xce, 1, 2, 3 };
	struct cache_limit lim = { .max = 1ULL << 30, .room = used - 1 };
	int err = build_id_cache__add(cache, name, bid2, 20, s, &lim);

	TEST_LOG(ctx, "  room %llu: %d, over %d\n", (unsigned long long)lim.room, err, lim.over);
	TEST_ASSERT(err == -EDQUOT && lim.over && !lim.used,
		    "room %llu, one byte short of an entry: %d, over %d, used %llu",
		    (unsigned long long)lim.room, err, lim.over, (unsigned long long)lim.used);
	lim.room = used;
	err = build_id_cache__add(cache, name, bid2, 20, s, &lim);
	TEST_ASSERT(!err && !lim.over && lim.used == used, "room %llu: %d, over %d, used %llu",
		    (unsigned long long)used, err, lim.over, (unsigned long long)lim.used);
	return TEST_OK;
}

static int test_cache(struct test_ctx *ctx)
{
	char dir[] = "/tmp/bid-cache.XXXXXX", src[PATH_MAX], cache[PATH_MAX],
	     copy[PATH_MAX + 64], hex[41];
	static const u8 bid[20] = { 0xab, 0xcd, 1, 2, 3 };
	struct cache_limit lim = { .max = 1ULL << 30, .room = 1 << 20 };
	struct cache_src s = { .fd = -1 };
	char *data = malloc(2 * 65536);
	struct stat st;
	int err, ret = TEST_FAIL;

	if (!data || !mkdtemp(dir))
		goto out;
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	build_id__hex(bid, 20, hex);
	snprintf(copy, sizeof(copy), "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
	if (make_sparse(src, data) || (s.fd = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		goto out;
	/* a cap below its data: left out, said, and nothing left behind */
	lim.room = 32768;
	err = build_id_cache__add(cache, src, bid, 20, &s, &lim);
	TEST_LOG(ctx, "  room 32K: %d, over %d, used %llu\n", err, lim.over,
		 (unsigned long long)lim.used);
	if (err != -EDQUOT || !lim.over || lim.used || count_files(cache) != 0) {
		fprintf(stderr, "  FAILED: over room: %d over %d, %d files\n", err, lim.over,
			count_files(cache));
		goto out;
	}
	/* room enough for its data: its holes stay holes, zeros too */
	lim.room = 1 << 20;
	err = build_id_cache__add(cache, src, bid, 20, &s, &lim);
	if (err || lim.over || stat(copy, &st) || !same_bytes(copy, data)) {
		fprintf(stderr, "  FAILED: sparse copy: %d, over %d, same %d\n", err, lim.over,
			same_bytes(copy, data));
		goto out;
	}
	TEST_LOG(ctx, "  copy: %lld blocks, used %llu\n", (long long)st.st_blocks,
		 (unsigned long long)lim.used);
	if ((u64)st.st_blocks * 512 > 65536 + 16384 ||
	    lim.used != (u64)st.st_blocks * 512 + 3 * (u64)st.st_blksize ||
	    (st.st_mode & 0777) != 0755) {
		fprintf(stderr, "  FAILED: the copy takes %lld blocks (used %llu), mode %o\n",
			(long long)st.st_blocks, (unsigned long long)lim.used, st.st_mode & 0777);
		goto out;
	}
	ret = entry_overhead(ctx, cache, src, &s, lim.used);
out:
	if (s.fd >= 0)
		close(s.fd);
	free(data);
	snprintf(src, sizeof(src), "rm -rf '%s'", dir);
	if (system(src))
		ret = TEST_FAIL;
	return ret;
}

const struct test_suite suite_buildid_build_id_cache = {
	"buildid/build-id-cache", "Build ids: a sparse binary's copy in the cache keeps its holes, "
	"one that does not fit the room left is left out with nothing behind",
	test_cache,
};
