/* Opening a mapped binary by name (buildid/mapped-file.c): links in any
 * component, FIFOs and other files put in its place are refused, the file
 * mapped is taken from its mapping, openat2() or not. */
#include "tests/tests.h"
#include "buildid/mapped-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct tree {
	char dir[64];
	char path[PATH_MAX];
};

static const char *at(struct tree *t, const char *rel)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, rel);
	return t->path;
}

static int make_file(struct tree *t, const char *rel, const char *text)
{
	int fd = open(at(t, rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* DIR/real/bin (the binary), DIR/other (another file), DIR/fifo,
 * DIR/link -> other, DIR/alias -> real (a linked directory). */
static int tree__make(struct tree *t)
{
	char target[PATH_MAX];

	snprintf(t->dir, sizeof(t->dir), "/tmp/mapped-file.XXXXXX");
	if (!mkdtemp(t->dir) || mkdir(at(t, "real"), 0700) || make_file(t, "real/bin", "bin") ||
	    make_file(t, "other", "other") || mkfifo(at(t, "fifo"), 0600))
		return -1;
	snprintf(target, sizeof(target), "%s/other", t->dir);
	if (symlink(target, at(t, "link")))
		return -1;
	snprintf(target, sizeof(target), "%s/real", t->dir);
	return symlink(target, at(t, "alias"));
}

static void tree__remove(struct tree *t)
{
	static const char *const rel[] = { "alias", "link", "fifo", "other", "real/bin",
					   "real/old", "real" };

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		remove(at(t, rel[i]));
	rmdir(t->dir);
}

/* What fd reads: the start of the file, "" when it is not open. */
static const char *content(int fd, char *out, size_t size)
{
	ssize_t n = fd >= 0 ? pread(fd, out, size - 1, 0) : 0;

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return out;
}

static int by_name(struct tree *t)
{
	char buf[16];
	int fd;

	TEST_ASSERT(!strcmp(content(mapped_file__open(at(t, "real/bin"), NULL), buf, sizeof(buf)),
			    "bin"), "the file itself: '%s'", buf);
	/* a FIFO is not opened: no reader appears for a writer to find */
	TEST_ASSERT(mapped_file__open(at(t, "fifo"), NULL) == -ESTALE, "a FIFO");
	fd = open(at(t, "fifo"), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	TEST_ASSERT(fd < 0 && errno == ENXIO, "the FIFO has a reader");
	TEST_ASSERT(mapped_file__open(at(t, "link"), NULL) == -ESTALE, "a link as the file");
	TEST_ASSERT(mapped_file__open(at(t, "alias/bin"), NULL) == -ESTALE, "a link as a directory");
	TEST_ASSERT(mapped_file__open("/dev/null", NULL) == -ESTALE, "a device");
	TEST_ASSERT(mapped_file__open(at(t, "gone"), NULL) == -ENOENT, "no file");
	/* a relative name ("[stack]") names no file: the cwd would choose */
	TEST_ASSERT(!chdir(t->dir), "chdir %s", t->dir);
	fd = mapped_file__open("real/bin", NULL);
	TEST_ASSERT(fd == -EINVAL && !chdir("/"), "a relative name opened: %d", fd);
	return TEST_OK;
}

/* Without openat2: the walk gives the same answers. */
static int walk(struct tree *t)
{
	struct stat st;
	int fd = mapped_file__path_fd_walk(at(t, "real/bin"));

	TEST_ASSERT(fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode), "the file: %d", fd);
	close(fd);
	fd = mapped_file__path_fd_walk(at(t, "link"));
	TEST_ASSERT(fd >= 0 && !fstat(fd, &st) && S_ISLNK(st.st_mode), "the link itself: %d", fd);
	close(fd);
	TEST_ASSERT(mapped_file__path_fd_walk(at(t, "alias/bin")) == -ESTALE, "a linked directory");
	TEST_ASSERT(mapped_file__path_fd_walk("relative/name") == -EINVAL, "a relative name");
	return TEST_OK;
}

/* With the mapping's device and inode: only that file is taken; while it
 * is mapped, from the mapping, whatever the name holds now. */
static int by_id(struct test_ctx *ctx, struct tree *t)
{
	struct mapped_file_id id = { .pid = getpid(), .has_ino = 1 };
	char buf[16], name[PATH_MAX], old[PATH_MAX];
	struct stat st;
	void *map;
	int fd, got;

	snprintf(name, sizeof(name), "%s", at(t, "real/bin"));
	snprintf(old, sizeof(old), "%s", at(t, "real/old"));
	fd = open(name, O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(fd >= 0 && !fstat(fd, &st), "real/bin");
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	TEST_ASSERT(map != MAP_FAILED, "mmap");
	id.maj = major(st.st_dev);
	id.min = minor(st.st_dev);
	id.ino = st.st_ino;
	/* the name taken by another file since */
	got = !rename(name, old) && !make_file(t, "real/bin", "impostor");
	/* no range: by the name alone, and refused */
	got = got ? mapped_file__open(name, &id) : -1;
	id.start = (unsigned long)map;
	id.len = 4096;
	fd = got == -ESTALE ? mapped_file__open(name, &id) : -1;
	content(fd, buf, sizeof(buf));
	munmap(map, 4096);
	TEST_ASSERT(got == -ESTALE, "another file of the name: %d", got);
	if (fd == -ESTALE && geteuid())
		TEST_SKIP_BECAUSE(ctx, "map_files needs CAP_SYS_ADMIN");
	TEST_ASSERT(!strcmp(buf, "bin"), "the mapped file, from its mapping: %d '%s'", fd, buf);
	return TEST_OK;
}

/* A file on a filesystem whose opens a user's daemon answers is never
 * opened; FUSE cannot be mounted here, so the decision is tested on the
 * magic numbers, and the real path on the tmpfs and disk at hand. */
static int fs_types(struct tree *t)
{
	static const char shm[] = "/dev/shm/perf-mapped-file-test";
	const char *disk = at(t, "real/bin");
	struct statfs fs;
	int fd;

	TEST_ASSERT(mapped_file__fs_refused(FUSE_SUPER_MAGIC), "FUSE accepted");
	TEST_ASSERT(!mapped_file__fs_refused(TMPFS_MAGIC), "tmpfs refused");
	TEST_ASSERT(!mapped_file__fs_refused(EXT4_SUPER_MAGIC), "ext4 refused");
	TEST_ASSERT(!mapped_file__fs_refused(NFS_SUPER_MAGIC), "NFS refused");
	TEST_ASSERT(!statfs(disk, &fs), "statfs %s: %s", disk, strerror(errno));
	fd = mapped_file__open(disk, NULL);
	TEST_ASSERT(fd >= 0, "%s (f_type %#lx) not opened: %d", disk, (long)fs.f_type, fd);
	close(fd);
	fd = open(shm, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || statfs(shm, &fs) || fs.f_type != TMPFS_MAGIC) {
		if (fd >= 0)
			close(fd);
		unlink(shm);
		return TEST_OK;	/* no tmpfs at /dev/shm: the disk's case stands */
	}
	close(fd);
	fd = mapped_file__open(shm, NULL);
	unlink(shm);
	TEST_ASSERT(fd >= 0, "a file on tmpfs not opened: %d", fd);
	close(fd);
	return TEST_OK;
}

static int test_mapped_file(struct test_ctx *ctx)
{
	struct tree t;
	int ret = tree__make(&t) ? TEST_FAIL : by_name(&t);

	if (ret == TEST_OK)
		ret = walk(&t);
	if (ret == TEST_OK)
		ret = fs_types(&t);
	if (ret == TEST_OK)
		ret = by_id(ctx, &t);
	tree__remove(&t);
	return ret;
}

const struct test_suite suite_buildid_mapped_file = {
	"buildid/mapped-file", "Build ids: a mapped binary opened by name refuses links in any "
	"component, FIFOs, devices and other files put in its place; nothing on FUSE",
	test_mapped_file,
};
