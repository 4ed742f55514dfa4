/* perf.data as hostile input: a file's header, attrs, ids and features
 * read and checked whole, its records through a window (records.c), a
 * stream's header records as they come; samples decoded by their event's
 * layout. */
#include "perfdata/reader.h"
#include "perfdata/reader-internal.h"
#include "perfdata/header-internal.h"
#include "perfdata/compress.h"
#include "perfdata/data-dir.h"
#include "util/event.h"
#include "util/tp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

/* Every sample_type bit up to WEIGHT_STRUCT, the last one Linux 6.18
 * defines, and every read_format bit up to LOST. */
#define KNOWN_SAMPLE_TYPE ((PERF_SAMPLE_WEIGHT_STRUCT << 1) - 1)
#define KNOWN_READ_FORMAT ((PERF_FORMAT_LOST << 1) - 1)
/* branch_sample_type's COUNTERS (Linux 6.8, after the headers this builds
 * with): a u64 of counters per branch entry follows the entries */
#define BRANCH_SAMPLE_COUNTERS (1ULL << 19)
#define ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* No perf session has this many events; a stream may add no more. */
#define READER_MAX_STREAM_EVENTS 4096
#define READER_STR_(x) #x
#define READER_STR(x) READER_STR_(x)

static int in_file(const struct perf_reader *r, u64 off, u64 size)
{
	return off <= r->size && size <= r->size - off;
}

const char *reader__at(const struct perf_reader *r, u64 off, u64 size)
{
	u64 start = r->hdr.data.offset, end = start + r->hdr.data.size;

	if (r->head && off <= start && size <= start - off)
		return r->head + off;
	if (r->tail && off >= end && in_file(r, off, size))
		return r->tail + (off - end);
	return NULL;
}

/* Where feature feat's {offset,size} is: the table follows the data. */
static u64 feature_entry(const struct perf_reader *r, int feat)
{
	int idx = 0;

	for (int f = 0; f < feat; f++)
		idx += feature__isset(r->hdr.adds_features, f);
	return r->hdr.data.offset + r->hdr.data.size + idx * sizeof(struct perf_file_section);
}

const void *reader__feature(const struct perf_reader *r, int feat, u64 *size)
{
	struct perf_file_section sec;

	if (feat < 0 || feat >= HEADER_FEAT_BITS || !feature__isset(r->hdr.adds_features, feat))
		return NULL;
	if (r->pipe) {
		*size = r->feats[feat].len;
		return r->feats[feat].p ? r->feats[feat].p : (const void *)r->feats;
	}
	/* reader__open() checked every section: in the file, after the table */
	memcpy(&sec, reader__at(r, feature_entry(r, feat), sizeof(sec)), sizeof(sec));
	*size = sec.size;
	return reader__at(r, sec.offset, sec.size);
}

/* The table and every section it lists inside the file, the sections after
 * the table: a truncated file or one whose features overlap the header,
 * attrs or data is refused, as the stock perf does; and so is one whose
 * machine description lies about its counts, which the stock perf crashes
 * or spins on. Returns 0, or -1 with the culprit in *bad (-1: the table). */
static int features_check(const struct perf_reader *r, int *bad)
{
	u64 table_end = feature_entry(r, HEADER_FEAT_BITS);
	u32 nr_cpus = 0;	/* NRCPUS's available CPUs: its bit comes first */

	*bad = -1;
	if (!reader__at(r, r->hdr.data.offset + r->hdr.data.size,
			table_end - r->hdr.data.offset - r->hdr.data.size))
		return -1;
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		struct perf_file_section sec;
		const char *body;

		if (!feature__isset(r->hdr.adds_features, f))
			continue;
		*bad = f;
		memcpy(&sec, reader__at(r, feature_entry(r, f), sizeof(sec)), sizeof(sec));
		body = reader__at(r, sec.offset, sec.size);
		if (!body || sec.offset < table_end ||
		    header__check_feature(f, body, sec.size, nr_cpus))
			return -1;
		if (f == HEADER_NRCPUS && sec.size >= sizeof(nr_cpus))
			memcpy(&nr_cpus, body, sizeof(nr_cpus));
	}
	return 0;
}

/* Names from EVENT_DESC: {attr, u32 nr_ids, string name, ids}, matched by
 * ids to our evsels. Silently ignores anything malformed (names are optional). */
static void reader__read_names(struct perf_reader *r)
{
	u64 size, pos = 8;
	const char *p = reader__feature(r, HEADER_EVENT_DESC, &size);
	u32 nr, attr_sz;

	if (!p || size < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&attr_sz, p + 4, 4);
	for (u32 i = 0; i < nr; i++) {
		u32 nr_ids, len;

		if (pos + attr_sz + 8 > size)
			return;
		pos += attr_sz;
		memcpy(&nr_ids, p + pos, 4);
		memcpy(&len, p + pos + 4, 4);
		pos += 8;
		if (len == 0 || len > size - pos || !memchr(p + pos, 0, len))
			return;
		const char *name = p + pos;

		pos += len;
		if ((u64)nr_ids * 8 > size - pos)
			return;
		pos += (u64)nr_ids * 8;
		if ((int)i < r->nr_evsels && !r->evsels[i].name)
			r->evsels[i].name = strdup(name);
	}
}

