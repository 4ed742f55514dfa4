/* The k-way merge of time-ordered record streams, a slice of time at a
 * time, and the stable sort of unsorted records by time. */
#include "flight/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Records a slice aims at: enough that gathering visits each stream for a
 * run of records (SLICE_PER_STREAM a stream at least, so that the visits
 * cost no more per record with more streams), few enough that a slice
 * stays in the caches. It holds up to four times as many. */
#define SLICE_RECORDS 2048
#define SLICE_PER_STREAM 4
/* The counting sort's buckets: twice the slice's records (a power of two,
 * so about one record or none in each, which leaves little for the
 * insertion sort), and no more to clear and walk for a small slice. */
#define SORT_BUCKETS 4096
#define SORT_BUCKETS_MIN 64
/* Records ahead in time order that merge__next() asks the memory for. */
#define PREFETCH_AHEAD 16
/* A bucket holding more is sorted by merge__sort_refs(), not by insertion. */
#define INSERTION_MAX 16

static u32 slice_aim_for(int nr)
{
	return MAX(SLICE_RECORDS, SLICE_PER_STREAM * (u32)nr);
}

static u32 slice_cap_for(int nr)
{
	return 4 * slice_aim_for(nr);
}

u64 merge__bytes(int nr)
{
	u64 cap = slice_cap_for(nr);

	return nr * (sizeof(struct merge_stream) + sizeof(u64)) +
	       cap * (sizeof(const char *) + 2 * sizeof(struct timed_ref)) +
	       (SORT_BUCKETS + 1) * sizeof(u32);
}

/* Resizes the array whose pointer is at p to bytes, leaving it as it was
 * on failure. The pointer is copied, not read through a void **: it is a
 * pointer of another type. */
static int resize(void *p, size_t bytes)
{
	void *old, *n;

	memcpy(&old, p, sizeof(old));
	n = realloc(old, bytes);
	if (!n)
		return -ENOMEM;
	memcpy(p, &n, sizeof(n));
	return 0;
}

int merge__reserve(struct merge *m, int nr)
{
	u32 cap = slice_cap_for(nr);

	if (nr <= m->cap)
		return 0;
	if (resize(&m->streams, nr * sizeof(*m->streams)) ||
	    resize(&m->restart, nr * sizeof(*m->restart)) ||
	    (!m->counts && resize(&m->counts, (SORT_BUCKETS + 1) * sizeof(*m->counts))))
		return -ENOMEM;
	if (cap > m->slice_cap) {
		if (resize(&m->recs, cap * sizeof(*m->recs)) ||
		    resize(&m->gathered, cap * sizeof(*m->gathered)) ||
		    resize(&m->sorted, cap * sizeof(*m->sorted)))
			return -ENOMEM;
		m->slice_cap = cap;
	}
	m->slice_aim = slice_aim_for(nr);
	m->cap = nr;
	return 0;
}

void merge__exit(struct merge *m)
{
	free(m->streams);
	free(m->restart);
	free(m->counts);
	free(m->recs);
	free(m->gathered);
	free(m->sorted);
	memset(m, 0, sizeof(*m));
}

static int trimmed_out(const struct merge *m, const struct merge_stream *st, u64 pos)
{
	/* only a record older than the window is looked at */
	return st->trim && st->times[pos] < m->window &&
	       ((const struct perf_event_header *)(st->base + st->offs[pos]))->type ==
	       PERF_RECORD_SAMPLE;
}

void merge__start(struct merge *m, u64 window)
{
	double per_ns = 0;

	m->window = window;
	m->trimmed = 0;
	m->nr = m->next = 0;
	/* a first width, from each stream's density over its middle half:
	 * records with no time (0) or far apart at either end would make
	 * the whole span a poor guess, paid for in undone slices */
	for (int s = 0; s < m->nr_streams; s++) {
		struct merge_stream *st = &m->streams[s];

		st->pos = 0;
		if (st->nr >= 4 && st->times[3 * st->nr / 4] > st->times[st->nr / 4])
			per_ns += (st->nr / 2) / (double)(st->times[3 * st->nr / 4] -
							  st->times[st->nr / 4]);
	}
	m->width = per_ns > 0 && m->slice_aim / per_ns < (double)(UINT64_MAX / 2) ?
		   MAX((u64)(m->slice_aim / per_ns), 1) : UINT64_MAX / 2;
}

/* Gathers every stream's records from start (the earliest at a cursor)
 * up to time end, the run at each cursor, stream after stream. Returns 1
 * with the slice, or 0 with every cursor as it was when more records than
 * a slice holds came first. Unless all it took are at start: they are
 * kept as far as it went, since no stream not yet visited holds anything
 * earlier, and at equal times the lower stream goes first. */
