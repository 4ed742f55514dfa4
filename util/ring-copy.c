#include "util/ring-copy.h"
#include "util/event.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The smallest record these rings hold (a sample or LOST with its id
 * trailer) is 56 bytes: an index for one record per 48 rarely grows. */
#define INDEX_BYTES_PER_RECORD 48

static u64 index_entries(u64 data_bytes)
{
	return data_bytes / INDEX_BYTES_PER_RECORD + 1;
}

u64 ring_copy__bytes(u64 data_bytes)
{
	return data_bytes + index_entries(data_bytes) * (sizeof(u32) + sizeof(u64));
}

/* Anonymous memory written once now, so that no dump pays a page fault
 * for it (MAP_POPULATE alone leaves write faults behind, and in a VM a
 * first touch costs several microseconds a page); huge pages where the
 * system allows them, for fewer faults and TLB misses. */
static void *alloc_faulted(u64 bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
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
	rc->buf = alloc_faulted(size);
	if (!rc->buf)
		return -errno;
	rc->offs_cap = index_entries(size);
	rc->offs = alloc_faulted(rc->offs_cap * sizeof(u32));
	if (!rc->offs)
		return -errno;
	rc->times = alloc_faulted(rc->offs_cap * sizeof(u64));
	return rc->times ? 0 : -errno;
}

void ring_copy__exit(struct ring_copy *rc)
{
	if (rc->buf)
		munmap(rc->buf, rc->size);
	if (rc->offs)
		munmap(rc->offs, rc->offs_cap * sizeof(u32));
	if (rc->times)
		munmap(rc->times, rc->offs_cap * sizeof(u64));
	free(rc->pids);
	memset(rc, 0, sizeof(*rc));
}

void ring_copy__capture(struct ring_copy *rc, u64 margin)
{
	struct mmap *m = rc->m;
	u64 clock = now_ns(), head, head2, fresh, limit, written, safe;

	head = mmap__read_head(m);
	fresh = rc->last_head - head;		/* the head only moves down */
	limit = MIN(fresh, rc->size);
	mmap__copy(m, head, rc->buf, limit);
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
	rc->nr = 0;
	rc->head = head;
	rc->clock = clock;
	rc->last_head = head;
}

u64 ring_copy__fresh(const struct ring_copy *rc)
{
	return rc->last_head - mmap__read_head(rc->m);
}

u64 ring_copy__defer_after(struct ring_copy *rc, u64 end, u64 id_sample_type)
{
	u64 off = rc->start, n = 0;

	/* the newest records come first in the copy */
	while (off + sizeof(struct perf_event_header) <= rc->len) {
		const struct perf_event_header *h = (const void *)(rc->buf + off);

		if (!event__size_ok(h->size, rc->len - off) || event__time(h, id_sample_type) <= end)
			break;
		off += h->size;
		n++;
	}
	rc->last_head = rc->head + off;
	rc->new_bytes -= MIN(off - rc->start, rc->new_bytes);
	rc->start = off;
	return n;
}

/* Room for twice the entries; the index keeps it for later dumps. */
static int ring_copy__grow_index(struct ring_copy *rc)
{
	u64 cap = rc->offs_cap * 2;
	void *p = mremap(rc->offs, rc->offs_cap * sizeof(u32), cap * sizeof(u32), MREMAP_MAYMOVE);
	void *t;

	if (p == MAP_FAILED)
		return -ENOMEM;
	rc->offs = p;
	t = mremap(rc->times, rc->offs_cap * sizeof(u64), cap * sizeof(u64), MREMAP_MAYMOVE);
	if (t == MAP_FAILED) {
		/* shrinking in place cannot fail: both keep the old size, or the
		 * exit would unmap offs short */
		(void)mremap(rc->offs, cap * sizeof(u32), rc->offs_cap * sizeof(u32), 0);
		return -ENOMEM;
	}
	rc->times = t;
	rc->offs_cap = cap;
	return 0;
}

/* A sample of a task other than the previous sample's. 0 or -ENOMEM. */
static int ring_copy__add_pid(struct ring_copy *rc, const struct perf_event_header *h)
{
	u32 pid;

	if (h->size < SAMPLE_PID_OFFSET + sizeof(pid))
		return 0;
	memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, sizeof(pid));
	if (rc->nr_pids && rc->pids[rc->nr_pids - 1] == pid)
		return 0;
	if (rc->nr_pids == rc->pids_cap) {
		u64 cap = rc->pids_cap ? rc->pids_cap * 2 : 256;
		u32 *p = realloc(rc->pids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rc->pids = p;
		rc->pids_cap = cap;
	}
	rc->pids[rc->nr_pids++] = pid;
	return 0;
}

int ring_copy__index(struct ring_copy *rc, u64 id_sample_type)
{
	u64 off = rc->start, n = 0;

	rc->nr_pids = rc->samples = rc->lost_records = rc->lost = 0;
	while (off + sizeof(struct perf_event_header) <= rc->len) {
		const struct perf_event_header *h = (const void *)(rc->buf + off);

		if (!event__size_ok(h->size, rc->len - off))
			break;
		if (n == rc->offs_cap && ring_copy__grow_index(rc))
			return -ENOMEM;
		rc->times[n] = event__time(h, id_sample_type);
		rc->offs[n++] = off;
		off += h->size;
		if (h->type == PERF_RECORD_SAMPLE) {
			rc->samples++;
			if (ring_copy__add_pid(rc, h))
				return -ENOMEM;
		} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
			u64 lost;

			memcpy(&lost, (const char *)h + sizeof(*h) + 8, sizeof(lost));
			rc->lost_records++;
			rc->lost += lost;
		}
	}
	/* newest first in the ring: turn them around */
	for (u64 i = 0; i < n / 2; i++) {
		u32 tmp = rc->offs[i];
		u64 t = rc->times[i];

		rc->offs[i] = rc->offs[n - 1 - i];
		rc->offs[n - 1 - i] = tmp;
		rc->times[i] = rc->times[n - 1 - i];
		rc->times[n - 1 - i] = t;
	}
	rc->nr = n;
	return 0;
}

u64 ring_copy__window_start(const struct ring_copy *rcs, int n)
{
	u64 start = 0;

	for (int i = 0; i < n; i++) {
		if (!rcs[i].wrapped || !rcs[i].nr)
			continue;
		start = MAX(start, rcs[i].times[0]);
	}
	return start;
}