static char *default_name(const struct perf_reader *r, const struct perf_event_attr *a)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
		"cache-misses", "branches", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
		"context-switches", "cpu-migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "dummy", "bpf-output" };
	char buf[256];

	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw))
		return strdup(hw[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw))
		return strdup(sw[a->config]);
	if (a->type == PERF_TYPE_TRACEPOINT && r->tep) {
		struct tep_event *ev = tep_find_event(r->tep, a->config);

		if (ev) {
			snprintf(buf, sizeof(buf), "%s:%s", ev->system, ev->name);
			return strdup(buf);
		}
	}
	snprintf(buf, sizeof(buf), "raw 0x%x:0x%llx", a->type, (unsigned long long)a->config);
	return strdup(buf);
}

/* A sample's id finds its event in O(1): a file may hold millions of ids
 * (one per event, cpu and thread) and as many samples. An id that two
 * events claim is a lie in the ids sections (the kernel gives every event
 * its own): the stock perf then reads that id's samples with the last
 * claimant's layout and refuses the file, and so do we. Built again
 * whole when a stream adds an event (the events move). 0, -ENOMEM, or
 * -EEXIST with the id and events in *dup. */
static int reader__hash_ids(struct perf_reader *r, u64 dup[3])
{
	id_hash__exit(&r->ids);
	for (int i = 0; i < r->nr_evsels; i++) {
		for (u64 k = 0; k < r->evsels[i].nr_ids; k++) {
			u64 id = r->evsels[i].ids[k];
			const struct reader_evsel *owner = id_hash__find(&r->ids, id);

			if (owner && owner != &r->evsels[i]) {
				dup[0] = id;
				dup[1] = owner - r->evsels;
				dup[2] = i;
				return -EEXIST;
			}
			if (id_hash__add(&r->ids, id, &r->evsels[i]))
				return -ENOMEM;
		}
	}
	return 0;
}

static int fail(char *err, size_t errsz, const char *path, const char *why)
{
	snprintf(err, errsz, "%s: %s", path, why);
	return -EINVAL;
}

/* Where a sample's id is, in u64s after the header; -1 if it has none. */
static int id_pos(u64 t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return (sample__id_offset(t) - sizeof(struct perf_event_header)) / sizeof(u64);
}

/* Where a trailer's id is, in u64s back from the record's end; -1 if none. */
static int is_pos(u64 t)
{
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
}

/* An event's layout is one this reader decodes and, with several events,
 * one whose id is where every other event's is: the stock perf refuses
 * the same files ("non matching sample_type", "sample_id_all",
 * "read_format"). Events may differ in every other field. */
static int reader__check_attr(struct perf_reader *r, struct reader_evsel *e, const char *path,
			      char *err, size_t errsz)
{
	const struct perf_event_attr *a = &e->attr, *first = &r->evsels[0].attr;
	int idx = e - r->evsels;

	if (a->sample_type & ~(u64)KNOWN_SAMPLE_TYPE) {
		snprintf(err, errsz, "%s: event %d: unsupported sample_type bits %#llx", path, idx,
			 (unsigned long long)(a->sample_type & ~(u64)KNOWN_SAMPLE_TYPE));
		return -EINVAL;
	}
	if ((a->sample_type & PERF_SAMPLE_READ) && (a->read_format & ~(u64)KNOWN_READ_FORMAT)) {
		snprintf(err, errsz, "%s: event %d: unsupported read_format bits %#llx", path, idx,
			 (unsigned long long)(a->read_format & ~(u64)KNOWN_READ_FORMAT));
		return -EINVAL;
	}
	e->id_type = a->sample_id_all ? a->sample_type & ID_FIELDS : 0;
	if (idx == 0) {
		if ((a->sample_type & PERF_SAMPLE_READ) && !(a->read_format & PERF_FORMAT_ID))
			return fail(err, errsz, path, "PERF_SAMPLE_READ without PERF_FORMAT_ID");
		r->id_pos = id_pos(a->sample_type);
		r->is_pos = is_pos(a->sample_type);
		return 0;
	}
	if (a->sample_id_all != first->sample_id_all)
		return fail(err, errsz, path, "events disagree on sample_id_all");
	if (r->id_pos < 0 || r->is_pos < 0 || id_pos(a->sample_type) != r->id_pos ||
	    is_pos(a->sample_type) != r->is_pos)
		return fail(err, errsz, path, "events do not all have their id at the same place "
			    "in their records (non matching sample_type)");
	return 0;
}

