#include "util/reader.h"
#include "util/event.h"
#include "util/tp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#define SUPPORTED_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)
#define ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static int in_file(const struct perf_reader *r, u64 off, u64 size)
{
	return off <= r->size && size <= r->size - off;
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

	/* reader__open() checked every section: in the file, after the table */
	if (!feature__isset(r->hdr.adds_features, feat))
		return NULL;
	memcpy(&sec, r->map + feature_entry(r, feat), sizeof(sec));
	*size = sec.size;
	return r->map + sec.offset;
}

/* The table and every section it lists inside the file, the sections after
 * the table: a truncated file or one whose features overlap the header,
 * attrs or data is refused, as the stock perf does. */
static int features_ok(const struct perf_reader *r)
{
	u64 table_end = feature_entry(r, HEADER_FEAT_BITS);

	if (!in_file(r, r->hdr.data.offset + r->hdr.data.size,
		     table_end - r->hdr.data.offset - r->hdr.data.size))
		return 0;
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		struct perf_file_section sec;

		if (!feature__isset(r->hdr.adds_features, f))
			continue;
		memcpy(&sec, r->map + feature_entry(r, f), sizeof(sec));
		if (!in_file(r, sec.offset, sec.size) || sec.offset < table_end)
			return 0;
	}
	return 1;
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
 * (one per event, cpu and thread) and as many samples. An id two events
 * claim stays the first one's, as a scan in file order would find it. */
static int reader__hash_ids(struct perf_reader *r)
{
	for (int i = 0; i < r->nr_evsels; i++)
		for (u64 k = 0; k < r->evsels[i].nr_ids; k++)
			if (id_hash__add(&r->ids, r->evsels[i].ids[k], &r->evsels[i]))
				return -ENOMEM;
	return 0;
}

static int fail(char *err, size_t errsz, const char *path, const char *why)
{
	snprintf(err, errsz, "%s: %s", path, why);
	return -EINVAL;
}

int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	struct stat st;
	u64 attr_sz, nr;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		ret = -errno;
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!S_ISREG(st.st_mode))
		return fail(err, errsz, path, "not a regular file");
	r->size = st.st_size;
	if (r->size < sizeof(r->hdr))
		return fail(err, errsz, path, r->size ? "truncated header" : "file is empty");
	r->map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		ret = -errno;
		snprintf(err, errsz, "%s: mmap: %s", path, strerror(errno));
		return ret;
	}
	memcpy(&r->hdr, r->map, sizeof(r->hdr));
	if (r->hdr.magic == __builtin_bswap64(PERF_MAGIC))
		return fail(err, errsz, path, "big-endian perf.data files are not supported");
	if (r->hdr.magic != PERF_MAGIC)
		return fail(err, errsz, path, "not a perf.data file (bad magic)");
	if (r->hdr.size != sizeof(r->hdr))
		return fail(err, errsz, path, "unsupported header size");
	attr_sz = r->hdr.attr_size;
	if (attr_sz < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) || attr_sz > 4096 ||
	    attr_sz % 8)
		return fail(err, errsz, path, "bad attr size");
	if (!in_file(r, r->hdr.attrs.offset, r->hdr.attrs.size) || r->hdr.attrs.size % attr_sz ||
	    r->hdr.attrs.size == 0 || r->hdr.attrs.offset < sizeof(r->hdr))
		return fail(err, errsz, path, "attrs section out of bounds");
	if (!in_file(r, r->hdr.data.offset, r->hdr.data.size) || r->hdr.data.offset < sizeof(r->hdr))
		return fail(err, errsz, path, "data section out of bounds (truncated file?)");
	if (r->hdr.data.offset % 8)
		return fail(err, errsz, path, "misaligned data section");
	if (!features_ok(r))
		return fail(err, errsz, path, "feature section out of bounds (truncated file?)");
	nr = r->hdr.attrs.size / attr_sz;
	r->evsels = calloc(nr, sizeof(*r->evsels));
	if (!r->evsels)
		return fail(err, errsz, path, strerror(ENOMEM));
	r->nr_evsels = nr;
	for (u64 i = 0; i < nr; i++) {
		const char *fa = r->map + r->hdr.attrs.offset + i * attr_sz;
		struct reader_evsel *e = &r->evsels[i];
		struct perf_file_section ids;
		u32 asz;

		memcpy(&asz, fa + offsetof(struct perf_event_attr, size), 4);
		if (asz < PERF_ATTR_SIZE_VER0 || asz > attr_sz - sizeof(ids))
			return fail(err, errsz, path, "bad attr.size");
		memcpy(&e->attr, fa, MIN(asz, sizeof(e->attr)));
		memcpy(&ids, fa + attr_sz - sizeof(ids), sizeof(ids));
		if (!in_file(r, ids.offset, ids.size) || ids.size % 8 || ids.offset % 8)
			return fail(err, errsz, path, "event ids out of bounds");
		e->ids = (const u64 *)(r->map + ids.offset);
		e->nr_ids = ids.size / 8;
		if (e->attr.sample_type & ~SUPPORTED_SAMPLE_TYPE)
			return fail(err, errsz, path, "unsupported sample_type");
		if (i == 0)
			r->id_sample_type = e->attr.sample_type & ID_FIELDS;
		else if ((e->attr.sample_type & ID_FIELDS) != r->id_sample_type ||
			 e->attr.sample_id_all != r->evsels[0].attr.sample_id_all)
			return fail(err, errsz, path, "events disagree on the sample_id layout");
	}
	if (!r->evsels[0].attr.sample_id_all)
		r->id_sample_type = 0;
	ret = reader__hash_ids(r);
	if (ret)
		return fail(err, errsz, path, strerror(-ret));
	u64 tsize;
	const void *td = reader__feature(r, HEADER_TRACING_DATA, &tsize);

	if (td) {
		struct id_hash described = { 0 };

		r->tep = tp__parse_tracing_data(td, tsize, &described);
		/* as the stock perf: a tracepoint the section does not describe
		 * at all makes the file unreadable (one described by a format
		 * too broken to use only loses its decoding) */
		for (int i = 0; r->tep && i < r->nr_evsels; i++) {
			const struct perf_event_attr *a = &r->evsels[i].attr;

			if (a->type == PERF_TYPE_TRACEPOINT && !id_hash__find(&described, a->config)) {
				snprintf(err, errsz, "%s: cannot find event format for %llu", path,
					 (unsigned long long)a->config);
				id_hash__exit(&described);
				return -EINVAL;
			}
		}
		id_hash__exit(&described);
		if (!r->tep)
			return fail(err, errsz, path, "malformed TRACING_DATA section");
	} else {
		/* the stock perf refuses tracepoint samples it has no format for */
		for (int i = 0; i < r->nr_evsels; i++)
			if (r->evsels[i].attr.type == PERF_TYPE_TRACEPOINT)
				return fail(err, errsz, path, "tracepoint events but no "
					    "TRACING_DATA section");
	}
	reader__read_names(r);
	for (int i = 0; i < r->nr_evsels; i++)
		if (!r->evsels[i].name && !(r->evsels[i].name = default_name(r, &r->evsels[i].attr)))
			return fail(err, errsz, path, strerror(ENOMEM));
	return 0;
}

