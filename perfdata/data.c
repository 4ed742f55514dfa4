/* The perf.data writer: the output path checked, the file made unnamed
 * (or ahead of its dump), data, features and header written, named last. */
#include "perfdata/data.h"
#include "buildid/dso-hits.h"
#include "perfdata/compress.h"
#include "util/evlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <unistd.h>

#define TMP_TAG ".tmp."
#define NAME_TRIES 4	/* the name, then PATH-1..PATH-3, then random suffixes */
#define WARM_CHUNK (256 << 10)	/* read at a time to fault a file in: in the caches */
#define WARM_ALLOC_CHUNK (64ULL << 20)	/* allocated at a time for it: a stop waits for no more */

/* dirname() and basename() of path as malloc'd strings. 0 or -ENOMEM. */
static int split_path(const char *path, char **dir, char **base)
{
	char *c1 = strdup(path), *c2 = strdup(path);

	*dir = c1 ? strdup(dirname(c1)) : NULL;
	*base = c2 ? strdup(basename(c2)) : NULL;
	free(c1);
	free(c2);
	if (*dir && *base)
		return 0;
	free(*dir);
	free(*base);
	return -ENOMEM;
}

/* Gives the finished file its name; never replaces anything (-EEXIST). */
static int place_file(struct perf_data *d, const char *name)
{
	char proc[64];

	if (!d->tmp) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->fd);
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
			return 0;
		/* no /proc of ours (a chroot, another pid namespace): the
		 * privileged way, which needs no /proc */
		if (errno != ENOENT || linkat(d->fd, "", AT_FDCWD, name, AT_EMPTY_PATH))
			return -errno;
		return 0;
	}
	if (!renameat2(AT_FDCWD, d->tmp, AT_FDCWD, name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* a filesystem without RENAME_NOREPLACE: link() does not replace either */
	if (link(d->tmp, name))
		return -errno;
	unlink(d->tmp);
	return 0;
}

/* An unnamed file in dir (O_TMPFILE): a crash, even kill -9, leaves nothing
 * behind. It is tried on a probe first, since giving it a name at the end
 * needs /proc or a privilege: a file that could not be named would be
 * data lost. -EOPNOTSUPP where it cannot be used. */
static int open_unnamed(const char *dir, const char *base)
{
	struct perf_data probe = { .fd = -1 };
	char *name;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), err;

	if (fd < 0) {
		/* EISDIR / EINVAL: a kernel or filesystem without O_TMPFILE */
		return errno == EISDIR || errno == EINVAL || errno == EOPNOTSUPP ?
		       -EOPNOTSUPP : -errno;
	}
	probe.fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (probe.fd < 0 || asprintf(&name, "%s/.%s" TMP_TAG "%d.probe", dir, base,
				     (int)getpid()) < 0) {
		err = -errno;
		goto fail;
	}
	unlink(name);	/* a probe of a crashed run with our pid */
	err = place_file(&probe, name);
	if (!err)
		unlink(name);
	free(name);
	if (err == -ENOENT || err == -EPERM || err == -EACCES)
		err = -EOPNOTSUPP;
	if (!err) {
		close(probe.fd);
		return fd;
	}
fail:
	if (probe.fd >= 0)
		close(probe.fd);
	close(fd);
	return err;
}

/* Without O_TMPFILE: a named temporary that carries our pid, so that a
 * later run can tell a dead run's leftover from a live one's file. */