/* All of len bytes at off, or a line saying why not. */
static int pread_all(int fd, char *p, u64 len, u64 off, const char *path, u64 size,
		     char *err, size_t errsz)
{
	for (u64 got = 0; got < len;) {
		ssize_t n = pread(fd, p + got, MIN(len - got, (u64)1 << 30), off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errsz, "%s: %s at offset %#llx of its %llu bytes%s", path,
				 n ? strerror(errno) : "file truncated while being read",
				 (unsigned long long)(off + got), (unsigned long long)size,
				 n ? "" : " (someone is writing it?)");
			return n ? -errno : -EINVAL;
		}
		got += n;
	}
	return 0;
}

/* The header's magic and sizes, and that the data section is in the file. */
static int reader__check_sizes(struct perf_reader *r, const char *path, char *err,
			       size_t errsz)
{
	u64 attr_sz = r->hdr.attr_size;

	if (attr_sz < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) || attr_sz > 4096 ||
	    attr_sz % 8)
		return fail(err, errsz, path, "bad attr size");
	if (!in_file(r, r->hdr.data.offset, r->hdr.data.size) || r->hdr.data.offset < sizeof(r->hdr))
		return fail(err, errsz, path, "data section out of bounds (truncated file?)");
	if (r->hdr.data.offset % 8)
		return fail(err, errsz, path, "misaligned data section");
	return 0;
}

/* What is before and after the data section, read whole (header, attrs,
 * ids, features: small next to the records), then every section it
 * names checked to be in it. Read, not mapped: a mapped file that
 * someone truncates while it is read kills the reader with SIGBUS. */
static int reader__load_meta(struct perf_reader *r, const char *path, char *err,
			     size_t errsz)
{
	u64 end = r->hdr.data.offset + r->hdr.data.size;
	int ret, bad;

	r->head = malloc(r->hdr.data.offset);
	r->tail = malloc(r->size - end + 1);
	if (!r->head || !r->tail)
		return fail(err, errsz, path, strerror(ENOMEM));
	ret = pread_all(r->fd, r->head, r->hdr.data.offset, 0, path, r->size, err, errsz);
	if (!ret)
		ret = pread_all(r->fd, r->tail, r->size - end, end, path, r->size, err, errsz);
	if (ret)
		return ret;
	if (!reader__at(r, r->hdr.attrs.offset, r->hdr.attrs.size) ||
	    r->hdr.attrs.size % r->hdr.attr_size || r->hdr.attrs.size == 0 ||
	    r->hdr.attrs.offset < sizeof(r->hdr))
		return fail(err, errsz, path, "attrs section out of bounds");
	if (features_check(r, &bad)) {
		char what[96];

		if (bad < 0)
			return fail(err, errsz, path, "feature table out of bounds (truncated file?)");
		snprintf(what, sizeof(what), "feature section %d (%s) out of bounds or inconsistent "
			 "(truncated file?)", bad, feature__name(bad) ? feature__name(bad) : "unknown");
		return fail(err, errsz, path, what);
	}
	return 0;
}

/* Each file attr (reader__check_sizes() checked its size) into an evsel,
 * with its ids, every layout checked. */
static int reader__read_attrs(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	u64 attr_sz = r->hdr.attr_size, nr = r->hdr.attrs.size / attr_sz;
	int ret;

	r->evsels = calloc(nr, sizeof(*r->evsels));
	if (!r->evsels)
		return fail(err, errsz, path, strerror(ENOMEM));
	r->nr_evsels = nr;
	for (u64 i = 0; i < nr; i++) {
		const char *fa = reader__at(r, r->hdr.attrs.offset + i * attr_sz, attr_sz);
		struct reader_evsel *e = &r->evsels[i];
		struct perf_file_section ids;
		u32 asz;

		memcpy(&asz, fa + offsetof(struct perf_event_attr, size), 4);
		if (asz < PERF_ATTR_SIZE_VER0 || asz > attr_sz - sizeof(ids))
			return fail(err, errsz, path, "bad attr.size");
		memcpy(&e->attr, fa, MIN(asz, sizeof(e->attr)));
		memcpy(&ids, fa + attr_sz - sizeof(ids), sizeof(ids));
		e->ids = (const u64 *)reader__at(r, ids.offset, ids.size);
		if (!e->ids || ids.size % 8 || ids.offset % 8)
			return fail(err, errsz, path, "event ids out of bounds");
		e->nr_ids = ids.size / 8;
		ret = reader__check_attr(r, e, path, err, errsz);
		if (ret)
			return ret;
	}
	return 0;
}

/* reader__hash_ids(), with the line that says which id two events claim. */
static int reader__index_ids(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	char why[160];
	u64 dup[3];
	int ret = reader__hash_ids(r, dup);

	if (ret == -EEXIST) {
		snprintf(why, sizeof(why), "event ids: id %llu is claimed by events %llu and %llu",
			 (unsigned long long)dup[0], (unsigned long long)dup[1],
			 (unsigned long long)dup[2]);
		return fail(err, errsz, path, why);
	}
	if (ret)
		return fail(err, errsz, path, strerror(-ret));
	return 0;
}

