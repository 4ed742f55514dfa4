/* Captures a backward ring: copies it, or with twins reads it where it
 * stands, then keeps only the complete records new since the last dump. */
#include "flight/ring-copy.h"
#include "util/event.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Each CPU's capture buffer, and each array of its index, begins
 * COLOUR_BYTES further into its mapping:
 * copies are laid out alike (the newest record first, in buffers of one
 * size on huge pages), so with records of one size the k-th of every copy
 * would sit in one cache set, and a merge that reads them in turn misses
 * on every one once the rings outnumber the set's ways. */
#define COLOURS 512
#define COLOUR_BYTES 192	/* 3 lines: 512 colours land in distinct sets */

#define HUGE_PAGE (2ULL << 20)

static u64 colour_of(int cpu)
{
	return (u64)(cpu < 0 ? 0 : cpu % COLOURS) * COLOUR_BYTES;
}

/* The mapping for a buffer of size bytes at colour: the kernel puts an
 * anonymous mapping on a huge page boundary only when its length is a
 * multiple of one, and the colours count from that boundary (smaller
 * buffers have no huge pages to keep). */
static u64 mapping_bytes(u64 size, u64 colour)
{
	u64 len = size + colour;

	return size >= HUGE_PAGE ? (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1) : len;
}

u64 ring_copy__twins_bytes(u64 data_bytes)
{
	/* the index's two arrays are coloured alike; the largest colour
	 * bounds every ring's */
	return record_index__bytes(record_index__entries(data_bytes), (COLOURS - 1) * COLOUR_BYTES);
}

u64 ring_copy__bytes(u64 data_bytes)
{
	return mapping_bytes(data_bytes, (COLOURS - 1) * COLOUR_BYTES) +
	       ring_copy__twins_bytes(data_bytes);
}

/* The ring's pages are mapped on first access: take those faults now too. */
static void prefault_ring(const struct mmap *m)
{
	volatile const char *p = m->data;
	size_t page = sysconf(_SC_PAGESIZE);

	for (u64 off = 0; off <= m->mask; off += page)
		(void)p[off];
}

int ring_copy__init(struct ring_copy *rc, struct mmap *m)
{
	u64 size = m->mask + 1;

	memset(rc, 0, sizeof(*rc));
	if (size > UINT32_MAX)
		return -E2BIG;
	rc->m = m;
	rc->cpu = m->cpu;
	rc->size = size;
	rc->last_head = mmap__read_head(m);
	prefault_ring(m);
	rc->colour = colour_of(m->cpu);
	rc->buf = mmap_faulted(mapping_bytes(size, rc->colour));
	if (!rc->buf)
		return -errno;
	rc->buf += rc->colour;
	rc->mask = UINT64_MAX;
	return record_index__init(&rc->idx, record_index__entries(size), rc->colour);
}

int ring_copy__init_twins(struct ring_copy *rc, struct mmap *m, struct mmap *twin)
{
	u64 size = m->mask + 1;

	memset(rc, 0, sizeof(*rc));
	if (size > UINT32_MAX || twin->mask != m->mask)
		return -E2BIG;
	rc->m = m;
	rc->twin = twin;
	rc->cpu = m->cpu;
	rc->size = size;
	rc->mask = m->mask;
	rc->last_head = mmap__read_head(m);
	rc->twin_last_head = mmap__read_head(twin);
	prefault_ring(m);
	prefault_ring(twin);
	rc->colour = colour_of(m->cpu);
	return record_index__init(&rc->idx, record_index__entries(size), rc->colour);
}

void ring_copy__exit(struct ring_copy *rc)
{
	if (rc->buf && !rc->twin)
		munmap(rc->buf - rc->colour, mapping_bytes(rc->size, rc->colour));
	record_index__exit(&rc->idx);
	memset(rc, 0, sizeof(*rc));
}

void ring_copy__capture(struct ring_copy *rc, u64 margin)
{
	struct mmap *m = rc->m;
	u64 clock = now_ns(), head, head2, fresh, limit, written, safe;

	head = mmap__read_head(m);
	fresh = rc->last_head - head;		/* the head only moves down */
	limit = MIN(fresh, rc->size);
	mmap__copy_bulk(m, head, rc->buf, limit);
	/* the copy's loads must complete before the head is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head2 = __atomic_load_n(&m->pc->data_head, __ATOMIC_RELAXED);
	written = head - head2;
	/* what the kernel wrote below head during the copy landed at the old
	 * end of our span; a record still being written may reach margin bytes
	 * further */
	safe = written + margin >= rc->size ? 0 : rc->size - written - margin;
	rc->new_bytes = fresh;
	rc->wrapped = fresh > safe;
	rc->start = 0;
	rc->len = MIN(limit, safe);
	rc->idx.nr = 0;
	rc->head = head;
	rc->clock = clock;
	rc->last_head = head;
}

