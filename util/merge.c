#include "util/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PREFETCH_AHEAD 2

int merge__reserve(struct merge *m, int nr)
{
	struct merge_stream *s;
	struct merge_node *h;

	if (nr <= m->cap)
		return 0;
	s = realloc(m->streams, nr * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->streams = s;
	h = realloc(m->heap, nr * sizeof(*h));
	if (!h)
		return -ENOMEM;
	m->heap = h;
	m->cap = nr;
	return 0;
}

void merge__exit(struct merge *m)
{
	free(m->streams);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

static int node_before(const struct merge_node *a, const struct merge_node *b)
{
	return a->time != b->time ? a->time < b->time : a->stream < b->stream;
}

static void sift_down(struct merge *m, int i)
{
	struct merge_node x = m->heap[i];

	for (;;) {
		int c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && node_before(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!node_before(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

/* Moves stream s to its next record that is not trimmed; 0 at its end. */
static int stream_load(struct merge *m, u32 s, struct merge_node *node)
{
	struct merge_stream *st = &m->streams[s];

	for (; st->pos < st->nr; st->pos++) {
		u64 t = st->times[st->pos];

		/* only a record older than the window is looked at */
		if (st->trim && t < m->window &&
		    ((const struct perf_event_header *)(st->base + st->offs[st->pos]))->type ==
		    PERF_RECORD_SAMPLE) {
			m->trimmed++;
			continue;
		}
		/* the caller reads the record, and with many streams each
		 * one's next records are long out of the cache and out of the
		 * prefetcher's sight: ask for them early */
		if (st->pos + PREFETCH_AHEAD < st->nr)
			__builtin_prefetch(st->base + st->offs[st->pos + PREFETCH_AHEAD]);
		*node = (struct merge_node){ t, s };
		return 1;
	}
	return 0;
}

void merge__start(struct merge *m, u64 window)
{
	m->window = window;
	m->trimmed = 0;
	m->n = 0;
	for (int s = 0; s < m->nr_streams; s++) {
		m->streams[s].pos = 0;
		if (stream_load(m, s, &m->heap[m->n]))
			m->n++;
	}
	for (int i = m->n / 2 - 1; i >= 0; i--)
		sift_down(m, i);
}

const struct perf_event_header *merge__next(struct merge *m, u64 *time)
{
	struct merge_stream *st;
	const struct perf_event_header *h;

	if (!m->n)
		return NULL;
	st = &m->streams[m->heap[0].stream];
	h = (const void *)(st->base + st->offs[st->pos]);
	*time = m->heap[0].time;
	st->pos++;
	if (!stream_load(m, m->heap[0].stream, &m->heap[0]))
		m->heap[0] = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
	return h;
}

void merge__sort_refs(struct timed_ref *refs, struct timed_ref *scratch, u64 nr)
{
	struct timed_ref *src = refs, *dst = scratch;

	/* bottom-up; a log drained ring by ring is a few sorted runs, and a
	 * run already in order costs one comparison per merge step */
	for (u64 width = 1; width < nr; width *= 2) {
		for (u64 lo = 0; lo < nr; lo += 2 * width) {
			u64 mid = MIN(lo + width, nr), hi = MIN(lo + 2 * width, nr);
			u64 i = lo, j = mid, k = lo;

			if (mid == hi || src[mid - 1].time <= src[mid].time) {
				memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*src));
				continue;
			}
			while (i < mid && j < hi)
				dst[k++] = src[j].time < src[i].time ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct timed_ref *t = src;

		src = dst;
		dst = t;
	}
	if (src != refs)
		memcpy(refs, src, nr * sizeof(*refs));
}