int reader__add_attr(struct perf_reader *r, const void *attr, u32 asz, const void *ids,
		     u64 nr_ids, char *err, size_t errsz)
{
	struct reader_evsel *n, *e;
	int ret;

	/* each one hashes every id again: a stream of lies must not make
	 * that quadratic in its length */
	if (r->nr_evsels >= READER_MAX_STREAM_EVENTS)
		return fail(err, errsz, r->path, "more than " READER_STR(READER_MAX_STREAM_EVENTS)
			    " events (HEADER_ATTR records)");
	n = realloc(r->evsels, (r->nr_evsels + 1) * sizeof(*n));
	if (!n)
		return fail(err, errsz, r->path, strerror(ENOMEM));
	r->evsels = n;
	e = &n[r->nr_evsels++];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, attr, MIN((size_t)asz, sizeof(e->attr)));
	e->attr.size = MIN((size_t)asz, sizeof(e->attr));
	e->own_ids = malloc(nr_ids * sizeof(u64) + 1);
	if (!e->own_ids)
		return fail(err, errsz, r->path, strerror(ENOMEM));
	memcpy(e->own_ids, ids, nr_ids * sizeof(u64));
	e->ids = e->own_ids;
	e->nr_ids = nr_ids;
	ret = reader__check_attr(r, e, r->path, err, errsz);
	if (!ret)
		ret = reader__index_ids(r, r->path, err, errsz);
	/* named when the stream's header records end, or now if they have */
	if (!ret && r->named && !(e->name = default_name(r, &e->attr)))
		ret = fail(err, errsz, r->path, strerror(ENOMEM));
	return ret;
}

int reader__set_tracing_data(struct perf_reader *r, const void *td, u64 size, int padded)
{
	if (r->tep)	/* a stream may repeat it: the first one stays */
		return 0;
	r->tep = tp__parse_tracing_data(td, size, &r->described, &r->formats);
	/* a stream's is padded to 8 bytes: its end is one of the last 8 */
	for (u64 pad = 1; padded && !r->tep && pad < 8 && pad <= size; pad++) {
		if (((const char *)td)[size - pad])
			break;
		id_hash__exit(&r->described);
		r->tep = tp__parse_tracing_data(td, size - pad, &r->described, &r->formats);
	}
	return r->tep ? 0 : -EINVAL;
}

/* The tracepoints' formats, from TRACING_DATA (of a stream: its record):
 * as the stock perf, a tracepoint event without it, or one the section
 * does not describe at all, makes the file unreadable (one described by
 * a format too broken to use only loses its decoding). */
static int reader__check_tracing_data(struct perf_reader *r, char *err, size_t errsz)
{
	u64 tsize;
	const void *td = r->pipe ? NULL : reader__feature(r, HEADER_TRACING_DATA, &tsize);

	if (td && reader__set_tracing_data(r, td, tsize, 0))
		return fail(err, errsz, r->path, "malformed TRACING_DATA section");
	for (int i = 0; i < r->nr_evsels; i++) {
		const struct perf_event_attr *a = &r->evsels[i].attr;

		if (a->type != PERF_TYPE_TRACEPOINT)
			continue;
		if (!r->tep)
			return fail(err, errsz, r->path, "tracepoint events but no TRACING_DATA section");
		if (!id_hash__find(&r->described, a->config)) {
			snprintf(err, errsz, "%s: cannot find event format for %llu", r->path,
				 (unsigned long long)a->config);
			return -EINVAL;
		}
	}
	return 0;
}

/* Every event's name: EVENT_DESC's, else one made from its attr. */
static int reader__name_evsels(struct perf_reader *r, char *err, size_t errsz)
{
	reader__read_names(r);
	for (int i = 0; i < r->nr_evsels; i++)
		if (!r->evsels[i].name && !(r->evsels[i].name = default_name(r, &r->evsels[i].attr)))
			return fail(err, errsz, r->path, strerror(ENOMEM));
	r->named = 1;
	return 0;
}

/* A perf.data file's header (read, with its size, from the stream
 * reader__open() started), then all but its records; its records are
 * then read from where the data section starts. */
static int reader__open_file(struct perf_reader *r, char *err, size_t errsz)
{
	const char *p;
	size_t got;
	int ret = stream__need(&r->src, sizeof(r->hdr), &p, &got);

	if (ret == -ENODATA)
		return fail(err, errsz, r->path, "truncated header");
	if (ret)
		return fail(err, errsz, r->path, strerror(-ret));
	memcpy(&r->hdr, p, sizeof(r->hdr));
	if (r->src.seq)
		return fail(err, errsz, r->path, "a perf.data file on a pipe: only a stream "
			    "(perf record -o -) can be read from one, a file with -i FILE");
	ret = reader__check_sizes(r, r->path, err, errsz);
	if (!ret)
		ret = reader__load_meta(r, r->path, err, errsz);
	if (!ret)
		ret = reader__read_attrs(r, r->path, err, errsz);
	if (!ret)
		ret = reader__index_ids(r, r->path, err, errsz);
	stream__exit(&r->src);
	stream__init(&r->src, r->fd, 0, r->hdr.data.offset,
		     r->hdr.data.offset + r->hdr.data.size);
	r->part_size = r->hdr.data.size;
	return ret;
}

