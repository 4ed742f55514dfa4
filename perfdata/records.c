/* A perf.data's records walked in order through the reader's window:
 * each checked for size and bounds, COMPRESSED ones decompressed, perf's
 * own records taken in (user-records.c) before the caller sees them. */
#include "perfdata/reader-internal.h"
#include "perfdata/header.h"
#include "perfdata/compress.h"
#include "lib/util.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A hostile COMPRESSED record could decompress to gigabytes: no honest
 * one stands for more than a ring, and no ring is this big. */
#define COMP_MAX_CAP (256ULL << 20)
/* What a file may decompress to in all is bounded too, by its size: a
 * few kilobytes of zstd can stand for gigabytes of records, which a
 * reader holds until it can put them in time order. perf's records
 * compress a few times, call chains and user stacks some hundred times
 * (dwarf stacks of a loop: 600); a bomb, thousands of times. A stream's
 * size is not known: each COMPRESSED record adds to its budget. */
#define COMP_RATIO_MAX 2048
#define COMP_FLOOR_MIB 64
#define COMP_STR_(x) #x
#define COMP_STR(x) COMP_STR_(x)
/* The most tracing data a stream's HEADER_TRACING_DATA may carry: the
 * formats of every tracepoint of a kernel are a few MiB. */
#define TRACING_DATA_MAX (256U << 20)

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
 * (EVENT_DESC and BUILD_ID are left out: the stock ignores their errors;
 * CMDLINE and the machine's topologies too: header__check_feature()
 * refused a file with a bad one when it was opened.) */
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
	case HEADER_GROUP_DESC:	/* nr times {string, u32 leader, u32 members} */
		if (size < 4)
			return 0;
		memcpy(&nr, p, 4);
		pos = 4;
		for (u32 i = 0; i < nr; i++) {
			if (!string_fits(p, size, &pos))
				return 0;
			if (size - pos < 8 || !(pos += 8))
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

	for (int feat = 0; f && !r->pipe && feat < HEADER_COMPRESSED; feat++) {
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
	r->comp_budget = ((u64)COMP_FLOOR_MIB << 20) + (r->pipe ? 0 :
			 MIN(r->part_size, UINT64_MAX / 4 / COMP_RATIO_MAX) * COMP_RATIO_MAX);
	r->decomp = decompressor__new();
	return r->decomp ? 0 : -ENOMEM;
}

/* The stream's next piece, the body of a COMPRESSED record, onto out: at
 * most what one record may stand for, and within what the file may
 * decompress to in all. 0 or -errno (-EINVAL with *why). */
static int reader__inflate(struct perf_reader *r, const char *body, u16 size, struct buf *out,
			   const char **why)
{
	u64 max, before = out->len;
	int ret;

	if (r->pipe)
		r->comp_budget += (u64)size * COMP_RATIO_MAX;
	max = MIN(r->comp_max, r->comp_budget);
	ret = decompressor__feed(r->decomp, body, size - sizeof(struct perf_event_header), max,
				 out, why);
	if (ret == -EINVAL && out->len - before > max && max < r->comp_max)
		*why = "its records decompress past what the file may stand for in all ("
		       COMP_STR(COMP_FLOOR_MIB) " MiB and " COMP_STR(COMP_RATIO_MAX)
		       " times its data: a zstd bomb?)";
	if (!ret)
		r->comp_budget -= out->len - before;
	return ret;
}

/* The whole records in out from its start; the first bad one is said. */
static int reader__whole_records(const struct buf *out, size_t *pos, u64 off, char *err,
				 size_t errsz)
{
	while (out->len - *pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, out->p + *pos, sizeof(h));
		if (h.size > out->len - *pos)
			break;	/* goes on in the next record */
		if (!event__size_ok(h.size, out->len - *pos) || h.type == PERF_RECORD_COMPRESSED ||
		    h.type == PERF_RECORD_AUXTRACE || h.type == PERF_RECORD_HEADER_TRACING_DATA) {
			int type = event__size_ok(h.size, out->len - *pos);

			snprintf(err, errsz, "record at offset %#llx: its decompressed record at "
				 "%#zx: bad %s %u", (unsigned long long)off, *pos,
				 type ? "type" : "size", type ? h.type : h.size);
			return -EINVAL;
		}
		*pos += h.size;
	}
	return 0;
}

