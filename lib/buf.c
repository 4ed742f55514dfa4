/* The growable byte buffer with a sticky error. */
#include "lib/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int buf__grow(struct buf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->err)
		return b->err;
	if (b->len + extra <= b->cap)
		return 0;
	while (cap < b->len + extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void buf__add(struct buf *b, const void *data, size_t len)
{
	if (!len || buf__grow(b, len))
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void buf__zero(struct buf *b, size_t len)
{
	if (!len || buf__grow(b, len))
		return;
	memset(b->p + b->len, 0, len);
	b->len += len;
}

void buf__str0(struct buf *b, const char *s)
{
	buf__add(b, s, strlen(s) + 1);
}

int buf__file(struct buf *b, const char *path, size_t *len)
{
	size_t n;
	char *data = read_file(path, &n);

	if (!data)
		return -errno;
	buf__add(b, data, n);
	free(data);
	if (len)
		*len = n;
	return 0;
}

void buf__release(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}
