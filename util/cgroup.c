/* cgroups for perf record: -G opens the cgroup directories the kernel
 * filters events by, --all-cgroups names every cgroup id samples carry. */
#include "util/cgroup.h"
#include "lib/buf.h"
#include "util/event.h"
#include "util/evlist.h"
#include "lib/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

int cgroup__mountpoint(char *path, size_t sz)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent *m;
	int found = 0;

	if (!f)
		return -errno;
	/* a v1 perf_event hierarchy wins: the kernel filters by it when it exists */
	while ((m = getmntent(f)) && found < 2) {
		int v1 = !strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "perf_event");

		if (v1 || (!found && !strcmp(m->mnt_type, "cgroup2"))) {
			snprintf(path, sz, "%s", m->mnt_dir);
			found = v1 ? 2 : 1;
		}
	}
	endmntent(f);
	return found ? 0 : -ENOENT;
}

/* The mount of the cgroup v2 hierarchy (v1 0) or of the v1 hierarchy
 * with the memory controller (v1 1). 0 or -ENOENT. */
static int cgroup__memory_mount(int v1, char *path, size_t sz)
{
	FILE *f = setmntent("/proc/mounts", "r");
	struct mntent *m;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && (m = getmntent(f))) {
		if (v1 ? !strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "memory") :
			 !strcmp(m->mnt_type, "cgroup2")) {
			snprintf(path, sz, "%s", m->mnt_dir);
			err = 0;
		}
	}
	endmntent(f);
	return err;
}

/* This process's cgroup in /proc/self/cgroup: the v2 one (v1 0) or the
 * v1 one with the memory controller (v1 1), into path. 0 or -ENOENT. */
static int cgroup__own(int v1, char *path, size_t sz)
{
	char *text = read_file("/proc/self/cgroup", NULL), *save = NULL;
	int err = -ENOENT;

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && err;
	     line = strtok_r(NULL, "\n", &save)) {
		char *ctrl = strchr(line, ':'), *rel = ctrl ? strchr(ctrl + 1, ':') : NULL;
		int match;

		if (!rel)
			continue;
		*rel++ = 0;
		ctrl++;
		if (v1) {
			match = 0;
			for (char *c = ctrl, *s2 = NULL; !match && (c = strtok_r(c, ",", &s2)); c = NULL)
				match = !strcmp(c, "memory");
		} else {
			match = !strcmp(line, "0") && !*ctrl;
		}
		if (match) {
			snprintf(path, sz, "%s", rel);
			err = 0;
		}
	}
	free(text);
	return err;
}

/* One limit file of dir: m gets it where it leaves less room than m has. */
static void cgroup__limit_file(struct cgroup_memory *m, const char *dir, const char *name,
			       u64 usage)
{
	char path[CGROUP_MEM_PATH], val[64];
	u64 limit;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return;
	/* "max", or v1's "no limit", a page-rounded LONG_MAX */
	if (sysfs__read_str(path, val, sizeof(val)) || parse_u64(val, &limit) ||
	    limit >= (1ULL << 62))
		return;
	if (m->file[0] && (limit > usage ? limit - usage : 0) >= m->room)
		return;
	m->room = limit > usage ? limit - usage : 0;
	m->limit = limit;
	snprintf(m->file, sizeof(m->file), "%s", path);
}

/* The page cache charged to dir that reclaim takes back before the limit
 * is hit: the file pages on the LRU, active and inactive (the kernel
 * moves active ones down as it needs). Not v2's "file", which counts
 * tmpfs and shared memory too, that only swap could free. v1 reports the
 * hierarchy's under total_*. */
static u64 cgroup__reclaimable(const char *dir, int v1)
{
	char path[CGROUP_MEM_PATH], *text, *save = NULL;
	const char *act = v1 ? "total_active_file" : "active_file",
		   *inact = v1 ? "total_inactive_file" : "inactive_file";
	u64 sum = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/memory.stat", dir) >= sizeof(path))
		return 0;
	text = read_file(path, NULL);
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');
		u64 n;

		if (!val)
			continue;
		*val++ = 0;
		if ((!strcmp(line, act) || !strcmp(line, inact)) && !parse_u64(val, &n))
			sum += n;
	}
	free(text);
	return sum;
}

/* Every limit of one hierarchy, from this process's cgroup to the root. */
static void cgroup__memory_walk(struct cgroup_memory *m, int v1)
{
	char mnt[PATH_MAX], rel[PATH_MAX], dir[CGROUP_MEM_PATH - 64], val[64];
	size_t root;

	if (cgroup__memory_mount(v1, mnt, sizeof(mnt)) || cgroup__own(v1, rel, sizeof(rel)))
		return;
	root = strlen(mnt);
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(rel, "/") ? rel : "") >=
	    sizeof(dir))
		return;
	for (;;) {
		char path[CGROUP_MEM_PATH];
		u64 usage = 0;
		char *slash;

		snprintf(path, sizeof(path), "%s/%s", dir,
			 v1 ? "memory.usage_in_bytes" : "memory.current");
		if (!sysfs__read_str(path, val, sizeof(val)))
			parse_u64(val, &usage);
		/* what the cgroup's own writes left in the page cache is
		 * reclaimed, not an OOM kill: room, not use */
		usage -= MIN(usage, cgroup__reclaimable(dir, v1));
		if (v1) {
			cgroup__limit_file(m, dir, "memory.limit_in_bytes", usage);
		} else {
			cgroup__limit_file(m, dir, "memory.max", usage);
			cgroup__limit_file(m, dir, "memory.high", usage);
		}
		slash = strrchr(dir, '/');
		if (strlen(dir) <= root || !slash || (size_t)(slash - dir) < root)
			break;
		*slash = 0;
	}
}