static int open_named(struct perf_data *d, const char *dir, const char *base)
{
	int fd;

	if (asprintf(&d->tmp, "%s/.%s" TMP_TAG "%d.XXXXXX", dir, base, (int)getpid()) < 0) {
		d->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(d->tmp, O_CLOEXEC);	/* 0600, O_EXCL: never through a link */
	if (fd < 0) {
		int err = -errno;

		free(d->tmp);	/* nothing was created: keep abort from unlinking */
		d->tmp = NULL;
		return err;
	}
	return fd;
}

/* path's file, unnamed (or a named temporary) in its directory: d->fd,
 * d->tmp. 0 or -errno. */
static int open_file(struct perf_data *d, const char *path)
{
	char *dir = NULL, *base = NULL;
	int err = split_path(path, &dir, &base);

	if (!err) {
		d->fd = open_unnamed(dir, base);
		if (d->fd == -EOPNOTSUPP)
			d->fd = open_named(d, dir, base);
		err = d->fd < 0 ? d->fd : 0;
	}
	free(dir);
	free(base);
	return err;
}

/* The directory path's file is in, stat()ed. 0 or -errno. */
static int stat_dir_of(const char *path, struct stat *st)
{
	char *dir, *base;
	int err = split_path(path, &dir, &base);

	if (err)
		return err;
	if (stat(dir, st))
		err = -errno;
	free(dir);
	free(base);
	return err;
}

int perf_data__open_ahead(struct perf_data *d, const char *path)
{
	struct stat st;
	int err;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	err = stat_dir_of(path, &st);
	if (!err) {
		d->dir_dev = st.st_dev;
		d->dir_ino = st.st_ino;
		err = open_file(d, path);
	}
	if (err)
		perf_data__abort(d);
	return err;
}

/* Whether the file's pages can be made ahead: room on the disk, in
 * memory, and a filesystem whose page cache the kernel can take back. */
static int warm_allowed(int fd, u64 bytes)
{
	struct statvfs vfs;
	struct statfs fs;
	u64 avail_kb = meminfo_kb("MemAvailable");

	if (fstatvfs(fd, &vfs) || fstatfs(fd, &fs))
		return -errno;
	/* a tmpfs file is memory that only swap can take back, and its
	 * writes are copies into memory anyway */
	if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)
		return -EOPNOTSUPP;
	/* the room asked as the reserve asks it, and never more page cache
	 * than half the memory free (when it is known) */
	if (bytes > (u64)vfs.f_bavail * vfs.f_frsize / 2)
		return -ENOSPC;
	if (avail_kb && bytes / 1024 > avail_kb / 2)
		return -ENOMEM;
	return 0;
}

int perf_data__warm(struct perf_data *d, u64 bytes, const int *stop)
{
	/* made already: read through again, which faults back in the pages
	 * the kernel took since (clean page cache left idle goes first, to
	 * reclaim or to a pageout scheme such as DAMON's) and marks the
	 * others used */
	int again = bytes <= d->warm, err = 0;
	u64 pos = again ? 0 : d->warm, end;
	char *scratch;

	if (d->fd < 0 || !bytes)
		return 0;
	if (!again && !d->warm_size) {
		err = warm_allowed(d->fd, bytes);
		if (err)
			return err;
		d->warm_size = bytes;
	}
	end = again ? d->warm : d->warm_size;
	scratch = malloc(WARM_CHUNK);
	if (!scratch)
		return -ENOMEM;
	while (pos < end && !__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		ssize_t n;

		/* allocated a part at a time, so that a stop is not kept
		 * waiting by a filesystem that zeroes what it allocates; a
		 * hole does as well for the page cache where it cannot be */
		if (!again && pos == d->warm_alloc) {
			u64 more = MIN(WARM_ALLOC_CHUNK, d->warm_size - d->warm_alloc);

			if (fallocate(d->fd, 0, d->warm_alloc, more) &&
			    (errno != EOPNOTSUPP || ftruncate(d->fd, d->warm_alloc + more))) {
				err = -errno;
				break;
			}
			d->warm_alloc += more;
		}
		/* reading allocated blocks puts zeroed pages in the cache */
		n = pread(d->fd, scratch, MIN(WARM_CHUNK, (again ? end : d->warm_alloc) - pos), pos);
		if (n <= 0) {
			err = n ? -errno : -EIO;
			break;
		}
		pos += n;
		if (!again)
			d->warm = pos;
	}
	free(scratch);
	return err;
}

/* Each event's ids, then the attrs pointing at them, appended to b, whose
 * first byte is at file offset base; d's attrs section and id count get
 * where they are and how many. */
static void put_attrs(struct buf *b, u64 base, const struct evlist *evlist, struct perf_data *d)
{
	u64 ids_at = base + b->len;

	d->nr_ids = 0;
	for (int i = 0; i < evlist->nr_entries; i++)
		evsel__put_ids(evlist->entries[i], b);
	d->attrs_offset = base + b->len;
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];
		struct perf_file_attr fa = { .attr = evsel__file_attr(e) };
		u64 n = evsel__nr_ids(e);

		fa.ids.offset = ids_at;
		fa.ids.size = n * sizeof(u64);
		ids_at += n * sizeof(u64);
		d->nr_ids += n;
		buf__add(b, &fa, sizeof(fa));
	}
	d->attrs_size = base + b->len - d->attrs_offset;
}

