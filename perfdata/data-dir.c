/* The stock perf's perf.data directory: a temporary directory beside the
 * final name, its data.N files, and its naming once complete. */
#include "perfdata/data-dir.h"
#include "perfdata/data.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_NAME_TRIES 8	/* PATH, then PATH-1 .. PATH-7 */

int data_dir__create(struct data_dir *dd, const char *path)
{
	char *c1 = strdup(path), *c2 = strdup(path);
	int err = 0;

	memset(dd, 0, sizeof(*dd));
	dd->dfd = -1;
	if (!c1 || !c2 || asprintf(&dd->tmp, "%s/.%s.dir.%d.XXXXXX", dirname(c1), basename(c2),
				   (int)getpid()) < 0) {
		dd->tmp = NULL;
		err = -ENOMEM;
	}
	free(c1);
	free(c2);
	if (err)
		return err;
	if (!mkdtemp(dd->tmp)) {	/* 0700, a name nobody could plant */
		err = -errno;
		free(dd->tmp);
		dd->tmp = NULL;
		return err;
	}
	dd->dfd = open(dd->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dd->dfd < 0) {
		err = -errno;
		data_dir__abort(dd);
	}
	return err;
}

/* The pid of a name data_dir__create() makes for base ("." base ".dir."
 * PID "." and mkdtemp's six characters), or 0 for any other name. */
static pid_t stale_pid(const char *name, const char *base)
{
	size_t bl = strlen(base);
	const char *p = name + 1 + bl, *x;
	char *end;
	long pid;

	if (name[0] != '.' || strncmp(name + 1, base, bl) || strncmp(p, ".dir.", 5))
		return 0;
	pid = strtol(p + 5, &end, 10);
	if (end == p + 5 || *end != '.' || pid <= 0 || pid > INT32_MAX)
		return 0;
	for (x = end + 1; *x; x++)
		if (!(*x >= '0' && *x <= '9') && !(*x >= 'a' && *x <= 'z') &&
		    !(*x >= 'A' && *x <= 'Z'))
			return 0;
	return x - (end + 1) == 6 ? (pid_t)pid : 0;
}

/* "data" or "data.N": the names data_dir__create()'s files take */
static int is_data_name(const char *name)
{
	if (!strcmp(name, "data"))
		return 1;
	if (strncmp(name, "data.", 5) || !name[5])
		return 0;
	for (name += 5; *name; name++)
		if (*name < '0' || *name > '9')
			return 0;
	return 1;
}

/* Empties and removes the directory name of dfd, opened without following
 * a link and checked ours (a directory this user owns, 0700 as made):
 * only its header and data.N files go, so that anything else in it keeps
 * it. 0 or -errno. */
static int remove_stale(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
		close(fd);
		return -EPERM;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((e = readdir(d)))
		if (is_data_name(e->d_name))
			unlinkat(fd, e->d_name, 0);	/* a link goes, never what it names */
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR))
		err = -errno;
	return err;
}

