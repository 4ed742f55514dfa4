/* cgroups for perf record: -G opens the cgroup directories the kernel
 * filters events by, --all-cgroups names every cgroup id samples carry. */
#include "util/cgroup.h"
#include "lib/buf.h"
#include "util/event.h"
#include "util/evlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