u64 ring_copy__fresh(const struct ring_copy *rc)
{
	return rc->last_head - mmap__read_head(rc->m);
}

/* The oldest time at or after since among the records ring m's kernel
 * wrote between its head and last, the head at its previous capture;
 * UINT64_MAX when there is none, or when m wrapped before or during the
 * walk. m runs on: what lies in [head, last) stays as it is until the
 * ring wraps. */
static u64 ring__oldest_since(const struct mmap *m, u64 last, u64 since, u64 id_sample_type)
{
	u64 head = mmap__read_head(m), oldest = UINT64_MAX;
	u64 held = last - head;
	_Alignas(8) char bounce[4096];

	if (held > m->mask + 1)
		return UINT64_MAX;
	for (u64 off = 0; off + sizeof(struct perf_event_header) <= held; ) {
		const struct perf_event_header *h = mmap__header(m, head + off);
		u64 at = (head + off) & m->mask, t, size = h->size;

		if (!event__size_ok(h->size, held - off))
			break;
		if (at + size > m->mask + 1) {
			/* across the end: a sample's time is near its start, the
			 * others' at their end; a time not read is none (the cut
			 * comes later, never earlier) */
			if (size > sizeof(bounce) && h->type != PERF_RECORD_SAMPLE) {
				off += size;
				continue;
			}
			mmap__copy(m, head + off, bounce, MIN(size, sizeof(bounce)));
			h = (const void *)bounce;
		}
		t = event__time(h, id_sample_type);
		if (t >= since && t < oldest)
			oldest = t;
		off += size;
	}
	/* the kernel overwrote what we read: nothing read can be trusted */
	if (last - mmap__read_head(m) > m->mask + 1)
		return UINT64_MAX;
	return oldest;
}

void ring_copy__freeze(struct ring_copy *rc, int set, u64 margin, u64 id_sample_type)
{
	struct mmap *m = set ? rc->twin : rc->m, *live = set ? rc->m : rc->twin;
	u64 *last = set ? &rc->twin_last_head : &rc->last_head;
	u64 head = mmap__read_head(m), fresh = *last - head;
	u64 safe = fresh <= rc->size - MIN(margin, rc->size) ? fresh : rc->size - MIN(margin, rc->size);
	u64 live_first;

	rc->buf = m->data;
	rc->clock = now_ns();
	rc->head = head;
	rc->new_bytes = fresh;
	rc->wrapped = fresh > safe;
	rc->start = head & rc->mask;
	rc->len = rc->start + safe;
	rc->idx.nr = 0;
	*last = head;
	/* a hit under way when the twin's enable interrupted it reached
	 * this ring alone, and may be stamped after the cut: what is older
	 * than the twin ring's first record since the cut stays here (a
	 * hit in both stamped alike goes by the floor) */
	rc->cut_ns = 0;
	if (m->switched_ns) {
		live_first = ring__oldest_since(live, set ? rc->last_head : rc->twin_last_head,
						m->switched_ns, id_sample_type);
		if (live_first != UINT64_MAX)
			rc->cut_ns = live_first;
	}
}

u64 ring_copy__fresh_in(const struct ring_copy *rc, int set)
{
	return set ? rc->twin_last_head - mmap__read_head(rc->twin) : ring_copy__fresh(rc);
}

/* The bytes at the copy's newest end holding records newer than end, their
 * number in *n; *older tells whether a whole record at or before end
 * follows (and not the cut end of a wrapped ring). */
static u64 ring_copy__newer_bytes(const struct ring_copy *rc, u64 end, u64 id_sample_type,
				  u64 *n, int *older)
{
	u64 off = rc->start;

	*n = 0;
	*older = 0;
	/* the newest records come first in the copy */
	while (off + sizeof(struct perf_event_header) <= rc->len) {
		const struct perf_event_header *h = (const void *)(rc->buf + off);

		if (!event__size_ok(h->size, rc->len - off))
			break;
		if (event__time(h, id_sample_type) <= end) {
			*older = 1;
			break;
		}
		off += h->size;
		(*n)++;
	}
	return off - rc->start;
}

