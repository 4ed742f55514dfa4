/* A bounded reader over bytes read from a file: a read past the end gives
 * nothing and marks the cursor bad, so a parser checks once, at its end. */
#ifndef PERF_LIB_CURSOR_H
#define PERF_LIB_CURSOR_H

#include <string.h>

#include "lib/util.h"

struct cursor {
	const char *p;
	u64 size, pos;
	int bad;	/* read past the end: every later read gives nothing */
};

static inline struct cursor cursor__new(const void *p, u64 size)
{
	return (struct cursor){ .p = p, .size = size };
}

/* The next n bytes, or NULL (and bad) when fewer are left. */
static inline const void *cursor__take(struct cursor *c, u64 n)
{
	const void *at = c->p + c->pos;

	if (c->bad || n > c->size - c->pos) {
		c->bad = 1;
		return NULL;
	}
	c->pos += n;
	return at;
}

/* The next n (at most 8) bytes as a little-endian number, 0 past the end. */
static inline u64 cursor__uint(struct cursor *c, u64 n)
{
	const void *at = cursor__take(c, n);
	u64 v = 0;

	if (at)
		memcpy(&v, at, n);
	return v;
}

static inline u64 cursor__left(const struct cursor *c)
{
	return c->bad ? 0 : c->size - c->pos;
}

#endif