/* A directory's header file "data", opened in it: never through a link,
 * never waiting on a FIFO put there. */
static int reader__open_dir(struct perf_reader *r, struct stat *st, char *err, size_t errsz)
{
	r->dfd = r->fd;
	r->fd = -1;
	if (asprintf(&r->own_path, "%s/data", r->path) < 0) {
		r->own_path = NULL;
		return fail(err, errsz, r->path, strerror(ENOMEM));
	}
	r->path = r->own_path;
	r->fd = openat(r->dfd, "data", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, st)) {
		snprintf(err, errsz, "%s: %s%s", r->path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link: not followed)" : "");
		return -errno;
	}
	if (!S_ISREG(st->st_mode))
		return fail(err, errsz, r->path, "not a regular file");
	return 0;
}

/* path's fd (standard input for "-"), and a stream on it from its start
 * (a pipe: from where it stands); a directory's header file. */
static int reader__open_fd(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	struct stat st;
	int seq;

	r->path = path;
	r->own_fd = strcmp(path, "-") != 0;
	r->fd = r->own_fd ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (r->fd < 0 || fstat(r->fd, &st)) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode) && r->own_fd) {
		int ret = reader__open_dir(r, &st, err, errsz);

		if (ret)
			return ret;
	}
	seq = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode);
	if (!S_ISREG(st.st_mode) && !seq)
		return fail(err, errsz, path, "not a regular file or a pipe");
	r->size = seq ? 0 : st.st_size;
	stream__init(&r->src, r->fd, seq, 0, seq ? ~0ULL : r->size);
	return 0;
}

/* The magic and the header's size: a file's header, or a stream's. */
static int reader__open_header(struct perf_reader *r, char *err, size_t errsz)
{
	const char *p;
	size_t got = 0;
	u64 v[2];
	int ret = stream__need(&r->src, sizeof(v), &p, &got);

	if (ret == -ENODATA)
		return fail(err, errsz, r->path, got ? "truncated header" :
			    r->src.seq ? "no data on the pipe" : "file is empty");
	if (ret)
		return fail(err, errsz, r->path, strerror(-ret));
	memcpy(v, p, sizeof(v));
	if (v[0] == __builtin_bswap64(PERF_MAGIC))
		return fail(err, errsz, r->path, "big-endian perf.data files are not supported");
	if (v[0] != PERF_MAGIC)
		return fail(err, errsz, r->path, "not a perf.data file (bad magic)");
	if (v[1] == sizeof(v)) {
		r->pipe = 1;
		return stream__skip(&r->src, sizeof(v));
	}
	if (v[1] != sizeof(r->hdr))
		return fail(err, errsz, r->path, "unsupported header size");
	return reader__open_file(r, err, errsz);
}

/* The record files beside a directory's header, when its DIR_FORMAT
 * says there are some: version 1, the stock perf's; version 0 is its
 * "single file", read alone, and others are refused, as it does. */
static int reader__open_parts(struct perf_reader *r, char *err, size_t errsz)
{
	u64 size, version;
	const void *f = reader__feature(r, HEADER_DIR_FORMAT, &size);
	char why[160];
	int ret;

	if (!f)		/* the stock perf reads the header file alone too */
		return 0;
	if (size < sizeof(version))
		return fail(err, errsz, r->path, "DIR_FORMAT feature without its version");
	memcpy(&version, f, sizeof(version));
	if (!version)	/* the stock's "single file": the header file alone */
		return 0;
	if (version != 1) {
		snprintf(why, sizeof(why), "DIR_FORMAT version %llu: only version 1 (the stock "
			 "perf's) is known", (unsigned long long)version);
		return fail(err, errsz, r->path, why);
	}
	ret = data_dir__scan(r->dfd, &r->parts, &r->nr_parts);
	if (ret == -ELOOP) {
		snprintf(err, errsz, "%.*s%s: a symbolic link: not followed (a perf.data directory "
			 "holds its files)", (int)(strlen(r->path) - 4), r->path, r->parts[0]);
		return -ELOOP;
	}
	if (ret)
		return fail(err, errsz, r->path, strerror(-ret));
	if (!r->nr_parts)
		return fail(err, errsz, r->path, "DIR_FORMAT says it heads a perf.data directory, "
			    "but no data.N record file is beside it");
	return 0;
}

int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = r->dfd = r->part_fd = -1;
	ret = reader__open_fd(r, path, err, errsz);
	if (!ret)
		ret = reader__open_header(r, err, errsz);
	if (!ret && r->dfd >= 0)
		ret = reader__open_parts(r, err, errsz);
	if (!ret && r->pipe)
		ret = reader__open_stream(r, err, errsz);
	if (!ret)
		ret = reader__check_tracing_data(r, err, errsz);
	if (!ret)
		ret = reader__name_evsels(r, err, errsz);
	return ret;
}

