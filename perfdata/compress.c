/* zstd for perf.data: the ring data of a file as one stream, cut into
 * PERF_RECORD_COMPRESSED records, and back. */
#include "perfdata/compress.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* A record's size is 16 bits: the compressed bytes one record holds. */
#define RECORD_ROOM (0xffff - sizeof(struct perf_event_header))
/* The most input one flush may take so that all it gives fits one record,
 * whatever the data (zstd's worst case bound for the input). */
#define CHUNK_MAX (63 * 1024)
_Static_assert(ZSTD_COMPRESSBOUND(CHUNK_MAX) <= RECORD_ROOM, "a chunk fits a record");

struct compressor {
	ZSTD_CCtx *cctx;
	size_t chunk;
};

struct compressor *compressor__new(int level, size_t chunk)
{
	struct compressor *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->chunk = chunk && chunk < CHUNK_MAX ? chunk : CHUNK_MAX;
	c->cctx = ZSTD_createCCtx();
	if (!c->cctx || ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel,
							   level))) {
		int err = c->cctx ? EINVAL : ENOMEM;

		compressor__delete(c);
		errno = err;
		return NULL;
	}
	return c;
}

void compressor__delete(struct compressor *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	free(c);
}

int compressor__records(struct compressor *c, struct buf *out, const void *src, size_t len)
{
	for (size_t done = 0; done < len;) {
		size_t n = MIN(len - done, c->chunk), at = out->len, left;
		ZSTD_inBuffer in = { (const char *)src + done, n, 0 };
		ZSTD_outBuffer o;
		struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };

		buf__zero(out, sizeof(h) + RECORD_ROOM);
		if (out->err)
			return out->err;
		o = (ZSTD_outBuffer){ out->p + at + sizeof(h), RECORD_ROOM, 0 };
		left = ZSTD_compressStream2(c->cctx, &o, &in, ZSTD_e_flush);
		/* the bound says it all fits: anything else is a zstd failure */
		if (ZSTD_isError(left) || left || in.pos != n) {
			out->len = at;
			return -EIO;
		}
		h.size = sizeof(h) + o.pos;
		memcpy(out->p + at, &h, sizeof(h));
		out->len = at + h.size;
		done += n;
	}
	return 0;
}

struct decompressor {
	ZSTD_DStream *ds;
	size_t hint;	/* the last ZSTD_decompressStream() return */
};

struct decompressor *decompressor__new(void)
{
	struct decompressor *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ds = ZSTD_createDStream();
	if (!d->ds) {
		decompressor__delete(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void decompressor__delete(struct decompressor *d)
{
	if (!d)
		return;
	ZSTD_freeDStream(d->ds);
	free(d);
}

int decompressor__feed(struct decompressor *d, const void *src, size_t len, size_t max,
		       struct buf *out, const char **why)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t start = out->len;

	for (;;) {
		/* one byte over max: zstd may hold output until it has room */
		size_t before = in.pos, room = MIN(max + 1 - (out->len - start),
						   (size_t)ZSTD_DStreamOutSize()), ret;
		ZSTD_outBuffer o;

		buf__zero(out, room);
		if (out->err)
			return out->err;
		out->len -= room;
		o = (ZSTD_outBuffer){ out->p + out->len, room, 0 };
		ret = ZSTD_decompressStream(d->ds, &o, &in);
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -EINVAL;
		}
		out->len += o.pos;
		d->hint = ret;
		if (out->len - start > max) {
			*why = "decompresses to more than the COMPRESSED feature's mmap_len";
			return -EINVAL;
		}
		/* all input taken and nothing more came out: the rest is
		 * inside zstd, waiting for the next record */
		if ((in.pos == in.size && o.pos < room) || (!o.pos && in.pos == before))
			break;
	}
	return 0;
}

int decompressor__at_boundary(const struct decompressor *d)
{
	/* after a flushed block zstd asks for the next block's header (3
	 * bytes), 0 after a frame's end; inside a block, for the rest of it
	 * (a cut that leaves exactly 3 bytes missing goes unnoticed) */
	return d->hint == 0 || d->hint == 3;
}
