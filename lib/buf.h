/* A growable byte buffer with a sticky error: append freely, check once. */
#ifndef PERF_BUF_H
#define PERF_BUF_H

#include "lib/util.h"

/* A growable byte buffer with a sticky error: append freely, check once. */
struct buf {
	char *p;
	size_t len, cap;
	int err;	/* -ENOMEM after a failed growth; further appends are no-ops */
};

void buf__add(struct buf *b, const void *data, size_t len);
void buf__zero(struct buf *b, size_t len);
static inline void buf__u8(struct buf *b, u8 v) { buf__add(b, &v, 1); }
static inline void buf__u32(struct buf *b, u32 v) { buf__add(b, &v, 4); }
static inline void buf__u64(struct buf *b, u64 v) { buf__add(b, &v, 8); }
/* Adds a string with its NUL. */
void buf__str0(struct buf *b, const char *s);
/* Appends a whole file's contents; -errno if unreadable (b unchanged). */
int buf__file(struct buf *b, const char *path, size_t *len);
void buf__release(struct buf *b);

#endif
