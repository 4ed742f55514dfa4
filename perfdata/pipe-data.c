/* perf.data as a stream (-o -): what perf report -i - reads from a pipe.
 * No section can be filled in later, so the header holds only the magic
 * and its own size, and the attrs, features and tracing data come first
 * as records; then the data, written as in a file. */
#include "perfdata/pipe-data.h"
#include "perfdata/data.h"
#include "util/event.h"
#include "util/evlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A record's size is 16 bits: the most ids an ATTR record carries. */
#define PIPE_ATTR_MAX_IDS ((0xffff - sizeof(struct perf_event_header) - \
			    sizeof(struct perf_event_attr)) / sizeof(u64))

int perf_data__take_stdout(struct perf_data *d, char *errbuf, size_t errsz)
{
	int mode = fcntl(STDOUT_FILENO, F_GETFL), fd;
	struct stat st;

	/* closed, fd 1 may be perf's own signalfd by now: an anonymous inode */
	if (fstat(STDOUT_FILENO, &st) || mode < 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode) ||
	      S_ISCHR(st.st_mode))) {
		snprintf(errbuf, errsz, "-o -: standard output is closed, or not a pipe, a "
			 "file or a device");
		return -EBADF;
	}
	if ((mode & O_ACCMODE) == O_RDONLY) {
		snprintf(errbuf, errsz, "-o -: standard output is open for reading only");
		return -EBADF;
	}
	if (isatty(STDOUT_FILENO)) {
		snprintf(errbuf, errsz, "-o -: standard output is a terminal: pipe it into "
			 "'perf report -i -' or redirect it to a file");
		return -ENOTTY;
	}
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	d->path = strdup("-");
	if (fd < 0 || !d->path) {
		int err = fd < 0 ? -errno : -ENOMEM;

		snprintf(errbuf, errsz, "-o -: standard output: %s", strerror(-err));
		if (fd >= 0)
			close(fd);
		free(d->path);
		d->path = NULL;
		return err;
	}
	/* no stderr to lend (2>&-): then stdout goes nowhere */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0 && null != STDOUT_FILENO) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
	}
	d->fd = fd;
	d->pipe = 1;
	return 0;
}

/* An EVENT_UPDATE record for the event whose first id is id: the string
 * str (UNIT, NAME) or the double at scale (SCALE). */
static void pipe_event_update(struct buf *b, u64 type, u64 id, const char *str,
			      const double *scale)
{
	size_t len = str ? strlen(str) + 1 : sizeof(*scale);
	u64 pad = 0;
	struct perf_event_header h = {
		.type = PERF_RECORD_EVENT_UPDATE,
		.size = sizeof(h) + 2 * sizeof(u64) + ALIGN_UP(len, sizeof(u64)),
	};

	buf__add(b, &h, sizeof(h));
	buf__u64(b, type);
	buf__u64(b, id);
	buf__add(b, str ? (const void *)str : (const void *)scale, len);
	buf__add(b, &pad, ALIGN_UP(len, sizeof(u64)) - len);
}

/* A stream has no EVENT_DESC feature: the stock perf names each event
 * with an EVENT_UPDATE after the attrs and features (else readers make a
 * name up from the attr, "cpu-clock:HG"), and gives the clocks' unit and
 * scale, as perf stat reads them. */
static void pipe_event_updates(struct buf *b, const struct evsel *e)
{
	const struct perf_event_attr *a = &e->attr;
	u64 id = 0;

	for (int k = 0; k < evsel__nr_id_slots(e) && !id; k++)
		id = evsel__id_at(e, k);
	if (!id)
		return;
	if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
					      a->config == PERF_COUNT_SW_TASK_CLOCK)) {
		static const double msec = 1e-6;

		pipe_event_update(b, EVENT_UPDATE_UNIT, id, "msec", NULL);
		pipe_event_update(b, EVENT_UPDATE_SCALE, id, NULL, &msec);
	}
	if (e->name)
		pipe_event_update(b, EVENT_UPDATE_NAME, id, e->name, NULL);
}

/* Each event's attr, then its ids, in one record. */
static int pipe_attrs(struct buf *b, const struct evlist *evlist, char *errbuf, size_t errsz)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];
		u64 nids = evsel__nr_ids(e);
		struct perf_event_header h = {
			.type = PERF_RECORD_HEADER_ATTR,
			.size = sizeof(h) + sizeof(e->attr) + nids * sizeof(u64),
		};

		if (nids > PIPE_ATTR_MAX_IDS) {
			snprintf(errbuf, errsz, "-o -: event %s has %llu ids (CPUs x threads), "
				 "more than a pipe record holds (%zu): write a file", e->name,
				 (unsigned long long)nids, PIPE_ATTR_MAX_IDS);
			return -E2BIG;
		}
		struct perf_event_attr a = evsel__file_attr(e);

		buf__add(b, &h, sizeof(h));
		buf__add(b, &a, sizeof(a));
		evsel__put_ids(e, b);
	}
	return 0;
}

int perf_data__create_pipe(struct perf_data *d, const struct header_info *info,
			   char *errbuf, size_t errsz)
{
	struct { u64 magic, size; } hdr = { PERF_MAGIC, sizeof(hdr) };
	struct buf b = { 0 };
	int err;

	buf__add(&b, &hdr, sizeof(hdr));
	err = pipe_attrs(&b, info->evlist, errbuf, errsz);
	if (err)
		goto out;
	err = header__build_pipe_features(&b, info, &d->pipe_dropped);
	for (int i = 0; !err && i < info->evlist->nr_entries; i++)
		pipe_event_updates(&b, info->evlist->entries[i]);
	if (!err)
		err = b.err ? b.err : write_all(d->fd, b.p, b.len);
	if (err)
		snprintf(errbuf, errsz, "-o -: writing the header: %s", strerror(-err));
	d->data_offset = b.len;
	d->data_size = 0;
out:
	buf__release(&b);
	return err;
}