u64 ring_copy__defer_after(struct ring_copy *rc, u64 end, u64 id_sample_type)
{
	u64 n;
	int older;
	u64 bytes = ring_copy__newer_bytes(rc, end, id_sample_type, &n, &older);

	rc->start += bytes;
	rc->last_head = rc->head + rc->start;
	rc->new_bytes -= MIN(bytes, rc->new_bytes);
	return n;
}

u64 ring_copy__defer_newest(struct ring_copy *rcs, int n, u64 slack, u64 id_sample_type)
{
	u64 end = UINT64_MAX, deferred = 0, newer;
	int keeps_some = 0;

	for (int i = 0; i < n; i++)
		end = MIN(end, rcs[i].clock);
	end = end > slack ? end - slack : 0;
	for (int i = 0; i < n && !keeps_some; i++)
		ring_copy__newer_bytes(&rcs[i], end, id_sample_type, &newer, &keeps_some);
	if (!keeps_some)
		return 0;
	for (int i = 0; i < n; i++)
		deferred += ring_copy__defer_after(&rcs[i], end, id_sample_type);
	return deferred;
}

/* Takes record n out of the index's counts (not out of its arrays). */
static void ring_copy__uncount(struct ring_copy *rc, u64 n)
{
	struct record_index *ix = &rc->idx;
	const struct perf_event_header *h = ring_copy__record(rc, n);
	u64 lost;

	ix->samples -= h->type == PERF_RECORD_SAMPLE && ix->samples;
	if (event__lost(h, &lost) && ix->lost_records) {
		ix->lost_records--;
		ix->lost -= MIN(lost, ix->lost);
	}
}

/* Twins: drops the oldest records, those at or before the floor (see
 * ring_copy__index()) or from before the ring's events were enabled
 * (records its events finished after the ring was last read: their
 * events are closed since), and the newest samples, those after cut_ns
 * (also in the twin's ring, left to the next dump: see
 * ring_copy__freeze()); raises the floor to the newest kept up to the
 * cut. */
static void ring_copy__cut_twin(struct ring_copy *rc, u64 enabled_ns, u64 cut_ns)
{
	struct record_index *ix = &rc->idx;
	u64 n = 0, tail = ix->nr, kept;

	/* the samples after the cut; the other records (LOST, THROTTLE)
	 * are this ring's alone */
	rc->cut = 0;
	while (cut_ns && tail && ix->times[tail - 1] > cut_ns)
		tail--;
	kept = tail;
	for (u64 i = tail; i < ix->nr; i++) {
		if (ring_copy__record(rc, i)->type == PERF_RECORD_SAMPLE) {
			ring_copy__uncount(rc, i);
			rc->cut++;
			continue;
		}
		ix->offs[kept] = ix->offs[i];
		ix->times[kept++] = ix->times[i];
	}
	ix->nr = kept;
	while (n < ix->nr && (ix->times[n] <= rc->floor || ix->times[n] < enabled_ns))
		ring_copy__uncount(rc, n++);
	/* the newest kept up to the cut: a record kept past it is of this
	 * ring alone, and must not take the twin's copies of the hits cut */
	if (tail > n)
		rc->floor = MAX(rc->floor, ix->times[tail - 1]);
	ix->offs += n;
	ix->times += n;
	ix->nr -= n;
	rc->overlap = n;
}

int ring_copy__index(struct ring_copy *rc, u64 id_sample_type)
{
	struct mmap *read = rc->twin && rc->buf == rc->twin->data ? rc->twin : rc->m;
	int err;

	if (rc->twin)
		mmap__mirror(read);
	err = record_index__build(&rc->idx, rc->buf, rc->start, rc->len, rc->mask, id_sample_type,
				  INDEX_NEWEST_FIRST | INDEX_TASKS);
	if (!err && rc->twin)
		ring_copy__cut_twin(rc, read->enabled_ns, rc->cut_ns);
	return err;
}

u64 ring_copy__window_start(const struct ring_copy *rcs, int n)
{
	u64 start = 0;

	for (int i = 0; i < n; i++) {
		if (!rcs[i].wrapped || !rcs[i].idx.nr)
			continue;
		start = MAX(start, rcs[i].idx.times[0]);
	}
	return start;
}