int data_dir__clean_stale(const char *path, int verbose)
{
	char *c1 = strdup(path), *c2 = strdup(path);
	int dfd = c1 && c2 ? open(dirname(c1), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, n = 0;
	const char *base = c2 ? basename(c2) : NULL;
	struct dirent *e;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;

	while (d && (e = readdir(d))) {
		pid_t pid = stale_pid(e->d_name, base);

		/* a recorder that still runs (or a pid taken again) keeps its own */
		if (!pid || !kill(pid, 0) || errno != ESRCH || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		if (!remove_stale(dirfd(d), e->d_name)) {
			n++;
			if (verbose)
				pr_err("perf record: removed %s, left by recorder %d (killed)\n",
				       e->d_name, (int)pid);
		}
	}
	if (d)
		closedir(d);
	else if (dfd >= 0)
		close(dfd);
	free(c1);
	free(c2);
	return n;
}

int data_dir__open_file(struct data_dir *dd, int idx, struct perf_data *d)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "data.%d", idx);
	fd = openat(dd->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (idx >= dd->nr)
		dd->nr = idx + 1;
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	return 0;
}

char *data_dir__header_path(const struct data_dir *dd)
{
	char *p;

	return asprintf(&p, "%s/data", dd->tmp) < 0 ? NULL : p;
}

/* An existing output becomes PATH.old, as the stock perf keeps it; an
 * older PATH.old that is in the way stays, and the new one then takes
 * another name. */
static void keep_old_dir(const char *path)
{
	struct stat st;
	char *old;

	if (lstat(path, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return;
	if (asprintf(&old, "%s.old", path) < 0)
		return;
	if (renameat2(AT_FDCWD, path, AT_FDCWD, old, RENAME_NOREPLACE) && errno == EINVAL &&
	    S_ISREG(st.st_mode))
		(void)rename(path, old);	/* no RENAME_NOREPLACE here: a file's old is ours */
	free(old);
}

int data_dir__place(struct data_dir *dd, const char *path, int keep_old, char *placed,
		    size_t placedsz)
{
	int err = -EEXIST;

	if (keep_old)
		keep_old_dir(path);
	for (int i = 0; i < DIR_NAME_TRIES && (err == -EEXIST || err == -ENOTEMPTY); i++) {
		if (i)
			snprintf(placed, placedsz, "%s-%d", path, i);
		else
			snprintf(placed, placedsz, "%s", path);
		/* never replaces: a directory rename would take an empty one's place */
		err = renameat2(AT_FDCWD, dd->tmp, AT_FDCWD, placed, RENAME_NOREPLACE) ? -errno : 0;
	}
	if (err)
		return err;
	free(dd->tmp);
	dd->tmp = NULL;
	data_dir__abort(dd);
	return 0;
}

void data_dir__abort(struct data_dir *dd)
{
	if (dd->tmp && dd->dfd >= 0) {
		char name[32];

		for (int i = 0; i < dd->nr; i++) {
			snprintf(name, sizeof(name), "data.%d", i);
			unlinkat(dd->dfd, name, 0);
		}
		unlinkat(dd->dfd, "data", 0);
	}
	if (dd->tmp)
		rmdir(dd->tmp);
	if (dd->dfd >= 0)
		close(dd->dfd);
	free(dd->tmp);
	dd->tmp = NULL;
	dd->dfd = -1;
	dd->nr = 0;
}

void data_dir__free_names(char **names, int nr)
{
	for (int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* One entry of the scan: 1 a record file, 0 not one, -ELOOP a link. */
static int data_dir__is_part(int dfd, const char *name)
{
	struct stat st;

	if (strncmp(name, "data.", 5))
		return 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;	/* gone since readdir: as if never there */
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISREG(st.st_mode);
}

static int data_dir__add_name(char ***names, int *nr, const char *name)
{
	char **n = realloc(*names, (*nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	*names = n;
	n[*nr] = strdup(name);
	if (!n[*nr])
		return -ENOMEM;
	(*nr)++;
	return 0;
}

int data_dir__scan(int dfd, char ***names, int *nr)
{
	int fd = dup(dfd), err = 0;
	struct dirent *de;
	DIR *dir;

	*names = NULL;
	*nr = 0;
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(dir);	/* dfd's offset is shared with the dup */
	while (!err && (errno = 0, de = readdir(dir))) {
		err = data_dir__is_part(dfd, de->d_name);
		if (err == -ELOOP) {
			data_dir__free_names(*names, *nr);
			*names = NULL;
			*nr = 0;
			if (data_dir__add_name(names, nr, de->d_name))
				err = -ENOMEM;
		} else if (err > 0) {
			err = data_dir__add_name(names, nr, de->d_name);
		}
	}
	if (!err && errno)
		err = -errno;
	closedir(dir);
	if (err && err != -ELOOP) {
		data_dir__free_names(*names, *nr);
		*names = NULL;
		*nr = 0;
	}
	return err;
}

