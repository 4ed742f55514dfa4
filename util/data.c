#include "util/data.h"
#include "util/evlist.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp_name_for(const char *path)
{
	char *copy1 = strdup(path), *copy2 = strdup(path), *out = NULL;

	if (copy1 && copy2 &&
	    asprintf(&out, "%s/.%s.tmpXXXXXX", dirname(copy1), basename(copy2)) < 0)
		out = NULL;
	free(copy1);
	free(copy2);
	return out;
}

int perf_data__create(struct perf_data *d, const char *path, const struct evlist *evlist,
		      char *errbuf, size_t errsz)
{
	struct perf_file_header hdr = { 0 };
	struct buf b = { 0 };
	u64 ids_size = 0;
	int err;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = strdup(path);
	d->tmp = tmp_name_for(path);
	if (!d->path || !d->tmp) {
		err = -ENOMEM;
		goto fail;
	}
	d->fd = mkostemp(d->tmp, O_CLOEXEC);	/* 0600, O_EXCL */
	if (d->fd < 0) {
		err = -errno;
		free(d->tmp);	/* nothing was created: keep abort from unlinking */
		d->tmp = NULL;
		goto fail;
	}
	/* header placeholder, then each event's ids, then the attrs */
	buf__zero(&b, sizeof(hdr));
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];

		buf__add(&b, e->id, e->nr_cpus * e->nr_threads * sizeof(u64));
	}
	d->attrs_offset = b.len;
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];
		struct perf_file_attr fa = { .attr = e->attr };
		u64 n = e->nr_cpus * e->nr_threads * sizeof(u64);

		fa.ids.offset = sizeof(hdr) + ids_size;
		fa.ids.size = n;
		ids_size += n;
		buf__add(&b, &fa, sizeof(fa));
	}
	d->attrs_size = b.len - d->attrs_offset;
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

int perf_data__write(struct perf_data *d, const void *buf, size_t len)
{
	int err = write_all(d->fd, buf, len);

	if (!err)
		d->data_size += len;
	return err;
}

int perf_data__writev(struct perf_data *d, struct iovec *iov, int iovcnt)
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

static int keep_old_file(const char *path)
{
	struct stat st;
	char *old;
	int err = 0;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	if (asprintf(&old, "%s.old", path) < 0)
		return -ENOMEM;
	if (rename(path, old))
		err = -errno;
	free(old);
	return err;
}

int perf_data__commit(struct perf_data *d, const struct header_info *info, int keep_old,
		      char *errbuf, size_t errsz)
{
	struct perf_file_header hdr = {
		.magic = PERF_MAGIC,
		.size = sizeof(hdr),
		.attr_size = sizeof(struct perf_file_attr),
		.attrs = { d->attrs_offset, d->attrs_size },
		.data = { d->data_offset, d->data_size },
	};
	struct buf feats = { 0 };
	u64 feat_off = d->data_offset + d->data_size;
	const char *what = "write";
	int err;

	err = header__build_features(&feats, feat_off, hdr.adds_features, info);
	if (!err)
		err = pwrite_all(d->fd, feats.p, feats.len, feat_off);
	buf__release(&feats);
	if (!err)
		err = pwrite_all(d->fd, &hdr, sizeof(hdr), 0);
	if (!err && keep_old) {
		what = "keep the old file";
		err = keep_old_file(d->path);
	}
	if (!err && rename(d->tmp, d->path)) {
		what = "rename";
		err = -errno;
	}
	if (err) {
		snprintf(errbuf, errsz, "%s: %s: %s", d->path, what, strerror(-err));
		perf_data__abort(d);
		return err;
	}
	close(d->fd);
	d->fd = -1;
	free(d->tmp);
	d->tmp = NULL;
	perf_data__abort(d);
	return 0;
}

void perf_data__abort(struct perf_data *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	if (d->tmp)
		unlink(d->tmp);
	free(d->tmp);
	free(d->path);
	d->tmp = d->path = NULL;
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