/* The events' ids now, when they are not those the attrs written list
 * (an event opened anew since, for a CPU that came back): the attrs
 * again, past the features, where the header points. 0 or -errno. */
static int rewrite_attrs(struct perf_data *d, const struct evlist *evlist, u64 at)
{
	struct perf_data fresh = { .fd = -1 };
	struct buf b = { 0 };
	u64 nr = 0;
	int err;

	for (int i = 0; evlist && i < evlist->nr_entries; i++)
		nr += evsel__nr_ids(evlist->entries[i]);
	if (!evlist || nr == d->nr_ids)
		return 0;
	put_attrs(&b, at, evlist, &fresh);
	err = b.err ? b.err : pwrite_all(d->fd, b.p, b.len, at);
	buf__release(&b);
	if (!err) {
		d->attrs_offset = fresh.attrs_offset;
		d->attrs_size = fresh.attrs_size;
		d->nr_ids = fresh.nr_ids;
	}
	return err;
}

int perf_data__create_ahead(struct perf_data *d, struct perf_data *ahead, const char *path,
			    const struct evlist *evlist, char *errbuf, size_t errsz)
{
	struct perf_file_header hdr = { 0 };
	struct buf b = { 0 };
	struct stat dir;
	int err;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = strdup(path);
	if (!d->path) {
		err = -ENOMEM;
		goto fail;
	}
	/* the directory itself, not its name: one removed and made again
	 * since, or a link changed, would leave the file where its name
	 * cannot be given */
	if (ahead && ahead->fd >= 0 && !stat_dir_of(path, &dir) &&
	    dir.st_dev == ahead->dir_dev && dir.st_ino == ahead->dir_ino &&
	    !lseek(ahead->fd, 0, SEEK_SET)) {
		d->fd = ahead->fd;
		d->tmp = ahead->tmp;
		d->warm_alloc = ahead->warm_alloc;
		d->warm = ahead->warm;
		ahead->fd = -1;
		ahead->tmp = NULL;
	}
	if (ahead)
		perf_data__abort(ahead);	/* taken, or of no use */
	err = d->fd < 0 ? open_file(d, path) : 0;
	if (err)
		goto fail;
	/* header placeholder, then each event's ids, then the attrs */
	buf__zero(&b, sizeof(hdr));
	put_attrs(&b, 0, evlist, d);
	d->data_offset = b.len;
	err = b.err ? b.err : write_all(d->fd, b.p, b.len);
	buf__release(&b);
	if (err)
		goto fail;
	return 0;
fail:
	snprintf(errbuf, errsz, "cannot create output file %s: %s", path, strerror(-err));
	perf_data__abort(d);
	return err;
}

int perf_data__create(struct perf_data *d, const char *path, const struct evlist *evlist,
		      char *errbuf, size_t errsz)
{
	return perf_data__create_ahead(d, NULL, path, evlist, errbuf, errsz);
}

void perf_data__reserve(struct perf_data *d, u64 bytes)
{
	struct statvfs vfs;
	u64 from = d->data_offset + d->data_size, to = from + bytes;

	if (d->pipe || d->fd < 0 || !bytes)
		return;
	/* a file opened ahead has its first warm_alloc bytes already */
	from = MAX(from, d->warm_alloc);
	if (from >= to)
		return;
	/* an allocation that fails keeps what it got (ext4, XFS): one that
	 * could fill the filesystem is not asked for, as the room asked may
	 * be more than the dump writes */
	if (fstatvfs(d->fd, &vfs) || to - from > (u64)vfs.f_bavail * vfs.f_frsize / 2)
		return;
	(void)fallocate(d->fd, FALLOC_FL_KEEP_SIZE, from, to - from);
}

/* The file's bytes, as they are (compressed or not). */
static int perf_data__append(struct perf_data *d, const void *buf, size_t len)
{
	int err = write_all(d->fd, buf, len);

	if (!err)
		d->data_size += len;
	return err;
}