static int merge__gather(struct merge *m, u64 start, u64 end, u64 *lo, u64 *hi)
{
	u64 trimmed = m->trimmed;

	m->nr = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (int s = 0; s < m->nr_streams; s++) {
		struct merge_stream *st = &m->streams[s];
		u64 pos = st->pos;

		m->restart[s] = pos;
		for (; pos < st->nr && st->times[pos] <= end; pos++) {
			u64 t = st->times[pos];

			if (__builtin_expect(st->trim, 0) && trimmed_out(m, st, pos)) {
				m->trimmed++;
				continue;
			}
			if (m->nr == m->slice_cap) {
				st->pos = pos;
				if (*hi <= start)
					return 1;
				for (int r = 0; r <= s; r++)
					m->streams[r].pos = m->restart[r];
				m->trimmed = trimmed;
				return 0;
			}
			m->recs[m->nr] = st->base + st->offs[pos];
			/* they are read once sorted, in no order: ask for them
			 * now, a stream's run at a time (a page, and its TLB
			 * entry, serves many) */
			__builtin_prefetch(m->recs[m->nr], 0, 2);
			__builtin_prefetch(m->recs[m->nr] + 64, 0, 2);
			m->gathered[m->nr] = (struct timed_ref){ t, m->nr };
			m->nr++;
			*lo = MIN(*lo, t);
			*hi = MAX(*hi, t);
		}
		st->pos = pos;
		if (pos >= st->nr)
			continue;
		/* the next slice starts here, after a visit to every other
		 * stream: too few records for the hardware to see a stream */
		__builtin_prefetch(&st->times[pos], 0, 2);
		__builtin_prefetch(&st->times[pos + 8], 0, 2);
		__builtin_prefetch(&st->times[pos + 16], 0, 2);
		__builtin_prefetch(&st->offs[pos], 0, 2);
		__builtin_prefetch(&st->offs[pos + 16], 0, 2);
	}
	return 1;
}

static void insertion_sort(struct timed_ref *r, u32 n)
{
	for (u32 i = 1; i < n; i++) {
		struct timed_ref x = r[i];
		u32 j = i;

		for (; j > 0 && x.time < r[j - 1].time; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/* m->gathered into m->sorted by time, stable: a counting sort on the
 * times' high bits within the slice, then each bucket sorted whole. */
static void merge__sort_slice(struct merge *m, u64 lo, u64 hi)
{
	u32 *counts = m->counts, shift = 0, buckets = SORT_BUCKETS_MIN;

	while (buckets < 2 * m->nr && buckets < SORT_BUCKETS)
		buckets *= 2;
	while (((hi - lo) >> shift) >= buckets)
		shift++;
	memset(counts, 0, (buckets + 1) * sizeof(*counts));
	for (u32 i = 0; i < m->nr; i++)
		counts[((m->gathered[i].time - lo) >> shift) + 1]++;
	for (u32 b = 1; b <= buckets; b++)
		counts[b] += counts[b - 1];
	/* counts[b]: where bucket b starts, then (as it fills) where it ends */
	for (u32 i = 0; i < m->nr; i++)
		m->sorted[counts[(m->gathered[i].time - lo) >> shift]++] = m->gathered[i];
	if (!shift)
		return;		/* a bucket a time: in order already */
	for (u32 b = 0, start = 0; b < buckets; start = counts[b++]) {
		u32 n = counts[b] - start;

		if (n > INSERTION_MAX)
			merge__sort_refs(m->sorted + start, m->gathered, n);
		else if (n > 1)
			insertion_sort(m->sorted + start, n);
	}
}

/* The next slice, from the earliest record at a cursor: 0 at the end. */
static int merge__slice(struct merge *m)
{
	u64 start = UINT64_MAX, lo, hi;
	int any = 0;

	for (int s = 0; s < m->nr_streams; s++) {
		struct merge_stream *st = &m->streams[s];

		if (st->pos < st->nr) {
			start = MIN(start, st->times[st->pos]);
			any = 1;
		}
	}
	if (!any)
		return 0;
	for (;;) {
		u64 end = m->width > UINT64_MAX - start ? UINT64_MAX : start + m->width - 1;

		if (merge__gather(m, start, end, &lo, &hi))
			break;
		/* too many for one slice: half the time */
		m->width = MAX(m->width / 2, 1);
	}
	/* aim the next one at slice_aim records */
	if (m->nr < m->slice_aim / 2 && m->width <= UINT64_MAX / 2)
		m->width *= 2;
	else if (m->nr > 2 * m->slice_aim)
		m->width = MAX(m->width / 2, 1);
	m->next = 0;
	if (m->nr)
		merge__sort_slice(m, lo, hi);
	return 1;
}

const struct perf_event_header *merge__next(struct merge *m, u64 *time)
{
	struct timed_ref r;

	/* a slice can be empty when the window trimmed all it had */
	while (m->next == m->nr)
		if (!merge__slice(m))
			return NULL;
	/* the record a few ahead in time order: asked for when gathered,
	 * a whole slice ago, it may have left the caches since, and with
	 * many streams no hardware prefetcher follows them */
	if (m->next + PREFETCH_AHEAD < m->nr)
		__builtin_prefetch(m->recs[m->sorted[m->next + PREFETCH_AHEAD].off], 0, 3);
	r = m->sorted[m->next++];
	*time = r.time;
	return (const void *)m->recs[r.off];
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
