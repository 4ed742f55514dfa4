/* zstd for perf.data: ring data compressed into PERF_RECORD_COMPRESSED
 * records as one stream per file, and the stream read back. */
#ifndef PERF_COMPRESS_H
#define PERF_COMPRESS_H

#include <stddef.h>
#include "lib/buf.h"

/* perf's record type holding a piece of the zstd stream of the records
 * that follow it: a header, then compressed bytes (any number: the record
 * is not padded to 8 bytes, as the stock perf writes it). */
#define PERF_RECORD_COMPRESSED 81
#define PERF_COMP_ZSTD 1		/* the COMPRESSED feature's type */
#define COMPRESS_LEVEL_MIN 1
#define COMPRESS_LEVEL_MAX 22
#define COMPRESS_LEVEL_DEFAULT 1	/* -z alone, as the stock perf 6.1 */

/* One zstd stream, as long as the file it is written into. */
struct compressor;

/* chunk: the most input one COMPRESSED record may stand for; the stock
 * reader decompresses each record into the COMPRESSED feature's mmap_len,
 * so chunk must not exceed it. NULL with errno. */
struct compressor *compressor__new(int level, size_t chunk);
void compressor__delete(struct compressor *c);
/* Appends len bytes of whole records as COMPRESSED records to out. Each
 * record is flushed on its own, so it decompresses alone to what it stands
 * for (never to nothing, which the stock reader refuses). 0 or -errno. */
int compressor__records(struct compressor *c, struct buf *out, const void *src, size_t len);

/* The other way: one stream fed with the bodies of the COMPRESSED records
 * of one file in file order. */
struct decompressor;

struct decompressor *decompressor__new(void);
void decompressor__delete(struct decompressor *d);
/* Appends what len bytes of stream decompress to, up to max bytes, to out.
 * 0; -EINVAL with *why set (corrupt data, more than max); -ENOMEM. */
int decompressor__feed(struct decompressor *d, const void *src, size_t len, size_t max,
		       struct buf *out, const char **why);
/* Has the stream so far ended at a block boundary? A stream whose last
 * record was cut ends inside a block. */
int decompressor__at_boundary(const struct decompressor *d);

#endif
