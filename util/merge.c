#include "util/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PREFETCH_AHEAD 2
/* the index arrays: a cache line of times ahead (prefetches never fault) */
#define INDEX_AHEAD 8

/* A stream at its end: after every record of any stream, even one at time
 * UINT64_MAX, as its stream number is above every real one. */
#define DONE (1U << 31)

static u32 leaves_for(int nr)
{
	u32 k = 1;

	while (k < (u32)nr)
		k *= 2;
	return k;
}

int merge__reserve(struct merge *m, int nr)
{
	struct merge_stream *s;
	struct merge_node *t;
	u32 k = leaves_for(nr);

	if (nr <= m->cap)
		return 0;
	s = realloc(m->streams, nr * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->streams = s;
	/* the losers of k - 1 matches and the winner, then room to build */
	t = realloc(m->tree, 3 * k * sizeof(*t));
	if (!t)
		return -ENOMEM;
	m->tree = t;
	m->cap = nr;
	return 0;
}

void merge__exit(struct merge *m)
{
	free(m->streams);
	free(m->tree);
	memset(m, 0, sizeof(*m));
}

static inline int node_before(struct merge_node a, struct merge_node b)
{
	return (a.time < b.time) | ((a.time == b.time) & (a.stream < b.stream));
}

/* Moves stream s to its next record that is not trimmed: that record's
 * node, or s's DONE node at its end. */
static struct merge_node stream_load(struct merge *m, u32 s)
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
		 * prefetcher's sight: ask for them early, index included */
		if (st->pos + PREFETCH_AHEAD < st->nr) {
			const char *next = st->base + st->offs[st->pos + PREFETCH_AHEAD];

			__builtin_prefetch(next, 0, 2);
			__builtin_prefetch(next + 64, 0, 2);
		}
		__builtin_prefetch(&st->times[st->pos + INDEX_AHEAD], 0, 2);
		__builtin_prefetch(&st->offs[st->pos + 2 * INDEX_AHEAD], 0, 2);
		return (struct merge_node){ t, s };
	}
	return (struct merge_node){ UINT64_MAX, s | DONE };
}

void merge__start(struct merge *m, u64 window)
{
	u32 k = leaves_for(m->nr_streams);
	struct merge_node *won = m->tree + k;	/* 2k: each match's winner */

	m->window = window;
	m->trimmed = 0;
	m->leaves = k;
	for (u32 s = 0; s < k; s++) {
		if (s < (u32)m->nr_streams) {
			m->streams[s].pos = 0;
			won[k + s] = stream_load(m, s);
		} else {
			won[k + s] = (struct merge_node){ UINT64_MAX, s | DONE };
		}
	}
	for (u32 n = k - 1; n >= 1; n--) {
		struct merge_node a = won[2 * n], b = won[2 * n + 1];
		int a_wins = node_before(a, b);

		won[n] = a_wins ? a : b;
		m->tree[n] = a_wins ? b : a;
	}
	m->tree[0] = won[1];
}

const struct perf_event_header *merge__next(struct merge *m, u64 *time)
{
	struct merge_node w = m->tree[0];
	struct merge_stream *st;
	const struct perf_event_header *h;

	if (w.stream & DONE)
		return NULL;
	st = &m->streams[w.stream];
	h = (const void *)(st->base + st->offs[st->pos]);
	*time = w.time;
	st->pos++;
	w = stream_load(m, w.stream);
	/* replay the winner's matches from its leaf up: a fixed path of
	 * log2 k steps with no branch on the data, which a round-robin of
	 * many rings would mispredict at every level of a heap */
	for (u32 n = (m->leaves + (w.stream & ~DONE)) / 2; n >= 1; n /= 2) {
		struct merge_node loser = m->tree[n];
		int loser_wins = node_before(loser, w);

		m->tree[n] = loser_wins ? w : loser;
		w = loser_wins ? loser : w;
	}
	m->tree[0] = w;
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