void reader__close(struct perf_reader *r)
{
	id_hash__exit(&r->ids);
	for (int i = 0; i < r->nr_evsels; i++)
		free(r->evsels[i].name);
	free(r->evsels);
	if (r->tep)
		tep_free(r->tep);
	if (r->map)
		munmap((void *)r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz)
{
	u64 off = r->hdr.data.offset, end = off + r->hdr.data.size;

	while (off < end) {
		const struct perf_event_header *h;
		int ret;

		if (end - off < sizeof(*h)) {
			snprintf(err, errsz, "record at offset %#llx: truncated header",
				 (unsigned long long)off);
			return -EINVAL;
		}
		h = (const void *)(r->map + off);
		if (!event__size_ok(h->size, end - off)) {
			snprintf(err, errsz, "record at offset %#llx: bad size %u",
				 (unsigned long long)off, h->size);
			return -EINVAL;
		}
		ret = cb(r, h, off, arg);
		if (ret)
			return ret;
		off += h->size;
	}
	return 0;
}

const struct reader_evsel *reader__evsel(const struct perf_reader *r, u64 id)
{
	if (r->nr_evsels == 1 || !id)
		return &r->evsels[0];
	return id_hash__find(&r->ids, id);
}

int reader__parse_sample(const struct perf_reader *r, const struct perf_event_header *h,
			 struct sample *s)
{
	const u64 *p = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	u64 t, id = 0;

	memset(s, 0, sizeof(*s));
	/* find the event first: by IDENTIFIER (always the first field) or
	 * ID when present, else the only event */
	t = r->evsels[0].attr.sample_type;
	if ((t & PERF_SAMPLE_IDENTIFIER) || (r->nr_evsels > 1 && (t & PERF_SAMPLE_ID))) {
		size_t at = sample__id_offset(t);

		if (h->size < at + sizeof(id))
			return -EINVAL;
		memcpy(&id, (const char *)h + at, sizeof(id));
	}
	s->evsel = reader__evsel(r, id);
	if (!s->evsel) {
		s->id = id;
		return -ENOENT;
	}
	t = s->evsel->attr.sample_type;
#define TAKE(dst) do { if (p >= end) return -EINVAL; (dst) = *p++; } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER)
		TAKE(s->id);
	if (t & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (t & PERF_SAMPLE_TID) {
		u64 v;

		TAKE(v);
		s->pid = (u32)v;
		s->tid = (u32)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (t & PERF_SAMPLE_ADDR)
		TAKE(id);
	if (t & PERF_SAMPLE_ID)
		TAKE(s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		TAKE(id);
	if (t & PERF_SAMPLE_CPU) {
		u64 v;

		TAKE(v);
		s->cpu = (u32)v;
	}
	if (t & PERF_SAMPLE_PERIOD)
		TAKE(s->period);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		TAKE(s->nr_callchain);
		if (s->nr_callchain > (u64)(end - p))
			return -EINVAL;
		s->callchain = p;
		p += s->nr_callchain;
	}
	if (t & PERF_SAMPLE_RAW) {
		const char *c = (const char *)p;
		u32 sz;

		if ((const char *)end - c < 4)
			return -EINVAL;
		memcpy(&sz, c, 4);
		if (sz > (u64)((const char *)end - c - 4))
			return -EINVAL;
		s->raw_size = sz;
		s->raw = c + 4;
	}
#undef TAKE
	return 0;
}

u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h)
{
	struct sample s;

	/* a sample of a hostile file is parsed whole, not read at an offset */
	if (h->type == PERF_RECORD_SAMPLE)
		return reader__parse_sample(r, h, &s) ? 0 : s.time;
	if (h->type >= PERF_RECORD_MAX || !r->id_sample_type)
		return 0;
	return event__time(h, r->id_sample_type);
}