int perf_data__write(struct perf_data *d, const void *buf, size_t len)
{
	int err = perf_data__append(d, buf, len);
	struct iovec iov = { (void *)buf, len };

	if (!err && d->hits)
		dso_hits__feed(d->hits, &iov, 1);
	return err;
}

/* perf_data__writev() but for the build-id model */
static int data__writev_unfed(struct perf_data *d, struct iovec *iov, int iovcnt)
{
	size_t len = 0;
	int err;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	err = writev_all(d->fd, iov, iovcnt);
	if (!err)
		d->data_size += len;
	return err;
}

int perf_data__writev(struct perf_data *d, struct iovec *iov, int iovcnt)
{
	int err = data__writev_unfed(d, iov, iovcnt);

	if (!err && d->hits)
		dso_hits__feed(d->hits, iov, iovcnt);
	return err;
}

int perf_data__set_compression(struct perf_data *d, int level, u32 mmap_len)
{
	if (!level)
		return 0;
	d->comp = compressor__new(level, mmap_len);
	if (!d->comp)
		return -errno;
	d->comp_level = level;
	d->comp_mmap_len = mmap_len;
	return 0;
}

int perf_data__put_ring(struct perf_data *d, struct iovec *iov, int iovcnt)
{
	int err = 0;

	if (!d->comp)
		return data__writev_unfed(d, iov, iovcnt);
	d->comp_buf.len = 0;
	for (int i = 0; !err && i < iovcnt; i++)
		err = compressor__records(d->comp, &d->comp_buf, iov[i].iov_base, iov[i].iov_len);
	if (!err)
		err = perf_data__append(d, d->comp_buf.p, d->comp_buf.len);
	if (err)
		return err;
	for (int i = 0; i < iovcnt; i++)
		d->comp_in += iov[i].iov_len;
	d->comp_out += d->comp_buf.len;
	return 0;
}

int perf_data__write_ring(struct perf_data *d, struct iovec *iov, int iovcnt)
{
	int err = perf_data__put_ring(d, iov, iovcnt);

	if (!err && d->hits)
		dso_hits__feed(d->hits, iov, iovcnt);
	return err;
}

double perf_data__comp_ratio(const struct perf_data *d)
{
	return d->comp_out ? (double)d->comp_in / d->comp_out : 0;
}

/* perf's promise: an existing output (a file, or a directory, as the stock
 * perf does) is kept as PATH.old; an empty file is simply replaced.
 * Anything else there was refused up front by perf_data__check_path(). */
