/* Binaries opened by the name a mapping gives, as the file the kernel
 * mapped, never as whatever a user put under that name since. */
#include "buildid/mapped-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void mapped_file_id__from_record(const struct perf_event_header *rec, struct mapped_file_id *id)
{
	const char *p = (const char *)rec;

	memset(id, 0, sizeof(*id));
	memcpy(&id->pid, p + 8, 4);
	memcpy(&id->start, p + 16, 8);
	memcpy(&id->len, p + 24, 8);
	/* an MMAP2 with a build id carries it where device and inode were */
	if (rec->type != PERF_RECORD_MMAP2 || (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	memcpy(&id->maj, p + 40, 4);
	memcpy(&id->min, p + 44, 4);
	memcpy(&id->ino, p + 48, 8);
	id->has_ino = 1;
}

int mapped_file_id__same(const struct mapped_file_id *a, const struct mapped_file_id *b)
{
	return !a->has_ino || !b->has_ino ||
	       (a->ino == b->ino && a->maj == b->maj && a->min == b->min);
}

int mapped_file__path_fd_walk(const char *name)
{
	char comp[NAME_MAX + 1];
	const char *p = name;
	int dir, fd;

	if (name[0] != '/')
		return -EINVAL;
	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (dir >= 0) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			return dir;
		if (n > NAME_MAX) {
			close(dir);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		/* a link is opened as itself: as a directory next, ENOTDIR */
		fd = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (fd < 0)
			return errno == ENOTDIR ? -ESTALE : -errno;
		dir = fd;
	}
	return -errno;
}

/* An O_PATH fd on name, no link followed in any component: it opens
 * nothing (no device's open runs, no FIFO waits). The names are the
 * kernel's d_path, where links are resolved: a link on the way is one a
 * user put there since. A link as the last component is opened as
 * itself, and refused for not being a regular file. */
static int path_fd(const char *name)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	/* a kernel's name of a file is absolute: another ("[stack]", or
	 * one a crafted record gives) would be looked up in the cwd */
	if (name[0] != '/')
		return -EINVAL;
	fd = syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	/* before Linux 5.6, or a seccomp filter that does not know it */
	if (errno == ENOSYS || errno == EPERM)
		return mapped_file__path_fd_walk(name);
	return errno == ELOOP || errno == ENOTDIR ? -ESTALE : -errno;
}

/* The mapping's own file, through the link the kernel keeps for it while
 * the mapping lasts: right even after its name was deleted or taken by
 * another file. Following it takes CAP_SYS_ADMIN (or
 * CAP_CHECKPOINT_RESTORE): others go by the name. */
static int map_files_fd(const struct mapped_file_id *id)
{
	char path[96];
	int fd;

	if (!id || !id->len)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", id->pid,
		 (unsigned long long)id->start, (unsigned long long)(id->start + id->len));
	fd = open(path, O_PATH | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int is_mapped_file(const struct stat *st, const struct mapped_file_id *id)
{
	if (!S_ISREG(st->st_mode))
		return 0;
	return !id || !id->has_ino || (st->st_ino == id->ino && major(st->st_dev) == id->maj &&
				       minor(st->st_dev) == id->min);
}

int mapped_file__fs_refused(long f_type)
{
	/* FUSE (fuseblk and virtiofs too): any user may mount one, and its
	 * open and read wait on that user's daemon, forever if it wants */
	return f_type == FUSE_SUPER_MAGIC;
}

/* A readable fd on the file pfd (O_PATH) holds, never another; -EREMOTE
 * on a filesystem whose open a user's process answers. */
static int reopen_read(int pfd, const struct stat *st)
{
	char path[64];
	struct statfs fs;
	struct stat now;
	int fd;

	if (fstatfs(pfd, &fs))
		return -errno;
	if (mapped_file__fs_refused(fs.f_type))
		return -EREMOTE;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int mapped_file__open(const char *name, const struct mapped_file_id *id)
{
	struct stat st;
	int pfd = map_files_fd(id), fd;

	/* the pid gone and reused, the range mapped anew: go by the name */
	if (pfd >= 0 && (fstat(pfd, &st) || !is_mapped_file(&st, id))) {
		close(pfd);
		pfd = -1;
	}
	if (pfd < 0) {
		pfd = path_fd(name);
		if (pfd < 0)
			return pfd;
		if (fstat(pfd, &st)) {
			fd = -errno;
			close(pfd);
			return fd;
		}
		if (!is_mapped_file(&st, id)) {
			close(pfd);
			return -ESTALE;
		}
	}
	fd = reopen_read(pfd, &st);
	close(pfd);
	return fd;
}
