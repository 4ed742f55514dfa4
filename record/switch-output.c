/* --switch-output: its value parsed, the timestamped names of the files
 * it makes, and --switch-max-files' rotation of them. */
#include "record/switch-output.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int switch_output__parse(struct switch_output *so, const char *spec)
{
	size_t len;
	u64 v;
	int err;

	if (!spec || !strcmp(spec, "signal")) {
		so->kind = SWITCH_SIGNAL;
		return 0;
	}
	len = strlen(spec);
	/* as in perf, the case tells them apart: 5M is a size, 5m five minutes */
	if (len >= 2 && isdigit((unsigned char)spec[0]) && strchr("BKMG", spec[len - 1])) {
		err = parse_size(spec, &v);
		if (err)
			return err;
		if (v == 0)
			return -ERANGE;
		so->kind = SWITCH_SIZE;
		so->size = v;
		return 0;
	}
	err = parse_duration(spec, 1000000000ULL, SWITCH_OUTPUT_MAX_NS, &v);
	if (err)
		return err;
	so->kind = SWITCH_TIME;
	so->period_ns = v;
	return 0;
}

char *switch_output__name(struct switch_output *so, const char *base)
{
	struct timeval tv;
	struct tm tm;
	char stamp[32], *name;
	u64 cs;

	gettimeofday(&tv, NULL);
	cs = (u64)tv.tv_sec * 100 + tv.tv_usec / 10000;
	/* two of our own switches in one centisecond: the second waits for
	 * the next one (10 ms at most, once), so names stay timestamps; after
	 * a clock step backwards, a taken name gets a suffix instead */
	if (cs == so->last_cs) {
		usleep(10000 - tv.tv_usec % 10000);
		gettimeofday(&tv, NULL);
		cs = (u64)tv.tv_sec * 100 + tv.tv_usec / 10000;
	}
	so->last_cs = cs;
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	if (asprintf(&name, "%s.%s%02ld", base, stamp, (long)(tv.tv_usec / 10000)) < 0)
		return NULL;
	return name;
}

int switch_output__reserve(struct switch_output *so)
{
	char **n;

	if (so->nr_files < so->cap_files)
		return 0;
	n = realloc(so->files, (so->cap_files * 2 + 8) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	so->files = n;
	so->cap_files = so->cap_files * 2 + 8;
	return 0;
}

/* Deletes the oldest files beyond max_files. */
static void switch_output__trim(struct switch_output *so,
				void (*removed)(const char *path, void *arg), void *arg)
{
	while (so->max_files > 0 && so->nr_files > so->max_files) {
		if (!unlink(so->files[0]) && removed)
			removed(so->files[0], arg);
		free(so->files[0]);
		memmove(so->files, so->files + 1, --so->nr_files * sizeof(*so->files));
	}
}

void switch_output__created(struct switch_output *so, char *path,
			    void (*removed)(const char *path, void *arg), void *arg)
{
	so->files[so->nr_files++] = path;
	switch_output__trim(so, removed, arg);
}

/* Whether NAME is what a run with output BASE names its files:
 * BASE.YYYYMMDDHHMMSSCC, perhaps with the suffix perfdata/data.c gives a
 * taken name ("-1" to "-3", or "-" and 6 of [a-z0-9]). */
static int switch_output__own_name(const char *name, const char *base)
{
	size_t len = strlen(base), n;
	const char *p = name + len + 1;

	if (strncmp(name, base, len) || name[len] != '.' || strspn(p, "0123456789") != 16)
		return 0;
	p += 16;
	if (!*p)
		return 1;
	if (*p++ != '-')
		return 0;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
	return !p[n] && (n == 6 || (n == 1 && *p >= '1' && *p <= '3'));
}

/* A file a run of ours made: a regular file (never a link), ours, 0600 as
 * we create them, with no other name. */
static int switch_output__own_file(int dir_fd, const char *name)
{
	struct stat st;

	return !fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && (st.st_mode & 07777) == 0600 && st.st_nlink == 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int switch_output__adopt(struct switch_output *so, const char *output,
			 void (*removed)(const char *path, void *arg), void *arg)
{
	const char *slash = strrchr(output, '/'), *base = slash ? slash + 1 : output;
	char *dir = slash ? strndup(output, slash - output + 1) : strdup("./"), *path;
	int first = so->nr_files, err = 0;
	struct dirent *de;
	DIR *d;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		err = -errno;
	while (!err && (de = readdir(d))) {
		if (!switch_output__own_name(de->d_name, base) ||
		    !switch_output__own_file(dirfd(d), de->d_name))
			continue;
		err = switch_output__reserve(so);
		if (!err && asprintf(&path, "%s%s", slash ? dir : "", de->d_name) < 0)
			err = -ENOMEM;
		if (!err)
			so->files[so->nr_files++] = path;
	}
	if (d)
		closedir(d);
	free(dir);
	/* timestamps: the names sort as the files were made */
	if (so->nr_files > first)
		qsort(so->files + first, so->nr_files - first, sizeof(*so->files), cmp_names);
	switch_output__trim(so, removed, arg);
	return err;
}

void switch_output__exit(struct switch_output *so)
{
	for (int i = 0; i < so->nr_files; i++)
		free(so->files[i]);
	free(so->files);
	so->files = NULL;
	so->nr_files = 0;
}
