#include "util/snapshot.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int ring_copy__fill(struct ring_copy *rc, const struct mmap *m, u64 head, u64 limit)
{
	memset(rc, 0, sizeof(*rc));
	rc->cpu = m->cpu;
	rc->buf = malloc(limit ? limit : 1);
	if (!rc->buf)
		return -ENOMEM;
	mmap__copy(m, head, rc->buf, limit);
	rc->len = limit;
	return 0;
}

int ring_copy__from_image(struct ring_copy *rc, const struct mmap *m, u64 head, u64 prev)
{
	u64 size = m->mask + 1, fresh = prev - head;
	int err = ring_copy__fill(rc, m, head, MIN(fresh, size));

	if (!err) {
		rc->new_bytes = fresh;
		rc->wrapped = fresh > size;
	}
	return err;
}

int ring_copy__capture(struct ring_copy *rc, struct mmap *m, u64 margin)
{
	u64 size = m->mask + 1, head, head2, fresh, limit, written, safe;
	int err;

	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	head = mmap__read_head(m);
	fresh = m->prev - head;			/* the head only moves down */
	limit = MIN(fresh, size);
	err = ring_copy__fill(rc, m, head, limit);
	if (err)
		return err;
	/* the copy's loads must complete before the head is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head2 = __atomic_load_n(&m->pc->data_head, __ATOMIC_RELAXED);
	written = head - head2;
	/* what the kernel wrote below head during the copy landed at the old
	 * end of our span; a record still being written may reach margin bytes
	 * further */
	safe = written + margin >= size ? 0 : size - written - margin;
	rc->new_bytes = fresh;
	rc->wrapped = fresh > safe;
	if (rc->len > safe)
		rc->len = safe;
	rc->m = m;
	rc->head = head;
	rc->clock = (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	m->prev = head;
	return 0;
}

u64 ring_copy__defer_after(struct ring_copy *rc, u64 end,
			   u64 (*time_of)(const struct perf_event_header *h, void *arg), void *arg)
{
	u64 bytes = 0, n = 0;

	while (rc->nr) {
		const struct perf_event_header *h = (const void *)(rc->buf + rc->offs[rc->nr - 1]);

		if (time_of(h, arg) <= end)
			break;
		bytes += h->size;
		rc->nr--;
		n++;
	}
	if (rc->m)
		rc->m->prev = rc->head + bytes;	/* newest records sit right at head */
	rc->new_bytes -= MIN(bytes, rc->new_bytes);
	return n;
}

int ring_copy__index(struct ring_copy *rc)
{
	u64 off = 0, n = 0, cap = 0;
	u64 *offs = NULL;

	while (off + sizeof(struct perf_event_header) <= rc->len) {
		struct perf_event_header h;

		memcpy(&h, rc->buf + off, sizeof(h));
		if (!event__size_ok(h.size, rc->len - off))
			break;
		if (n == cap) {
			u64 *o = realloc(offs, (cap = cap ? cap * 2 : 1024) * sizeof(*o));

			if (!o) {
				free(offs);
				return -ENOMEM;
			}
			offs = o;
		}
		offs[n++] = off;
		off += h.size;
	}
	/* newest first in the ring: turn them around */
	for (u64 i = 0; i < n / 2; i++) {
		u64 tmp = offs[i];

		offs[i] = offs[n - 1 - i];
		offs[n - 1 - i] = tmp;
	}
	free(rc->offs);
	rc->offs = offs;
	rc->nr = n;
	return 0;
}

void ring_copy__release(struct ring_copy *rc)
{
	free(rc->buf);
	free(rc->offs);
	memset(rc, 0, sizeof(*rc));
}

u64 snapshot__sample_time(const struct perf_event_header *h)
{
	u64 t;

	if (h->size < SAMPLE_TIME_OFFSET + sizeof(t))
		return 0;
	memcpy(&t, (const char *)h + SAMPLE_TIME_OFFSET, sizeof(t));
	return t;
}

static int cmp_merge(const void *a, const void *b)
{
	const struct merge_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void snapshot__sort(struct merge_ref *refs, u64 nr)
{
	qsort(refs, nr, sizeof(*refs), cmp_merge);
}

u64 snapshot__window_start(struct ring_copy *rcs, int n,
			   u64 (*time_of)(const struct perf_event_header *h, void *arg), void *arg)
{
	u64 start = 0;

	for (int i = 0; i < n; i++) {
		if (!rcs[i].wrapped || !rcs[i].nr)
			continue;
		u64 t = time_of((const void *)(rcs[i].buf + rcs[i].offs[0]), arg);

		if (t > start)
			start = t;
	}
	return start;
}