void reader__close(struct perf_reader *r)
{
	decompressor__delete(r->decomp);
	buf__release(&r->comp_left);
	buf__release(&r->dec);
	stream__exit(&r->src);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->dfd >= 0)
		close(r->dfd);
	if (r->part_fd >= 0)
		close(r->part_fd);
	data_dir__free_names(r->parts, r->nr_parts);
	free(r->own_path);
	id_hash__exit(&r->ids);
	id_hash__exit(&r->described);
	for (int i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i].name);
		free(r->evsels[i].own_ids);
	}
	free(r->evsels);
	for (int f = 0; r->feats && f < HEADER_FEAT_BITS; f++)
		buf__release(&r->feats[f]);
	free(r->feats);
	if (r->tep)
		tep_free(r->tep);
	free(r->head);
	free(r->tail);
	free(r->align);
	memset(r, 0, sizeof(*r));
	r->fd = r->dfd = r->part_fd = -1;
}

const char *reader__part_name(const struct perf_reader *r, int part)
{
	return part > 0 && part <= r->nr_parts ? r->parts[part - 1] : "data";
}

const struct reader_evsel *reader__evsel(const struct perf_reader *r, u64 id)
{
	if (r->nr_evsels == 1 || !id)
		return &r->evsels[0];
	return id_hash__find(&r->ids, id);
}

/* A sample's fields, read front to back, each checked against its end. */
struct cursor {
	const u64 *p, *end;
	const char *bad;
};

static int cursor__u64(struct cursor *c, u64 *v, const char *what)
{
	if (c->p >= c->end) {
		c->bad = what;
		return -EINVAL;
	}
	*v = *c->p++;
	return 0;
}

/* bytes of variable data (padded to u64s, as the kernel writes them) */
static const void *cursor__bytes(struct cursor *c, u64 bytes, const char *what)
{
	const u64 *at = c->p;

	if (bytes > (u64)((const char *)c->end - (const char *)c->p)) {
		c->bad = what;
		return NULL;
	}
	c->p += ALIGN_UP(bytes, 8) / 8;
	return at;
}

/* n u64s, n from the file: n * 8 must not wrap */
static const u64 *cursor__u64s(struct cursor *c, u64 n, const char *what)
{
	if (n > (u64)(c->end - c->p)) {
		c->bad = what;
		return NULL;
	}
	return cursor__bytes(c, n * 8, what);
}

static int parse_read(struct cursor *c, u64 rf, struct sample *s)
{
	/* the enabled and running times come once; id and lost per value */
	u64 times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	u64 per_value = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST), nr = 1;

	if (rf & PERF_FORMAT_GROUP) {
		if (c->p >= c->end) {
			c->bad = "read values: no room for their number";
			return -EINVAL;
		}
		nr = *c->p;
		if (nr > (u64)(c->end - c->p) / per_value) {
			c->bad = "read values: more group members than the record holds";
			return -EINVAL;
		}
		s->nr_read = 1 + times + nr * per_value;
	} else {
		s->nr_read = times + per_value;
	}
	s->read = cursor__u64s(c, s->nr_read, "read values past the record's end");
	return s->read ? 0 : -EINVAL;
}

