/* perf.data as hostile input: the file read into memory, every section and
 * record checked before use, samples decoded by their event's layout. */
#include "perfdata/reader.h"
#include "perfdata/header-internal.h"
#include "perfdata/compress.h"
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
 * attrs or data is refused, as the stock perf does; and so is one whose
 * machine description lies about its counts, which the stock perf crashes
 * or spins on. */
static int features_ok(const struct perf_reader *r)
{
	u64 table_end = feature_entry(r, HEADER_FEAT_BITS);
	u32 nr_cpus = 0;	/* NRCPUS's available CPUs: its bit comes first */

	if (!in_file(r, r->hdr.data.offset + r->hdr.data.size,
		     table_end - r->hdr.data.offset - r->hdr.data.size))
		return 0;
	for (int f = 0; f < HEADER_FEAT_BITS; f++) {
		struct perf_file_section sec;

		if (!feature__isset(r->hdr.adds_features, f))
			continue;
		memcpy(&sec, r->map + feature_entry(r, f), sizeof(sec));
		if (!in_file(r, sec.offset, sec.size) || sec.offset < table_end ||
		    header__check_feature(f, r->map + sec.offset, sec.size, nr_cpus))
			return 0;
		if (f == HEADER_NRCPUS && sec.size >= sizeof(nr_cpus))
			memcpy(&nr_cpus, r->map + sec.offset, sizeof(nr_cpus));
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
 * (one per event, cpu and thread) and as many samples. An id that two
 * events claim is a lie in the ids sections (the kernel gives every event
 * its own): the stock perf then reads that id's samples with the last
 * claimant's layout and refuses the file, and so do we. 0, -ENOMEM, or
 * -EEXIST with the id and events in *dup. */
static int reader__hash_ids(struct perf_reader *r, u64 dup[3])
{
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

/* The file, read whole into memory: a regular file at least a header
 * long. Read, not mapped: a mapped file that someone truncates while it
 * is read (a recorder that rotates it, a user) kills the reader with
 * SIGBUS at whatever access comes next, in any layer that holds a record;
 * a copy cannot shrink, and a file that shrinks while it is copied is a
 * short read, said here. */
static int reader__load(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	struct stat st;
	char *p;

	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	r->size = st.st_size;
	if (!S_ISREG(st.st_mode))
		ret = fail(err, errsz, path, "not a regular file");
	else if (r->size < sizeof(r->hdr))
		ret = fail(err, errsz, path, r->size ? "truncated header" : "file is empty");
	else if (!(p = malloc(r->size)))
		ret = fail(err, errsz, path, strerror(ENOMEM));
	if (ret)
		goto out;
	r->map = p;
	for (size_t got = 0; got < r->size;) {
		ssize_t n = pread(fd, p + got, r->size - got, got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : -EINVAL;
			snprintf(err, errsz, "%s: %s at offset %#zx of its %zu bytes%s", path,
				 n ? strerror(errno) : "file truncated while being read", got, r->size,
				 n ? "" : " (someone is writing it?)");
			break;
		}
		got += n;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The header's magic and sizes, and every section it names inside the
 * file: attrs, data, the feature table and the features. */
static int reader__check_header(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	u64 attr_sz;

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
		return fail(err, errsz, path, "feature section out of bounds or inconsistent (truncated file?)");
	return 0;
}

/* Each file attr (reader__check_header() checked its size) into an evsel,
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

/* The tracepoints' formats, from TRACING_DATA. */
static int reader__read_tracing_data(struct perf_reader *r, const char *path, char *err,
				     size_t errsz)
{
	struct id_hash described = { 0 };
	u64 tsize;
	const void *td = reader__feature(r, HEADER_TRACING_DATA, &tsize);

	if (!td) {
		/* the stock perf refuses tracepoint samples it has no format for */
		for (int i = 0; i < r->nr_evsels; i++)
			if (r->evsels[i].attr.type == PERF_TYPE_TRACEPOINT)
				return fail(err, errsz, path, "tracepoint events but no "
					    "TRACING_DATA section");
		return 0;
	}
	r->tep = tp__parse_tracing_data(td, tsize, &described, &r->formats);
	/* as the stock perf: a tracepoint the section does not describe at
	 * all makes the file unreadable (one described by a format too
	 * broken to use only loses its decoding) */
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
	return 0;
}

/* Every event's name: EVENT_DESC's, else one made from its attr. */
static int reader__name_evsels(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	reader__read_names(r);
	for (int i = 0; i < r->nr_evsels; i++)
		if (!r->evsels[i].name && !(r->evsels[i].name = default_name(r, &r->evsels[i].attr)))
			return fail(err, errsz, path, strerror(ENOMEM));
	return 0;
}

int reader__open(struct perf_reader *r, const char *path, char *err, size_t errsz)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = reader__load(r, path, err, errsz);
	if (!ret)
		ret = reader__check_header(r, path, err, errsz);
	if (!ret)
		ret = reader__read_attrs(r, path, err, errsz);
	if (!ret)
		ret = reader__index_ids(r, path, err, errsz);
	if (!ret)
		ret = reader__read_tracing_data(r, path, err, errsz);
	if (!ret)
		ret = reader__name_evsels(r, path, err, errsz);
	return ret;
}

void reader__close(struct perf_reader *r)
{
	decompressor__delete(r->decomp);
	buf__release(&r->comp_left);
	for (size_t i = 0; i < r->nr_chunks; i++)
		free(r->chunks[i].p);
	free(r->chunks);
	id_hash__exit(&r->ids);
	for (int i = 0; i < r->nr_evsels; i++)
		free(r->evsels[i].name);
	free(r->evsels);
	if (r->tep)
		tep_free(r->tep);
	free((void *)r->map);
	memset(r, 0, sizeof(*r));
}

/* A hostile COMPRESSED record could decompress to gigabytes: no honest
 * one stands for more than a ring, and no ring is this big. */
#define COMP_MAX_CAP (256ULL << 20)
/* Records decompressed are kept until the reader closes, so what a file
 * may decompress to in all is bounded too, by its size: a few kilobytes
 * of zstd can stand for gigabytes of records. perf's records compress
 * a few times, call chains and user stacks some hundred times (dwarf
 * stacks of a loop: 600); a bomb, thousands of times. */
#define COMP_RATIO_MAX 2048
#define COMP_FLOOR_MIB 64
#define COMP_STR_(x) #x
#define COMP_STR(x) COMP_STR_(x)

/* Keeps b's bytes for the reader's lifetime (b is emptied). 0 or -ENOMEM. */
static int reader__keep(struct perf_reader *r, struct buf *b, u64 off)
{
	struct reader_chunk *n = realloc(r->chunks, (r->nr_chunks + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->chunks = n;
	n[r->nr_chunks++] = (struct reader_chunk){ b->p, b->len, off };
	memset(b, 0, sizeof(*b));
	return 0;
}

u64 reader__offset(const struct perf_reader *r, const struct perf_event_header *h)
{
	const char *p = (const char *)h;

	for (size_t i = 0; i < r->nr_chunks; i++)
		if (p >= r->chunks[i].p && p < r->chunks[i].p + r->chunks[i].len)
			return r->chunks[i].off;
	return p - r->map;
}

/* A {u32 len, bytes} string at *pos of a section of size bytes, as the
 * stock perf reads one: len bytes must be there (NUL or not). */
static int string_fits(const char *p, u64 size, u64 *pos)
{
	u32 len;

	if (size - *pos < 4)
		return 0;
	memcpy(&len, p + *pos, 4);
	*pos += 4;
	if (len > size - *pos)
		return 0;
	*pos += len;
	return 1;
}

/* Would the stock perf read feature feat, of the kinds this perf writes?
 * (EVENT_DESC and BUILD_ID are left out: the stock ignores their errors.) */
static int feature_reads(const struct perf_reader *r, int feat)
{
	u64 size, pos = 0;
	const char *p = reader__feature(r, feat, &size);
	u32 nr;

	switch (feat) {
	case HEADER_HOSTNAME: case HEADER_OSRELEASE: case HEADER_VERSION:
	case HEADER_ARCH: case HEADER_CPUDESC: case HEADER_CPUID:
		return string_fits(p, size, &pos);
	case HEADER_NRCPUS: case HEADER_TOTAL_MEM: case HEADER_CLOCKID:
		return size >= 8;
	case HEADER_SAMPLE_TIME:
		return size >= 16;
	case HEADER_CMDLINE:
	case HEADER_GROUP_DESC:	/* nr times {string, u32 leader, u32 members} */
		if (size < 4)
			return 0;
		memcpy(&nr, p, 4);
		pos = 4;
		for (u32 i = 0; i < nr; i++) {
			if (!string_fits(p, size, &pos))
				return 0;
			if (feat == HEADER_GROUP_DESC && (size - pos < 8 || !(pos += 8)))
				return 0;
		}
		return 1;
	}
	return 1;
}

/* The first COMPRESSED record: the feature says how to read them, as the
 * stock perf needs it to (zstd, and the room a record decompresses into).
 * The stock perf stops reading features at the first it cannot read, and
 * then decompresses nothing: neither does this reader. */
static int reader__start_decomp(struct perf_reader *r, u64 off, char *err, size_t errsz)
{
	u64 size;
	const u32 *f = reader__feature(r, HEADER_COMPRESSED, &size);
	u32 v[5];

	for (int feat = 0; f && feat < HEADER_COMPRESSED; feat++) {
		if (feature__isset(r->hdr.adds_features, feat) && !feature_reads(r, feat)) {
			snprintf(err, errsz, "record at offset %#llx: COMPRESSED record, but feature "
				 "%d is malformed and the stock perf reads none after it (COMPRESSED "
				 "neither)", (unsigned long long)off, feat);
			return -EINVAL;
		}
	}
	if (!f || size < sizeof(v)) {
		snprintf(err, errsz, "record at offset %#llx: COMPRESSED record, but no "
			 "COMPRESSED feature saying how", (unsigned long long)off);
		return -EINVAL;
	}
	memcpy(v, f, sizeof(v));
	if (v[1] != PERF_COMP_ZSTD || !v[4]) {
		snprintf(err, errsz, "record at offset %#llx: COMPRESSED feature: type %u, "
			 "mmap_len %u: only zstd (1) with a mmap_len is known",
			 (unsigned long long)off, v[1], v[4]);
		return -EINVAL;
	}
	r->comp_max = MIN((u64)v[4], COMP_MAX_CAP);
	r->comp_budget = ((u64)COMP_FLOOR_MIB << 20) +
			 MIN(r->hdr.data.size, UINT64_MAX / 2 / COMP_RATIO_MAX) * COMP_RATIO_MAX;
	r->decomp = decompressor__new();
	return r->decomp ? 0 : -ENOMEM;
}

/* The stream's next piece, the body of the COMPRESSED record at off, onto
 * out: at most what one record may stand for, and within what the file
 * may decompress to in all. 0 or -errno (-EINVAL with *why). */
static int reader__inflate(struct perf_reader *r, u64 off, u16 size, struct buf *out,
			   const char **why)
{
	u64 max = MIN(r->comp_max, r->comp_budget);
	size_t before = out->len;
	int ret = decompressor__feed(r->decomp, r->map + off + sizeof(struct perf_event_header),
				     size - sizeof(struct perf_event_header), max, out, why);

	if (ret == -EINVAL && out->len - before > max && max < r->comp_max)
		*why = "its records decompress past what the file may stand for in all ("
		       COMP_STR(COMP_FLOOR_MIB) " MiB and " COMP_STR(COMP_RATIO_MAX)
		       " times its data: a zstd bomb?)";
	if (!ret)
		r->comp_budget -= out->len - before;
	return ret;
}

/* One COMPRESSED record at off: its records, after the part of one that
 * the previous record left, go to cb; a part at the end waits for the
 * next. */
static int reader__decompress(struct perf_reader *r, u64 off, u16 size, reader_cb cb,
			      void *arg, char *err, size_t errsz)
{
	struct buf out = { 0 };
	const char *why = NULL;
	size_t pos = 0, left = r->comp_left.len;
	int ret = r->decomp ? 0 : reader__start_decomp(r, off, err, errsz);

	if (ret)
		return ret;
	buf__add(&out, r->comp_left.p, left);
	r->comp_left.len = 0;
	ret = out.err ? out.err : reader__inflate(r, off, size, &out, &why);
	if (!ret && out.len == left) {
		why = "decompresses to nothing (a cut zstd frame?)";
		ret = -EINVAL;
	}
	while (!ret && out.len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, out.p + pos, sizeof(h));
		if (h.size > out.len - pos)
			break;	/* goes on in the next record */
		if (!event__size_ok(h.size, out.len - pos) || h.type == PERF_RECORD_COMPRESSED) {
			snprintf(err, errsz, "record at offset %#llx: its decompressed record at "
				 "%#zx: bad %s %u", (unsigned long long)off, pos,
				 h.type == PERF_RECORD_COMPRESSED ? "type" : "size",
				 h.type == PERF_RECORD_COMPRESSED ? h.type : h.size);
			buf__release(&out);
			return -EINVAL;
		}
		pos += h.size;
	}
	if (!ret)
		buf__add(&r->comp_left, out.p + pos, out.len - pos);
	if (!ret && r->comp_left.err)
		ret = r->comp_left.err;
	if (ret) {
		if (why)
			snprintf(err, errsz, "record at offset %#llx: COMPRESSED: %s",
				 (unsigned long long)off, why);
		buf__release(&out);
		return ret;
	}
	out.len = pos;
	if (!pos) {
		buf__release(&out);
		return 0;
	}
	ret = reader__keep(r, &out, off);
	if (ret) {
		buf__release(&out);
		return ret;
	}
	for (size_t at = 0; at < pos;) {
		const struct perf_event_header *h = (const void *)(r->chunks[r->nr_chunks - 1].p + at);

		ret = cb(r, h, off, arg);
		if (ret)
			return ret;
		at += h->size;
	}
	return 0;
}

/* A record after a COMPRESSED one may start anywhere: callers get an
 * aligned copy. NULL on ENOMEM. */
static const struct perf_event_header *reader__aligned(struct perf_reader *r, u64 off, u16 size)
{
	struct buf b = { 0 };

	if (!(off % 8))
		return (const void *)(r->map + off);
	buf__add(&b, r->map + off, size);
	if (b.err || reader__keep(r, &b, off)) {
		buf__release(&b);
		return NULL;
	}
	return (const void *)r->chunks[r->nr_chunks - 1].p;
}

int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz)
{
	u64 off = r->hdr.data.offset, end = off + r->hdr.data.size;

	while (off < end) {
		const struct perf_event_header *h;
		struct perf_event_header hh;
		int ret;

		if (end - off < sizeof(*h)) {
			snprintf(err, errsz, "record at offset %#llx: truncated header",
				 (unsigned long long)off);
			return -EINVAL;
		}
		memcpy(&hh, r->map + off, sizeof(hh));
		/* a COMPRESSED record holds any number of bytes */
		if (hh.type == PERF_RECORD_COMPRESSED && hh.size >= sizeof(hh) &&
		    hh.size <= end - off) {
			ret = reader__decompress(r, off, hh.size, cb, arg, err, errsz);
			if (ret)
				return ret;
			off += hh.size;
			continue;
		}
		if (!event__size_ok(hh.size, end - off)) {
			snprintf(err, errsz, "record at offset %#llx: bad size %u",
				 (unsigned long long)off, hh.size);
			return -EINVAL;
		}
		h = reader__aligned(r, off, hh.size);
		if (!h)
			return -ENOMEM;
		ret = cb(r, h, off, arg);
		if (ret)
			return ret;
		off += hh.size;
	}
	if (r->comp_left.len || (r->decomp && !decompressor__at_boundary(r->decomp))) {
		snprintf(err, errsz, "record at offset %#llx: the compressed data ends inside %s "
			 "(a cut COMPRESSED record?)", (unsigned long long)end,
			 r->comp_left.len ? "a record" : "a zstd block");
		return -EINVAL;
	}
	return 0;
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

int reader__parse_id(const struct perf_reader *r, const struct perf_event_header *h,
		     struct sample_id *sid, const struct reader_evsel **evsel)
{
	const struct reader_evsel *e = &r->evsels[0];

	memset(sid, 0, sizeof(*sid));
	*evsel = e;
	/* every event agrees on sample_id_all (reader__open() checked) */
	if (!e->id_type)
		return 0;
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
	if (event__parse_id(h, e->id_type, sid))
		return -EINVAL;
	return __builtin_popcountll(e->id_type) * sizeof(u64);
}

u64 reader__record_time(const struct perf_reader *r, const struct perf_event_header *h)
{
	const struct reader_evsel *e;
	struct sample_id sid;
	struct sample s;

	/* a sample of a hostile file is parsed whole, not read at an offset */
	if (h->type == PERF_RECORD_SAMPLE)
		return reader__parse_sample(r, h, &s) ? 0 : s.time;
	if (h->type >= PERF_RECORD_MAX)
		return 0;
	return reader__parse_id(r, h, &sid, &e) < 0 ? 0 : sid.time;
}