/* One COMPRESSED record at off (body: all its size bytes): its whole
 * records, after the part of one that the previous record left, into
 * r->dec to be given; a part at the end waits for the next. */
static int reader__decompress(struct perf_reader *r, u64 off, const char *body, u16 size,
			      char *err, size_t errsz)
{
	const char *why = NULL;
	size_t pos = 0, left = r->comp_left.len;
	int ret = r->decomp ? 0 : reader__start_decomp(r, off, err, errsz);

	if (ret)
		return ret;
	r->dec.len = r->dec_pos = 0;
	r->dec_off = off;
	buf__add(&r->dec, r->comp_left.p, left);
	r->comp_left.len = 0;
	ret = r->dec.err ? r->dec.err : reader__inflate(r, body, size, &r->dec, &why);
	if (!ret && r->dec.len == left) {
		why = "decompresses to nothing (a cut zstd frame?)";
		ret = -EINVAL;
	}
	if (!ret)
		ret = reader__whole_records(&r->dec, &pos, off, err, errsz);
	if (!ret)
		buf__add(&r->comp_left, r->dec.p + pos, r->dec.len - pos);
	if (!ret && r->comp_left.err)
		ret = r->comp_left.err;
	if (ret && why)
		snprintf(err, errsz, "record at offset %#llx: COMPRESSED: %s",
			 (unsigned long long)off, why);
	r->dec.len = ret ? 0 : pos;
	return ret;
}

/* A record whose start is no multiple of 8 in memory (after a stream's
 * HEADER_FEATURE or COMPRESSED records, which are not padded): an
 * aligned copy, valid until the next one. NULL on ENOMEM. */
static const struct perf_event_header *reader__aligned(struct perf_reader *r, const char *p,
						       u16 size)
{
	if (!((uintptr_t)p % 8))
		return (const void *)p;
	if (!r->align && !(r->align = malloc(65536)))
		return NULL;
	memcpy(r->align, p, size);
	return (const void *)r->align;
}

static int reader__said(const char *what, u64 off, int ret, char *err, size_t errsz)
{
	if (ret == -ESTALE)
		what = "the file was truncated while being read (someone is writing it?)";
	snprintf(err, errsz, "record at offset %#llx: %s", (unsigned long long)off,
		 what ? what : strerror(-ret));
	return ret == -ENODATA || ret == -ESTALE ? -EINVAL : ret;
}

/* The data of the last record given (AUXTRACE's), skipped. */
static int reader__skip_payload(struct perf_reader *r, char *err, size_t errsz)
{
	u64 n = r->payload, off = stream__pos(&r->src);
	int ret;

	if (!n)
		return 0;
	r->payload = 0;
	ret = stream__skip(&r->src, n);
	if (ret == -ENODATA) {
		snprintf(err, errsz, "record at offset %#llx: its %llu bytes of AUXTRACE data run "
			 "past the end of the data", (unsigned long long)off, (unsigned long long)n);
		return -EINVAL;
	}
	return ret ? reader__said(NULL, off, ret, err, errsz) : 0;
}

/* A stream's HEADER_TRACING_DATA at off: size bytes of tracing data
 * follow it (not padded after the record's 12 bytes of fields). The
 * record and the data in the window: *p, with the record's size. */
static int reader__tracing_data(struct perf_reader *r, const char **p, u16 size, u64 off,
				u32 *payload, char *err, size_t errsz)
{
	u32 tsize;
	size_t got;
	int ret;

	if (size < sizeof(struct perf_event_header) + sizeof(tsize))
		return reader__said("HEADER_TRACING_DATA: no room for its size", off, -EINVAL, err,
				    errsz);
	memcpy(&tsize, *p + sizeof(struct perf_event_header), sizeof(tsize));
	if (tsize > TRACING_DATA_MAX)
		return reader__said("HEADER_TRACING_DATA: more tracing data than any kernel has",
				    off, -EINVAL, err, errsz);
	ret = stream__need(&r->src, (size_t)size + tsize, p, &got);
	if (ret)
		return reader__said(ret == -ENODATA ? "HEADER_TRACING_DATA: its tracing data "
				    "runs past the end" : NULL, off, ret, err, errsz);
	if (reader__set_tracing_data(r, *p + size, tsize, 1))
		return reader__said("HEADER_TRACING_DATA: malformed tracing data", off, -EINVAL,
				    err, errsz);
	*payload = tsize;
	return 0;
}

