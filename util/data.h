#ifndef PERF_DATA_H
#define PERF_DATA_H

#include <sys/uio.h>
#include "util/header.h"

struct evlist;

/* One perf.data being written: a private temporary file beside the final
 * path, renamed into place only once complete. */
struct perf_data {
	char *path;		/* final name */
	char *tmp;		/* where it is written meanwhile */
	int fd;
	u64 data_offset;
	u64 data_size;
	u64 attrs_offset, attrs_size;
};

/* Creates the temporary file (0600, O_EXCL, so never through a symlink) and
 * writes the attrs with their ids. 0 or -errno with a line in errbuf naming
 * the file. */
int perf_data__create(struct perf_data *d, const char *path, const struct evlist *evlist,
		      char *errbuf, size_t errsz);
/* Append to the data section. 0 or -errno (-ENOSPC ...). */
int perf_data__write(struct perf_data *d, const void *buf, size_t len);
int perf_data__writev(struct perf_data *d, struct iovec *iov, int iovcnt);
/* Writes the features and the header, then renames the file into place; an
 * existing non-empty file there is first renamed to PATH.old when keep_old.
 * On failure the temporary file is removed. 0 or -errno with errbuf set. */
int perf_data__commit(struct perf_data *d, const struct header_info *info, int keep_old,
		      char *errbuf, size_t errsz);
/* Changes the name the file gets at commit. 0 or -ENOMEM. */
int perf_data__rename(struct perf_data *d, const char *path);
/* Removes the temporary file and frees d's strings; safe on a half-built d. */
void perf_data__abort(struct perf_data *d);

#endif