static int parse_regs(struct cursor *c, u64 mask, struct sample_regs *regs, const char *what)
{
	if (cursor__u64(c, &regs->abi, what))
		return -EINVAL;
	regs->mask = mask;
	/* the kernel writes no registers for a task without user state */
	if (regs->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	regs->regs = cursor__u64s(c, __builtin_popcountll(mask), what);
	return regs->regs ? 0 : -EINVAL;
}

static int parse_branches(struct cursor *c, u64 bst, struct sample *s)
{
	/* from, to, flags: 3 u64s; the counters add one each */
	u64 per = 3 + !!(bst & BRANCH_SAMPLE_COUNTERS);

	if (cursor__u64(c, &s->nr_branch, "branch stack: no room for its number"))
		return -EINVAL;
	if ((bst & PERF_SAMPLE_BRANCH_HW_INDEX) &&
	    !(s->branch_hw_idx = cursor__u64s(c, 1, "branch stack: no room for hw_idx")))
		return -EINVAL;
	if (s->nr_branch > (u64)(c->end - c->p) / per) {
		c->bad = "branch stack longer than the record";
		return -EINVAL;
	}
	s->branch = cursor__u64s(c, s->nr_branch * 3, "branch stack longer than the record");
	if (bst & BRANCH_SAMPLE_COUNTERS)
		s->branch_counters = cursor__u64s(c, s->nr_branch, "branch counters past the end");
	return 0;
}

static int parse_stack(struct cursor *c, struct sample *s)
{
	if (cursor__u64(c, &s->stack_size, "user stack: no room for its size"))
		return -EINVAL;
	/* an empty dump has no dyn_size either */
	if (!s->stack_size)
		return 0;
	if (s->stack_size % 8) {
		c->bad = "user stack size not a multiple of 8";
		return -EINVAL;
	}
	s->stack = cursor__bytes(c, s->stack_size, "user stack longer than the record");
	if (!s->stack || cursor__u64(c, &s->stack_dyn_size, "user stack: no room for dyn_size"))
		return -EINVAL;
	if (s->stack_dyn_size > s->stack_size) {
		c->bad = "user stack dyn_size larger than the dump";
		return -EINVAL;
	}
	return 0;
}

/* The event whose layout a sample has: the one its id names. */
static int sample__find_evsel(const struct perf_reader *r, const struct perf_event_header *h,
			      struct sample *s)
{
	u64 id = 0;

	if (r->nr_evsels > 1) {
		size_t at = sizeof(*h) + (size_t)r->id_pos * sizeof(u64);

		if (h->size < at + sizeof(id)) {
			s->bad = "no room for its id";
			return -EINVAL;
		}
		memcpy(&id, (const char *)h + at, sizeof(id));
	}
	s->evsel = reader__evsel(r, id);
	if (!s->evsel) {
		s->id = id;
		return -ENOENT;
	}
	return 0;
}

/* A fixed u64 field, when the sample has it: 0, or -EINVAL with c->bad
 * naming the field. t is the sample_type the sample is read with. */
#define FIELD(c, t, bit, dst) \
	(((t) & PERF_SAMPLE_##bit) ? cursor__u64(c, &(dst), "no room for " #bit) : 0)

/* What the stock perf shows for fields the event does not sample. */
static void sample__init(struct sample *s, const struct perf_event_header *h)
{
	s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	s->period = s->evsel->attr.sample_period;	/* the frequency, for a freq event */
	s->data_src = PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
		      PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
}

/* The fixed fields that say whose and when, IDENTIFIER to PERIOD. */
static int sample__parse_ids(struct cursor *c, u64 t, struct sample *s)
{
	u64 tid = 0, cpu = 0;

	if (FIELD(c, t, IDENTIFIER, s->id) || FIELD(c, t, IP, s->ip) || FIELD(c, t, TID, tid) ||
	    FIELD(c, t, TIME, s->time) || FIELD(c, t, ADDR, s->addr) || FIELD(c, t, ID, s->id) ||
	    FIELD(c, t, STREAM_ID, s->stream_id) || FIELD(c, t, CPU, cpu) ||
	    FIELD(c, t, PERIOD, s->period))
		return -EINVAL;
	s->pid = (u32)tid;
	s->tid = (u32)(tid >> 32);
	s->cpu = (u32)cpu;
	return 0;
}

static int parse_callchain(struct cursor *c, struct sample *s)
{
	if (FIELD(c, PERF_SAMPLE_CALLCHAIN, CALLCHAIN, s->nr_callchain))
		return -EINVAL;
	s->callchain = cursor__u64s(c, s->nr_callchain, "callchain longer than the record");
	return s->callchain ? 0 : -EINVAL;
}

static int parse_raw(struct cursor *c, struct sample *s)
{
	u32 sz;

	/* a u32 size, then the data: together padded to u64s */
	if (c->p >= c->end) {
		c->bad = "no room for the raw data's size";
		return -EINVAL;
	}
	memcpy(&sz, c->p, sizeof(sz));
	if (!cursor__bytes(c, sizeof(sz) + (u64)sz, "raw data longer than the record"))
		return -EINVAL;
	s->raw_size = sz;
	s->raw = (const char *)(c->p - ALIGN_UP(sizeof(sz) + (u64)sz, 8) / 8) + sizeof(sz);
	return 0;
}

/* The variable fields in the middle, READ to STACK_USER. */
static int sample__parse_dumps(struct cursor *c, const struct perf_event_attr *a,
			       struct sample *s)
{
	u64 t = a->sample_type;

	if ((t & PERF_SAMPLE_READ) && parse_read(c, a->read_format, s))
		return -EINVAL;
	if ((t & PERF_SAMPLE_CALLCHAIN) && parse_callchain(c, s))
		return -EINVAL;
	if ((t & PERF_SAMPLE_RAW) && parse_raw(c, s))
		return -EINVAL;
	if ((t & PERF_SAMPLE_BRANCH_STACK) && parse_branches(c, a->branch_sample_type, s))
		return -EINVAL;
	if ((t & PERF_SAMPLE_REGS_USER) &&
	    parse_regs(c, a->sample_regs_user, &s->uregs, "user registers past the record's end"))
		return -EINVAL;
	if ((t & PERF_SAMPLE_STACK_USER) && parse_stack(c, s))
		return -EINVAL;
	return 0;
}

/* One u64 for either bit; the struct form, u32 weight, u16 ins_lat, u16
 * retire_lat, wins when a file has both. */
static int parse_weight(struct cursor *c, u64 t, struct sample *s)
{
	u64 v = 0;

	if (FIELD(c, t, WEIGHT_TYPE, v))
		return -EINVAL;
	s->weight = t & PERF_SAMPLE_WEIGHT_STRUCT ? (u32)v : v;
	if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
		s->ins_lat = (u16)(v >> 32);
		s->retire_lat = (u16)(v >> 48);
	}
	return 0;
}

/* The fields after the user stack, WEIGHT to AUX. */
static int sample__parse_tail(struct cursor *c, const struct perf_event_attr *a,
			      struct sample *s)
{
	u64 t = a->sample_type;

	if (parse_weight(c, t, s) || FIELD(c, t, DATA_SRC, s->data_src) ||
	    FIELD(c, t, TRANSACTION, s->transaction))
		return -EINVAL;
	if ((t & PERF_SAMPLE_REGS_INTR) &&
	    parse_regs(c, a->sample_regs_intr, &s->iregs, "interrupt registers past the record's end"))
		return -EINVAL;
	if (FIELD(c, t, PHYS_ADDR, s->phys_addr) || FIELD(c, t, CGROUP, s->cgroup) ||
	    FIELD(c, t, DATA_PAGE_SIZE, s->data_page_size) ||
	    FIELD(c, t, CODE_PAGE_SIZE, s->code_page_size) || FIELD(c, t, AUX, s->aux_size))
		return -EINVAL;
	if (t & PERF_SAMPLE_AUX) {
		s->aux = cursor__bytes(c, s->aux_size, "AUX data longer than the record");
		if (!s->aux)
			return -EINVAL;
	}
	return 0;
}

#undef FIELD

int reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *h,
			 struct sample *s)
{
	struct cursor c = { (const u64 *)(h + 1), (const u64 *)((const char *)h + h->size), NULL };
	const struct perf_event_attr *a;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = sample__find_evsel(r, h, s);
	if (ret)
		return ret;
	a = &s->evsel->attr;
	sample__init(s, h);
	if (sample__parse_ids(&c, a->sample_type, s) || sample__parse_dumps(&c, a, s) ||
	    sample__parse_tail(&c, a, s)) {
		s->bad = c.bad;
		return -EINVAL;
	}
	return 0;
}

/* The trailer that starts at body (a KSYMBOL or BPF_EVENT the kernel may
 * have over-sized: util/event.h): the event whose trailer, put there,
 * holds an id of its own (or 0 for the first, as perf's synthesized
 * records have). 0, or -ENOENT when no event's does. */
static int reader__parse_id_after(const struct perf_reader *r, const struct perf_event_header *h,
				  size_t body, struct sample_id *sid,
				  const struct reader_evsel **evsel)
{
	for (int i = 0; i < r->nr_evsels; i++) {
		const struct reader_evsel *e = &r->evsels[i];
		size_t end = body + __builtin_popcountll(e->id_type) * sizeof(u64);

		/* with several events, each has an id at is_pos (checked at open) */
		if (event__parse_id_before(h, end, e->id_type, sid) ||
		    (r->nr_evsels > 1 && reader__evsel(r, sid->id) != e))
			continue;
		*evsel = e;
		return 0;
	}
	return -ENOENT;
}

int reader__parse_id(const struct perf_reader *r, const struct perf_event_header *h,
		     struct sample_id *sid, const struct reader_evsel **evsel)
{
	const struct reader_evsel *e = &r->evsels[0];
	size_t body = event__body_end(h);

	memset(sid, 0, sizeof(*sid));
	*evsel = e;
	/* every event agrees on sample_id_all (reader__open() checked) */
	if (!e->id_type)
		return body ? (int)(h->size - body) : 0;
	if (body && !reader__parse_id_after(r, h, body, sid, evsel))
		return h->size - body;
	if (r->nr_evsels > 1) {
		u64 id;

		if (h->size < sizeof(*h) + (size_t)r->is_pos * sizeof(u64))
			return -EINVAL;
		memcpy(&id, (const char *)h + h->size - (size_t)r->is_pos * sizeof(u64), sizeof(id));
		e = reader__evsel(r, id);
		if (!e) {
			sid->id = id;
			return -ENOENT;
		}
		*evsel = e;
	}
	/* at the record's end: no event's trailer followed a body */
	if (event__parse_id_before(h, h->size, e->id_type, sid))
		return -EINVAL;
	return __builtin_popcountll(e->id_type) * sizeof(u64);
}

u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h)
{
	const struct reader_evsel *e;
	struct sample_id sid;
	struct sample s = { 0 };
	u64 t, at, time;

	/* the fields before a sample's TIME have fixed sizes: its place is
	 * known without decoding the rest, which is checked when the sample
	 * is decoded to be printed (a bad one is refused then) */
	if (h->type == PERF_RECORD_SAMPLE) {
		if (sample__find_evsel(r, h, &s))
			return 0;
		t = s.evsel->attr.sample_type;
		at = sizeof(*h) + sizeof(u64) * __builtin_popcountll(t & (PERF_SAMPLE_IDENTIFIER |
			PERF_SAMPLE_IP | PERF_SAMPLE_TID));
		if (!(t & PERF_SAMPLE_TIME) || h->size < at + sizeof(time))
			return 0;
		memcpy(&time, (const char *)h + at, sizeof(time));
		return time;
	}
	if (h->type >= PERF_RECORD_MAX)
		return 0;
	return reader__parse_id(r, h, &sid, &e) < 0 ? 0 : sid.time;
}
