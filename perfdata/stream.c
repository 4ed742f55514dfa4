/* perf.data's records through a window (see stream.h): what is unconsumed
 * moves to the window's start, then one read fills the rest. */
#include "perfdata/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Big enough that a read costs little next to what the window holds,
 * small next to the files read: 500 MB files are held as 4 MiB. */
#define STREAM_WINDOW (4U << 20)

void stream__init(struct stream *s, int fd, int seq, u64 off, u64 end)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->seq = seq;
	s->base = off;
	s->end = end;
}

void stream__exit(struct stream *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* Room for n bytes from the window's start, the unconsumed ones moved there. */
static int stream__room(struct stream *s, size_t n)
{
	size_t cap = MAX((size_t)STREAM_WINDOW, n);

	if (s->at) {
		memmove(s->buf, s->buf + s->at, s->len - s->at);
		s->base += s->at;
		s->len -= s->at;
		s->at = 0;
	}
	if (s->cap < cap) {
		char *p = realloc(s->buf, cap);

		if (!p)
			return -ENOMEM;
		s->buf = p;
		s->cap = cap;
	}
	return 0;
}

/* One read into the window's free room: bytes read, 0 at the end, -errno. */
static ssize_t stream__fill(struct stream *s)
{
	u64 pos = s->base + s->len;
	size_t want = s->cap - s->len;
	ssize_t n;

	if (pos >= s->end)
		return 0;
	want = MIN((u64)want, s->end - pos);
	do
		n = s->seq ? read(s->fd, s->buf + s->len, want) :
			     pread(s->fd, s->buf + s->len, want, pos);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	s->len += n;
	return n;
}

int stream__need(struct stream *s, size_t n, const char **p, size_t *got)
{
	int ret;

	if (s->len - s->at < n) {
		ret = stream__room(s, n);
		if (ret)
			return ret;
		while (s->len < n) {
			ssize_t r = stream__fill(s);

			if (r < 0)
				return r;
			if (!r) {
				*got = s->len;
				/* a file shorter than when it was opened */
				return s->seq || s->base + s->len >= s->end ? -ENODATA : -ESTALE;
			}
		}
	}
	*p = s->buf + s->at;
	return 0;
}

int stream__skip(struct stream *s, u64 n)
{
	size_t in = MIN((u64)(s->len - s->at), n);

	s->at += in;
	n -= in;
	if (!n)
		return 0;
	/* past the window: it is all consumed, start it again further on */
	s->base += s->len;
	s->at = s->len = 0;
	if (!s->seq) {
		if (n > s->end - MIN(s->end, s->base))
			return -ENODATA;
		s->base += n;
		return 0;
	}
	while (n) {
		ssize_t r;

		if (!s->cap && stream__room(s, 0))
			return -ENOMEM;
		r = stream__fill(s);
		if (r <= 0)
			return r ? r : -ENODATA;
		in = MIN((u64)r, n);
		s->at = in;
		n -= in;
		if (n) {
			s->base += s->len;
			s->at = s->len = 0;
		}
	}
	return 0;
}