int cgroup__memory_limit(struct cgroup_memory *m)
{
	memset(m, 0, sizeof(*m));
	cgroup__memory_walk(m, 0);
	cgroup__memory_walk(m, 1);
	return m->file[0] ? 0 : -ENOENT;
}

int cgroup__open(const char *name, char *errbuf, size_t errsz)
{
	char mnt[PATH_MAX], path[PATH_MAX + 256];
	int fd, err = cgroup__mountpoint(mnt, sizeof(mnt));

	if (err) {
		snprintf(errbuf, errsz, "cgroup %s: no cgroup filesystem is mounted", name);
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errsz, "no access to cgroup %s: %s", path, strerror(errno));
		return err;
	}
	return fd;
}

/* Gives event idx the cgroup name (its fd: the event owns it). */
static int cgroup__set(struct evlist *evlist, int idx, const char *name, const char *arg,
		       char *errbuf, size_t errsz)
{
	struct evsel *e;
	int fd;

	if (idx >= evlist->nr_entries) {
		snprintf(errbuf, errsz, "-G/--cgroup '%s': more cgroups than events given before it",
			 arg);
		return -EINVAL;
	}
	fd = cgroup__open(name, errbuf, errsz);
	if (fd < 0)
		return fd;
	e = evlist->entries[idx];
	if (e->cgroup_fd >= 0)
		close(e->cgroup_fd);
	e->cgroup_fd = fd;
	return 0;
}

int cgroup__assign(struct evlist *evlist, const char *arg, int *nr, char *errbuf,
		   size_t errsz)
{
	char *copy, *name, *next;
	int err = 0;

	if (!evlist->nr_entries) {
		snprintf(errbuf, errsz, "must define events before cgroups");
		return -EINVAL;
	}
	copy = strdup(arg);
	if (!copy) {
		snprintf(errbuf, errsz, "-G/--cgroup: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (name = copy; !err && name; name = next) {
		int idx = (*nr)++;

		next = strchr(name, ',');
		if (next)
			*next++ = '\0';
		if (*name)
			err = cgroup__set(evlist, idx, name, arg, errbuf, errsz);
	}
	free(copy);
	for (int i = 1; !err && *nr == 1 && i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		int fd = evlist->entries[0]->cgroup_fd;

		if (fd < 0 || e->cgroup_fd >= 0)
			continue;
		e->cgroup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (e->cgroup_fd < 0) {
			err = -errno;
			snprintf(errbuf, errsz, "-G/--cgroup '%s': %s", arg, strerror(errno));
		}
	}
	return err;
}

/* The kernel's cgroup id is the kernfs node id: the directory's file handle. */
static int cgroup__id(const char *path, u64 *id)
{
	struct {
		struct file_handle fh;
		u64 id;
	} h = { .fh.handle_bytes = sizeof(u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	*id = h.id;
	return 0;
}

static int cgroup__emit(struct buf *out, u64 sample_type, const char *path, const char *rel)
{
	struct sample_id sid = { .pid = -1, .tid = -1 };
	size_t at;
	u64 id = 0;

	if (cgroup__id(path, &id))
		return 0;	/* gone meanwhile */
	at = event__begin(out, PERF_RECORD_CGROUP, 0);
	buf__u64(out, id);
	buf__str0(out, *rel ? rel : "/");
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

/* path is a cgroup directory, root_len the mount's part of it; depth
 * bounds the recursion on a hostile tree. */
static int cgroup__walk(struct buf *out, u64 sample_type, char *path, size_t root_len,
			int depth)
{
	size_t len = strlen(path);
	struct dirent *de;
	DIR *d;
	int err = cgroup__emit(out, sample_type, path, path + root_len);

	if (err || depth > 64 || !(d = opendir(path)))
		return err;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + strlen(de->d_name) >= PATH_MAX)
			continue;
		path[len] = '/';
		strcpy(path + len + 1, de->d_name);
		err = cgroup__walk(out, sample_type, path, root_len, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
	return err;
}

int cgroup__synthesize(struct buf *out, u64 sample_type)
{
	char path[PATH_MAX];
	/* no cgroup filesystem: no cgroup to name */
	if (cgroup__mountpoint(path, sizeof(path)))
		return 0;
	return cgroup__walk(out, sample_type, path, strlen(path), 0);
}

int cgroup__v2_id(const char *path, u64 *id, char *errbuf, size_t errsz)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct {
		struct file_handle fh;
		u64 id;
	} h = { .fh.handle_bytes = sizeof(u64) };
	const char *rel = path + strspn(path, "/");
	char mnt[PATH_MAX];
	int mfd, fd, mount_id, err = cgroup__memory_mount(0, mnt, sizeof(mnt));

	if (err) {
		snprintf(errbuf, errsz, "cgroup %s: no cgroup2 filesystem is mounted", path);
		return err;
	}
	mfd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		err = -errno;
		snprintf(errbuf, errsz, "cgroup %s: %s: %s", path, mnt, strerror(errno));
		return err;
	}
	fd = *rel ? syscall(SYS_openat2, mfd, rel, &how, sizeof(how)) : dup(mfd);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errsz, "cgroup %s: %s/%s: %s", path, mnt, rel,
			 errno == ELOOP || errno == EXDEV ? "a link or outside the mount, not followed" :
			 strerror(errno));
	} else if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH)) {
		err = -errno;
		snprintf(errbuf, errsz, "cgroup %s: %s/%s: its id: %s", path, mnt, rel,
			 strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	close(mfd);
	if (!err)
		*id = h.id;
	return err;
}