static int keep_old_file(const char *path)
{
	struct stat st;
	char *old;
	int err = 0;

	if (lstat(path, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return 0;
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		return unlink(path) ? -errno : 0;
	if (asprintf(&old, "%s.old", path) < 0)
		return -ENOMEM;
	if (rename(path, old))
		err = -errno;
	free(old);
	return err;
}

/* Features and header, once. On a full disk the features are given up
 * rather than the data: the header alone makes a readable file. */
static int finish_file(struct perf_data *d, const struct header_info *info)
{
	struct perf_file_header hdr = {
		.magic = PERF_MAGIC,
		.size = sizeof(hdr),
		.attr_size = sizeof(struct perf_file_attr),
		.attrs = { d->attrs_offset, d->attrs_size },
		.data = { d->data_offset, d->data_size },
	};
	struct buf feats = { 0 };
	u64 feat_off = d->data_offset + d->data_size, end;
	struct header_info hi = *info;
	int err;

	if (!hi.hits)
		hi.hits = d->hits;

	/* a failed write may have left part of a record past data_size */
	if (ftruncate(d->fd, feat_off))
		return -errno;
	if (d->comp_level) {
		hi.comp_level = d->comp_level;
		hi.comp_mmap_len = d->comp_mmap_len;
		/* rounded, as the stock perf rounds it */
		hi.comp_ratio = perf_data__comp_ratio(d) + 0.5;
	}
	err = header__build_features(&feats, feat_off, hdr.adds_features, &hi);
	if (!err)
		err = pwrite_all(d->fd, feats.p, feats.len, feat_off);
	end = feat_off + feats.len;
	buf__release(&feats);
	if (err == -ENOSPC || err == -EDQUOT) {
		d->no_features = 1;
		memset(hdr.adds_features, 0, sizeof(hdr.adds_features));
		err = ftruncate(d->fd, feat_off) ? -errno : 0;
		end = feat_off;
	}
	/* left out, the attrs written still describe the file: only the
	 * samples of the new ids lack an event. What it wrote of them is
	 * cut where possible; where not, no section points at those bytes,
	 * and the header is written all the same: a file whose header
	 * stays the placeholder is lost, one with a tail is not. */
	if (!err && rewrite_attrs(d, info->evlist, ALIGN_UP(end, 8)) && ftruncate(d->fd, end)) {
		/* a tail no section points at: harmless */
	}
	hdr.attrs = (struct perf_file_section){ d->attrs_offset, d->attrs_size };
	if (!err)
		err = pwrite_all(d->fd, &hdr, sizeof(hdr), 0);
	return err;
}

/* Another name for a finished file whose own name is taken or cannot be
 * used: PATH-1 .. PATH-3 (two dumps in one centisecond), then random
 * suffixes, which nobody can plant ahead. The data is never dropped for
 * want of a name. 0 with *name malloc'd, or -errno. */
static int place_elsewhere(struct perf_data *d, char **name)
{
	int err = -EEXIST;

	for (int i = 1; err == -EEXIST && i < NAME_TRIES + 8; i++) {
		char rnd[12];

		if (i < NAME_TRIES) {
			snprintf(rnd, sizeof(rnd), "%d", i);
		} else {
			static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
			unsigned char r[6];

			if (getrandom(r, sizeof(r), 0) != sizeof(r))
				return -errno;
			for (int k = 0; k < 6; k++)
				rnd[k] = set[r[k] % (sizeof(set) - 1)];
			rnd[6] = '\0';
		}
		if (asprintf(name, "%s-%s", d->path, rnd) < 0)
			return -ENOMEM;
		err = place_file(d, *name);
		if (err)
			free(*name);
	}
	return err;
}

int perf_data__commit(struct perf_data *d, const struct header_info *info, int keep_old,
		      char *errbuf, size_t errsz)
{
	char *name = NULL;
	int err;

	if (d->pipe) {	/* a stream is complete as it is: nothing to seek back to */
		snprintf(d->placed, sizeof(d->placed), "-");
		perf_data__abort(d);
		return 0;
	}
	err = finish_file(d, info);
	if (err) {
		snprintf(errbuf, errsz, "%s: write: %s", d->path, strerror(-err));
		perf_data__abort(d);
		return err;
	}
	/* PATH.old not possible (a sticky directory, a race): a suffixed
	 * name below keeps the data all the same */
	err = keep_old ? keep_old_file(d->path) : 0;
	if (!err)
		err = place_file(d, d->path);
	if (err && err != -ENOSPC && err != -EROFS && err != -EDQUOT)
		err = place_elsewhere(d, &name);
	if (err) {
		snprintf(errbuf, errsz, "%s: link into place: %s", d->path, strerror(-err));
		perf_data__abort(d);
		return err;
	}
	snprintf(d->placed, sizeof(d->placed), "%s", name ? name : d->path);
	free(name);
	free(d->tmp);
	d->tmp = NULL;	/* it has its name now: abort must not unlink it */
	perf_data__abort(d);
	return 0;
}

void perf_data__abort(struct perf_data *d)
{
	compressor__delete(d->comp);
	d->comp = NULL;
	buf__release(&d->comp_buf);
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	if (d->tmp)
		unlink(d->tmp);
	free(d->tmp);
	free(d->path);
	d->tmp = d->path = NULL;
}

int perf_data__place(struct perf_data *d, const char *path)
{
	int err = place_file(d, path);

	if (!err) {
		free(d->tmp);
		d->tmp = NULL;	/* it has its name now: abort must not unlink it */
	}
	perf_data__abort(d);
	return err;
}

int perf_data__rename(struct perf_data *d, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(d->path);
	d->path = p;
	return 0;
}

/* Removes named temporaries of runs that died (kill -9 on a filesystem
 * without O_TMPFILE): ours are .BASE[.TIMESTAMP].tmp.PID.XXXXXX, owned by
 * this user, and PID is gone. */
static void remove_dead_leftovers(const char *dir, const char *base)
{
	DIR *dh = opendir(dir);
	size_t blen = strlen(base);
	struct dirent *de;

	while (dh && (de = readdir(dh))) {
		const char *n = de->d_name, *tag;
		struct stat st;
		char *end, *path;
		long pid;

		if (n[0] != '.' || strncmp(n + 1, base, blen) || !(tag = strstr(n + 1 + blen, TMP_TAG)))
			continue;
		pid = strtol(tag + strlen(TMP_TAG), &end, 10);
		if (*end != '.' || pid <= 0 || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		if (asprintf(&path, "%s/%s", dir, n) < 0)
			continue;
		if (!lstat(path, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlink(path);
		free(path);
	}
	if (dh)
		closedir(dh);
}

/* Can a file be created in dir? Tried for real, so a read-only filesystem,
 * a missing directory or a permission problem shows before recording. */
static int probe_dir(const char *dir, const char *base)
{
	struct perf_data d = { .fd = -1 };
	int fd = open_unnamed(dir, base);

	if (fd == -EOPNOTSUPP)
		fd = open_named(&d, dir, base);
	if (fd < 0)
		return fd;
	d.fd = fd;
	perf_data__abort(&d);
	return 0;
}

/* In a sticky directory (/tmp) only the owner may replace a file. */
static int replaceable(const char *dir, const struct stat *st)
{
	struct stat ds;
	uid_t me = geteuid();

	if (me == 0 || st->st_uid == me || stat(dir, &ds) || !(ds.st_mode & S_ISVTX))
		return 1;
	return ds.st_uid == me;
}

/* Can PATH be moved to PATH.old, as perf keeps an existing output? */
static int old_replaceable(const char *path, const char *dir)
{
	struct stat st;
	char *old;
	int ok;

	if (asprintf(&old, "%s.old", path) < 0)
		return 0;
	ok = lstat(old, &st) || (S_ISREG(st.st_mode) && replaceable(dir, &st));
	free(old);
	return ok;
}

int perf_data__check_path(const char *path, int timestamped, char *errbuf, size_t errsz)
{
	char *dir = NULL, *base = NULL;
	struct stat st;
	int err;

	if (!*path) {
		snprintf(errbuf, errsz, "-o '': empty file name");
		return -EINVAL;
	}
	if (!strcmp(path, "-")) {
		snprintf(errbuf, errsz, "-o -: not a file name but a pipe-mode stream on "
			 "standard output, which cannot be written here");
		return -EINVAL;
	}
	if (path[strlen(path) - 1] == '/') {
		snprintf(errbuf, errsz, "%s: ends in '/': name a file", path);
		return -EINVAL;
	}
	err = split_path(path, &dir, &base);
	if (err) {
		snprintf(errbuf, errsz, "%s: %s", path, strerror(-err));
		return err;
	}
	err = -EINVAL;
	if (!timestamped && !lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(errbuf, errsz, "%s: is a symbolic link: perf record neither writes "
				 "through nor replaces one (give the target's path)", path);
			goto out;
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			snprintf(errbuf, errsz, "%s: not a regular file: perf record writes a "
				 "regular file under a temporary name and renames it there", path);
			goto out;
		}
		if (!replaceable(dir, &st)) {
			snprintf(errbuf, errsz, "%s: %s: owned by another user in a sticky "
				 "directory", path, strerror(EPERM));
			err = -EPERM;
			goto out;
		}
		if (S_ISREG(st.st_mode) && st.st_size && !old_replaceable(path, dir)) {
			snprintf(errbuf, errsz, "%s.old: %s: the existing %s cannot be kept there "
				 "(another user's, or not a file)", path, strerror(EPERM), path);
			err = -EPERM;
			goto out;
		}
		/* as the stock perf: a directory moves aside at once */
		if (S_ISDIR(st.st_mode) && (err = keep_old_file(path))) {
			snprintf(errbuf, errsz, "%s: is a directory, and moving it to %s.old "
				 "failed: %s", path, path, strerror(-err));
			goto out;
		}
	}
	remove_dead_leftovers(dir, base);
	err = probe_dir(dir, base);
	if (err)
		snprintf(errbuf, errsz, "cannot create output file %s: %s", path, strerror(-err));
out:
	free(dir);
	free(base);
	return err;
}
