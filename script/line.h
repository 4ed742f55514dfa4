/* perf script's output built in memory and written in big pieces: the
 * numbers as printf's %d, %u and %x with their widths print them, without
 * printf's cost per field (most of the time of a run over callchains). */
#ifndef PERF_SCRIPT_LINE_H
#define PERF_SCRIPT_LINE_H

#include "lib/util.h"

#include <stdio.h>
#include <string.h>

/* Room for many lines: what is built goes out when it is full and when
 * the caller flushes, before anything else writes to out. */
#define LINE_ROOM 8192

struct line {
	FILE *out;
	char *p;
	char buf[LINE_ROOM];
};

enum {
	LINE_LEFT = 1,	/* %-5d: padded on the right */
	LINE_ZERO = 2,	/* %03d: zeros after the sign */
};

static inline void line__init(struct line *l, FILE *out)
{
	l->out = out;
	l->p = l->buf;
}

/* What is built, written to out. */
static inline void line__flush(struct line *l)
{
	if (l->p != l->buf)
		fwrite_unlocked(l->buf, 1, l->p - l->buf, l->out);
	l->p = l->buf;
}

static inline size_t line__room(const struct line *l)
{
	return (size_t)(l->buf + LINE_ROOM - l->p);
}

/* n bytes of room at l->p (n <= LINE_ROOM). */
static inline void line__reserve(struct line *l, size_t n)
{
	if (line__room(l) < n)
		line__flush(l);
}

/* n bytes of s; what the line cannot hold is written straight. */
static inline void line__put(struct line *l, const char *s, size_t n)
{
	if (line__room(l) < n) {
		line__flush(l);
		if (n > LINE_ROOM) {
			fwrite_unlocked(s, 1, n, l->out);
			return;
		}
	}
	memcpy(l->p, s, n);
	l->p += n;
}

static inline void line__puts(struct line *l, const char *s)
{
	line__put(l, s, strlen(s));
}

static inline void line__putc(struct line *l, char c)
{
	line__reserve(l, 1);
	*l->p++ = c;
}

/* n times c */
static inline void line__pad(struct line *l, char c, size_t n)
{
	while (n) {
		size_t k = MIN(n, (size_t)LINE_ROOM);

		line__reserve(l, k);
		memset(l->p, c, k);
		l->p += k;
		n -= k;
	}
}

/* s padded with spaces to width: %*s, or %-*s with LINE_LEFT */
static inline void line__str(struct line *l, const char *s, int width, int flags)
{
	size_t n = strlen(s), pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (!(flags & LINE_LEFT))
		line__pad(l, ' ', pad);
	line__put(l, s, n);
	if (flags & LINE_LEFT)
		line__pad(l, ' ', pad);
}

/* The digits of v in base 10 or 16 (lower case), into the end of end's
 * buffer: where they start. */
static inline char *line__digits(char *end, u64 v, int hex)
{
	if (hex) {
		do {
			*--end = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			*--end = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	return end;
}

/* A number of magnitude v (negative with neg) as printf pads it to width
 * (width < 64). */
static inline void line__num(struct line *l, u64 v, int neg, int hex, int width, int flags)
{
	char tmp[24], *d = line__digits(tmp + sizeof(tmp), v, hex);
	int nd = (int)(tmp + sizeof(tmp) - d), len = nd + !!neg;
	int pad = width > len ? width - len : 0;

	line__reserve(l, (size_t)(len + pad));
	if (!(flags & (LINE_LEFT | LINE_ZERO)))
		for (; pad; pad--)
			*l->p++ = ' ';
	if (neg)
		*l->p++ = '-';
	if (flags & LINE_ZERO)
		for (; pad; pad--)
			*l->p++ = '0';
	memcpy(l->p, d, nd);
	l->p += nd;
	for (; pad; pad--)
		*l->p++ = ' ';
}

/* %*d */
static inline void line__int(struct line *l, int v, int width, int flags)
{
	line__num(l, v < 0 ? -(u64)(s64)v : (u64)v, v < 0, 0, width, flags);
}

/* %*llu */
static inline void line__u64(struct line *l, u64 v, int width, int flags)
{
	line__num(l, v, 0, 0, width, flags);
}

/* %*llx */
static inline void line__hex(struct line *l, u64 v, int width)
{
	line__num(l, v, 0, 1, width, 0);
}

#endif