/* The next record in the window (not a COMPRESSED one), its size
 * checked: the kernel's are padded to 8 bytes, perf's own need not be. */
static int reader__next_plain(struct perf_reader *r, const char *p, u64 off,
			      const struct perf_event_header **h, char *err, size_t errsz)
{
	struct perf_event_header hh;
	u32 td_size = 0;
	size_t got;
	int ret;

	memcpy(&hh, p, sizeof(hh));
	if (hh.size < sizeof(hh) || (hh.type < READER_USER_TYPE_START && hh.size % 8) ||
	    (ret = stream__need(&r->src, hh.size, &p, &got)) == -ENODATA) {
		snprintf(err, errsz, "record at offset %#llx: bad size %u", (unsigned long long)off,
			 hh.size);
		return -EINVAL;
	}
	if (ret)
		return reader__said(NULL, off, ret, err, errsz);
	if (hh.type == PERF_RECORD_HEADER_TRACING_DATA &&
	    (ret = reader__tracing_data(r, &p, hh.size, off, &td_size, err, errsz)))
		return ret;
	*h = reader__aligned(r, p, hh.size);
	if (!*h)
		return -ENOMEM;
	ret = hh.type >= READER_USER_TYPE_START ?
	      reader__user_record(r, *h, off, &r->payload, err, errsz) : 0;
	r->payload += td_size;
	if (!ret)
		ret = stream__skip(&r->src, hh.size);
	return ret;
}

/* The end of the records: a zstd stream must not end in the middle. */
static int reader__end(struct perf_reader *r, u64 off, char *err, size_t errsz)
{
	if (r->comp_left.len || (r->decomp && !decompressor__at_boundary(r->decomp))) {
		snprintf(err, errsz, "record at offset %#llx: the compressed data ends inside %s "
			 "(a cut COMPRESSED record?)", (unsigned long long)off,
			 r->comp_left.len ? "a record" : "a zstd block");
		return -EINVAL;
	}
	return 0;
}

/* The next record out of the last COMPRESSED one (all checked whole). */
static int reader__next_dec(struct perf_reader *r, const struct perf_event_header **h,
			    u64 *off, char *err, size_t errsz)
{
	*h = (const void *)(r->dec.p + r->dec_pos);
	*off = r->dec_off;
	r->dec_pos += (*h)->size;
	if ((*h)->type >= READER_USER_TYPE_START) {
		u64 payload = 0;
		int ret = reader__user_record(r, *h, *off, &payload, err, errsz);

		if (ret)
			return ret;
	}
	return 1;
}

/* The next record: 1 with *h (valid until the next call) and its offset,
 * 0 after the last, or -errno with err. */
static int reader__next(struct perf_reader *r, const struct perf_event_header **h, u64 *off,
			char *err, size_t errsz)
{
	const char *p;
	size_t got;
	int ret;

	if (r->dec_pos < r->dec.len)
		return reader__next_dec(r, h, off, err, errsz);
	ret = reader__skip_payload(r, err, errsz);
	while (!ret) {
		struct perf_event_header hh;

		*off = stream__pos(&r->src);
		ret = stream__need(&r->src, sizeof(hh), &p, &got);
		if (ret == -ENODATA && !got)
			return reader__end(r, *off, err, errsz);
		if (ret)
			return reader__said(ret == -ENODATA ? "truncated header" : NULL, *off, ret,
					    err, errsz);
		memcpy(&hh, p, sizeof(hh));
		if (hh.type != PERF_RECORD_COMPRESSED || hh.size < sizeof(hh))
			return reader__next_plain(r, p, *off, h, err, errsz) ?: 1;
		/* a COMPRESSED record holds any number of bytes */
		ret = stream__need(&r->src, hh.size, &p, &got);
		if (ret == -ENODATA) {
			snprintf(err, errsz, "record at offset %#llx: bad size %u",
				 (unsigned long long)*off, hh.size);
			return -EINVAL;
		}
		if (!ret)
			ret = reader__decompress(r, *off, p + sizeof(hh), hh.size, err, errsz);
		if (!ret)
			ret = stream__skip(&r->src, hh.size);
		if (!ret && r->dec.len)
			return reader__next_dec(r, h, off, err, errsz);
	}
	return ret;
}

