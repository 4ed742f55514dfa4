/* The build-id cache's layout, as perf's: DIR/NAME/HEX/{elf,kallsyms,vdso}
 * and DIR/.build-id/XX/REST -> ../../NAME/HEX. */
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

/* The source's bytes into fd: a file read from its start, whatever its
 * offset (the fd may be shared). */
static int copy_src(int fd, const struct cache_src *src, u64 max)
{
	char buf[65536];
	struct stat st;
	off_t off = 0;

	if (src->fd < 0)
		return src->len > max ? -EFBIG : write_all(fd, src->data, src->len);
	if (fstat(src->fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((u64)st.st_size > max)
		return -EFBIG;
	for (;;) {
		ssize_t n = pread(src->fd, buf, sizeof(buf), off);
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if ((u64)(off += n) > max)
			return -EFBIG;	/* it grew since the fstat */
		err = write_all(fd, buf, n);
		if (err)
			return err;
	}
}

/* DIR/NAME/HEX/FILE, written under a temporary name and renamed into place. */
static int add_file(char *path, size_t dir_len, const char *file, const struct cache_src *src,
		    u64 max)
{
	size_t len = strlen(path);
	char tmp[PATH_MAX + 64];
	struct stat st;
	int err = make_dirs(path, dir_len), fd;

	if (err)
		return err;
	snprintf(path + len, PATH_MAX - len, "/%s", file);
	if (!lstat(path, &st))
		return 0;	/* the same build id: the same bytes */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d.XXXXXX", path, (int)getpid());
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = copy_src(fd, src, max);
	/* a binary keeps its execute bits, as in perf's cache (readers and
	 * tests check them); the rest stays private */
	if (!err && src->fd >= 0 && !fstat(src->fd, &st) && fchmod(fd, st.st_mode & 0755))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
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
			const struct cache_src *src, u64 max)
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
	err = add_file(path, dir_len, file, src, max);
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
