/* --switch-output: its value parsed, the timestamped names of the files
 * it makes, and --switch-max-files' rotation of them. */
#include "record/switch-output.h"

#include <ctype.h>
#include <errno.h>
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

void switch_output__created(struct switch_output *so, char *path,
			    void (*removed)(const char *path, void *arg), void *arg)
{
	so->files[so->nr_files++] = path;
	while (so->max_files > 0 && so->nr_files > so->max_files) {
		if (!unlink(so->files[0]) && removed)
			removed(so->files[0], arg);
		free(so->files[0]);
		memmove(so->files, so->files + 1, --so->nr_files * sizeof(*so->files));
	}
}

void switch_output__exit(struct switch_output *so)
{
	for (int i = 0; i < so->nr_files; i++)
		free(so->files[i]);
	free(so->files);
	so->files = NULL;
	so->nr_files = 0;
}