/* A directory's next record file that has records (the stock perf
 * leaves the empty ones out), its records then read from its start: 1,
 * 0 after the last, -errno with err. Each file may decompress to what
 * its size allows, as a file's data section. */
static int reader__next_part(struct perf_reader *r, char *err, size_t errsz)
{
	u64 size = 0;
	int fd = -1;

	while (fd < 0 && r->part < r->nr_parts) {
		/* the entry may have been replaced since the scan */
		fd = regular_file__open(r->dfd, r->parts[r->part], &size);
		r->part++;
		if (fd < 0) {
			snprintf(err, errsz, "%s", fd == -EINVAL ? "not a regular file (any more)" :
				 strerror(-fd));
			return fd;
		}
		if (!size) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0)
		return 0;
	stream__exit(&r->src);
	if (r->part_fd >= 0)
		close(r->part_fd);
	r->part_fd = fd;
	r->part_size = size;
	stream__init(&r->src, fd, 0, 0, size);
	if (!r->decomp)
		return 1;
	/* each file has its own zstd stream, begun with it */
	decompressor__delete(r->decomp);
	r->decomp = decompressor__new();
	r->comp_budget += MIN(size, UINT64_MAX / 4 / COMP_RATIO_MAX) * COMP_RATIO_MAX;
	return r->decomp ? 1 : -ENOMEM;
}

/* err, of a directory, then names the file it is about. */
static void reader__name_part(const struct perf_reader *r, char *err, size_t errsz)
{
	char *what = r->dfd >= 0 ? strdup(err) : NULL;

	if (what)
		snprintf(err, errsz, "%s: %s", reader__part_name(r, r->part), what);
	free(what);
}

int reader__for_each(struct perf_reader *r, reader_cb cb, void *arg, char *err, size_t errsz)
{
	const struct perf_event_header *h;
	u64 off;
	int ret;

	do {
		while ((ret = reader__next(r, &h, &off, err, errsz)) == 1) {
			ret = cb(r, h, off, arg);
			if (ret)
				return ret;
		}
	} while (!ret && (ret = reader__next_part(r, err, errsz)) == 1);
	if (ret)
		reader__name_part(r, err, errsz);
	return ret;
}

/* Records that only a stream's header has. */
static int header_type(u32 type)
{
	return type == PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_HEADER_EVENT_TYPE ||
	       type == PERF_RECORD_HEADER_TRACING_DATA || type == PERF_RECORD_HEADER_BUILD_ID ||
	       type == PERF_RECORD_HEADER_FEATURE;
}

int reader__open_stream(struct perf_reader *r, char *err, size_t errsz)
{
	r->feats = calloc(HEADER_FEAT_BITS, sizeof(*r->feats));
	if (!r->feats)
		return -ENOMEM;
	for (;;) {
		const struct perf_event_header *h;
		struct perf_event_header hh;
		const char *p;
		size_t got;
		u64 off;
		int ret = reader__skip_payload(r, err, errsz);

		if (!ret)
			ret = stream__need(&r->src, sizeof(hh), &p, &got);
		if (ret == -ENODATA && !got)
			break;
		if (ret == -ENODATA)
			return reader__said("truncated header", stream__pos(&r->src), ret, err, errsz);
		if (ret)
			return ret == -EINVAL ? ret : reader__said(NULL, stream__pos(&r->src), ret,
								  err, errsz);
		memcpy(&hh, p, sizeof(hh));
		if (!header_type(hh.type))
			break;
		ret = reader__next(r, &h, &off, err, errsz);
		if (ret < 0)
			return ret;
	}
	if (!r->nr_evsels) {
		snprintf(err, errsz, "%s: a stream without events (no HEADER_ATTR record)", r->path);
		return -EINVAL;
	}
	return 0;
}
