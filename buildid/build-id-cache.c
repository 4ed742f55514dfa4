/* The build-id cache's layout, as perf's: DIR/NAME/HEX/{elf,kallsyms,vdso}
 * and DIR/.build-id/XX/REST -> ../../NAME/HEX. */
#include "buildid/build-id-cache.h"
#include "buildid/build-id.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of path's components after the first skip bytes (which exist,
 * or are the user's to create). 0 or -errno. */
static int make_dirs(char *path, size_t skip)
{
	for (char *p = path + skip + 1; ; p++) {
		char c = *p;

		if (c != '/' && c)
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			*p = c;
			return err;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/* A name must stay under the cache directory. */
static int name_ok(const char *name)
{
	const char *p = name;

	if (!*name || strlen(name) > PATH_MAX / 2)
		return 0;
	while ((p = strstr(p, "..")))
		if ((p == name || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return 0;
		else
			p += 2;
	return 1;
}

/* The next stretch of data at or after off and before size, in
 * [*start, *end): 1, or 0 at the end. SEEK_DATA moves the offset an fd
 * shares with its dups: the held fds are only ever read with pread. */
static int next_data(int fd, off_t off, off_t size, off_t *start, off_t *end)
{
	off_t data = lseek(fd, off, SEEK_DATA), hole;

	if (data < 0 && errno == ENXIO)
		return 0;
	if (data < 0)	/* holes not reported here: all of it is data */
		data = off, hole = size;
	else if ((hole = lseek(fd, data, SEEK_HOLE)) < 0)
		return -errno;
	*start = data;
	*end = MIN(hole, size);
	return *start < *end;
}

static int all_zero(const char *p, size_t n)
{
	return !n || (!p[0] && !memcmp(p, p + 1, n - 1));
}

/* [start, end) of in into out at the same offsets, blocks of zeros left
 * as holes; *written counts what was written, at most lim->room. */
static int copy_data(int out, int in, off_t start, off_t end, struct cache_limit *lim,
		     u64 *written)
{
	char buf[65536];

	while (start < end) {
		ssize_t n = pread(in, buf, MIN((off_t)sizeof(buf), end - start), start);
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)	/* 0: it shrank since the fstat: not the file mapped */
			return n ? -errno : -ESTALE;
		if (!all_zero(buf, n)) {
			if ((*written += n) > lim->room)
				return lim->over = 1, -EDQUOT;
			err = pwrite_all(out, buf, n, start);
			if (err)
				return err;
		}
		start += n;
	}
	return 0;
}

/* The source into fd: a file read from its start whatever its offset,
 * only its data (holes and zeros stay holes: a sparse file costs the
 * cache what it costs its owner, not its size), up to the size it had
 * at the start. */
static int copy_src(int fd, const struct cache_src *src, struct cache_limit *lim)
{
	u64 written = 0;
	off_t off = 0, start = 0, end = 0;
	struct stat st;
	int more;

	if (src->fd < 0) {
		if (src->len > lim->max)
			return -EFBIG;
		if (src->len > lim->room)
			return lim->over = 1, -EDQUOT;
		return write_all(fd, src->data, src->len);
	}
	if (fstat(src->fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((u64)st.st_size > lim->max)
		return -EFBIG;
	while ((more = next_data(src->fd, off, st.st_size, &start, &end)) > 0) {
		int err = copy_data(fd, src->fd, start, end, lim, &written);

		if (err)
			return err;
		off = end;
	}
	if (more < 0)
		return more;
	return ftruncate(fd, st.st_size) ? -errno : 0;
}

/* A file in dir with no name until link_tmp() gives it one, complete: a
 * recorder killed while it copies leaves nothing behind. Where the
 * filesystem has no O_TMPFILE, a named one, path.tmp.PID.XXXXXX (tmp). */
static int open_tmp(const char *dir, const char *path, char *tmp, size_t size)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	tmp[0] = '\0';
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	snprintf(tmp, size, "%s.tmp.%d.XXXXXX", path, (int)getpid());
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Names the complete file: 0, or 1 where a build id some other perf put
 * there first (the same bytes) kept its file and ours goes away. */
static int link_tmp(int fd, const char *tmp, const char *path)
{
	char proc[64];

	if (tmp[0])
		return rename(tmp, path) ? -errno : 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return 0;
	/* no /proc: AT_EMPTY_PATH takes CAP_DAC_READ_SEARCH */
	if (errno == ENOENT && !linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH))
		return 0;
	return errno == EEXIST ? 1 : -errno;
}

/* What an entry costs the disk besides its file: the directories
 * NAME/HEX and .build-id/XX and the link (a block each at most), charged
 * in the filesystem's blocks. */
static u64 entry_overhead(const struct stat *st)
{
	return 3 * (u64)(st->st_blksize ? st->st_blksize : 4096);
}

/* DIR/NAME/HEX/FILE, copied into a file with no name and named when
 * complete; what it took on disk in lim->used. */
static int add_file(char *path, size_t dir_len, const char *file, const struct cache_src *src,
		    struct cache_limit *lim)
{
	char tmp[PATH_MAX + 64], dst[PATH_MAX + 16];
	struct stat st;
	int err = make_dirs(path, dir_len), fd;
	u64 cost;

	if (err)
		return err;
	snprintf(dst, sizeof(dst), "%s/%s", path, file);
	if (!lstat(dst, &st))
		return 0;	/* the same build id: the same bytes */
	fd = open_tmp(path, dst, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = copy_src(fd, src, lim);
	/* a binary keeps its execute bits, as in perf's cache (readers and
	 * tests check them); the rest stays private */
	if (!err && src->fd >= 0 && !fstat(src->fd, &st) && fchmod(fd, st.st_mode & 0755))
		err = -errno;
	/* what the disk gave it, metadata blocks included, and the entry's
	 * directories and link */
	if (!err && fstat(fd, &st))
		err = -errno;
	cost = err ? 0 : (u64)st.st_blocks * 512 + entry_overhead(&st);
	if (!err && cost > lim->room) {
		lim->over = 1;
		err = -EDQUOT;
	}
	if (!err)
		err = link_tmp(fd, tmp, dst);
	/* another perf's copy took the name: ours is freed, nothing added */
	if (err == 1)
		err = 0;
	else if (!err)
		lim->used = cost;
	if (close(fd) && !err)
		err = -errno;
	if (err && tmp[0])
		unlink(tmp);
	return err;
}

static const char *cache_file(const char *name)
{
	return !strcmp(name, "[kernel.kallsyms]") ? "kallsyms" : !strcmp(name, "[vdso]") ? "vdso" :
	       "elf";
}

int build_id_cache__has(const char *dir, const char *name, const u8 *bid, int len)
{
	char hex[2 * BUILD_ID_SIZE + 1], path[PATH_MAX];
	struct stat st;

	build_id__hex(bid, len, hex);
	if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/%s", dir, hex, hex + 2,
			     cache_file(name)) >= sizeof(path))
		return 0;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int build_id_cache__add(const char *dir, const char *name, const u8 *bid, int len,
			const struct cache_src *src, struct cache_limit *lim)
{
	char hex[2 * BUILD_ID_SIZE + 1], path[PATH_MAX], target[PATH_MAX];
	const char *rel = name + (name[0] == '/');
	const char *file = cache_file(name);
	size_t dir_len = strlen(dir);
	int err;

	if (len <= 0 || !name_ok(name))
		return -EINVAL;
	build_id__hex(bid, len, hex);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, rel, hex) >= sizeof(path) - 16)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	lim->used = 0;
	lim->over = 0;
	err = add_file(path, dir_len, file, src, lim);
	if (err)
		return err;
	snprintf(target, sizeof(target), "../../%s/%s", rel, hex);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	err = make_dirs(path, dir_len);
	if (err)
		return err;
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", hex + 2);
	if (symlink(target, path) && errno != EEXIST)
		return -errno;
	return 0;
}
