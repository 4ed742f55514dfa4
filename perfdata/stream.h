/* The bytes of a perf.data's records read through a window: pread() of a
 * file's data section, read() of a pipe, so that a reader holds what it
 * is reading now, never the whole file. */
#ifndef PERF_STREAM_H
#define PERF_STREAM_H

#include "lib/util.h"

/* A window on bytes [base, base + len) of the file or stream; the bytes
 * before base + at are consumed. A pointer stream__need() gave stays
 * valid until the next stream__need() or stream__skip(). */
struct stream {
	int fd;
	int seq;	/* read(): a pipe, only forward; else pread() */
	char *buf;
	size_t at, len, cap;
	u64 base;
	u64 end;	/* no byte at or after end is read: a file's data end */
};

/* A stream of fd from off (where the pipe stands now, for seq) to end
 * (~0 for up to EOF). It neither owns nor closes fd. */
void stream__init(struct stream *s, int fd, int seq, u64 off, u64 end);
void stream__exit(struct stream *s);
/* Where the next unconsumed byte is, as a file or stream offset. */
static inline u64 stream__pos(const struct stream *s) { return s->base + s->at; }
/* n bytes at stream__pos() in the window: 0 with *p; -ENODATA when the
 * stream ends (at end or EOF) before n bytes, with *got saying how many
 * there are; -ESTALE when a file ends before end (someone truncated it
 * while it was read); -errno on a read error, -ENOMEM. */
int stream__need(struct stream *s, size_t n, const char **p, size_t *got);
/* Consumes n bytes (the window's, then past it: a file seeks, a pipe
 * reads and drops). 0, -ENODATA (the stream ends first) or -errno. */
int stream__skip(struct stream *s, u64 n);

#endif
