/* Indexes a buffer of records: each complete record's offset and time,
 * and the samples' tasks and losses, in one walk. */
#include "flight/record-index.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define INDEX_BYTES_PER_RECORD 48

u64 record_index__entries(u64 data_bytes)
{
	return data_bytes / INDEX_BYTES_PER_RECORD + 1;
}


#define HUGE_PAGE (2ULL << 20)

/* An array's mapping, from the array: colour bytes before it. */
static void *map_of(const void *array, u64 colour)
{
	return (char *)array - colour;
}

/* The length of the mapping of an array of entries elements of elem bytes:
 * a whole number of huge pages once it reaches one, so that the kernel
 * puts it on a huge page boundary and the colours count from there. */
static u64 map_bytes(u64 colour, u64 entries, size_t elem)
{
	u64 len = colour + entries * elem;

	return len >= HUGE_PAGE ? (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1) : len;
}

u64 record_index__bytes(u64 entries, u64 colour)
{
	colour &= ~7ULL;
	return map_bytes(colour, entries, sizeof(u32)) + map_bytes(colour, entries, sizeof(u64));
}

int record_index__init(struct record_index *ix, u64 entries, u64 colour)
{
	char *p;

	memset(ix, 0, sizeof(*ix));
	ix->colour = colour & ~7ULL;
	p = mmap_faulted(map_bytes(ix->colour, entries, sizeof(u32)));
	if (!p)
		return -ENOMEM;
	ix->offs = ix->offs_map = (u32 *)(p + ix->colour);
	ix->cap = entries;
	p = mmap_faulted(map_bytes(ix->colour, entries, sizeof(u64)));
	if (!p)
		return -ENOMEM;
	ix->times = ix->times_map = (u64 *)(p + ix->colour);
	return 0;
}

void record_index__exit(struct record_index *ix)
{
	if (ix->offs_map)
		munmap(map_of(ix->offs_map, ix->colour), map_bytes(ix->colour, ix->cap, sizeof(u32)));
	if (ix->times_map)
		munmap(map_of(ix->times_map, ix->colour), map_bytes(ix->colour, ix->cap, sizeof(u64)));
	free(ix->pids);
	memset(ix, 0, sizeof(*ix));
}

/* Room for twice the entries, kept for later uses. A full index filled
 * from the top moves up into the top half, where its fill goes on down. */
static int record_index__grow(struct record_index *ix, int from_top)
{
	u64 cap = ix->cap * 2, c = ix->colour;
	char *p = mremap(map_of(ix->offs_map, c), map_bytes(c, ix->cap, sizeof(u32)),
			 map_bytes(c, cap, sizeof(u32)), MREMAP_MAYMOVE);
	char *t;

	if (p == MAP_FAILED)
		return -ENOMEM;
	ix->offs_map = (u32 *)(p + c);
	t = mremap(map_of(ix->times_map, c), map_bytes(c, ix->cap, sizeof(u64)),
		   map_bytes(c, cap, sizeof(u64)), MREMAP_MAYMOVE);
	if (t == MAP_FAILED) {
		/* shrinking in place cannot fail: both keep the old size, or the
		 * exit would unmap offs short */
		(void)mremap(p, map_bytes(c, cap, sizeof(u32)), map_bytes(c, ix->cap, sizeof(u32)), 0);
		return -ENOMEM;
	}
	ix->times_map = (u64 *)(t + c);
	if (from_top) {
		memcpy(ix->offs_map + ix->cap, ix->offs_map, ix->cap * sizeof(u32));
		memcpy(ix->times_map + ix->cap, ix->times_map, ix->cap * sizeof(u64));
	}
	ix->cap = cap;
	return 0;
}

/* A sample of a task other than the previous sample's. 0 or -ENOMEM. */
static int record_index__add_pid(struct record_index *ix, const struct perf_event_header *h)
{
	u32 pid;

	if (h->size < SAMPLE_PID_OFFSET + sizeof(pid))
		return 0;
	memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, sizeof(pid));
	if (ix->nr_pids && ix->pids[ix->nr_pids - 1] == pid)
		return 0;
	if (ix->nr_pids == ix->pids_cap) {
		u64 cap = ix->pids_cap ? ix->pids_cap * 2 : 256;
		u32 *p = realloc(ix->pids, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ix->pids = p;
		ix->pids_cap = cap;
	}
	ix->pids[ix->nr_pids++] = pid;
	return 0;
}

int record_index__build(struct record_index *ix, const char *buf, u64 start, u64 len,
			u64 mask, u64 id_sample_type, int flags)
{
	const int from_top = flags & INDEX_NEWEST_FIRST;
	/* a sample's time is at a fixed offset: read in line, as this runs
	 * once per record of every ring at every dump */
	const size_t time_off = sample__time_offset(id_sample_type);
	const u32 min_timed = id_sample_type & PERF_SAMPLE_TIME ? time_off + sizeof(u64) : UINT32_MAX;
	u64 off = start, n = 0;

	ix->nr = ix->nr_pids = ix->samples = ix->lost_records = ix->lost = 0;
	while (off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(buf + (off & mask));
		u64 slot, t = 0, lost;

		if (!event__size_ok(h->size, len - off))
			break;
		if (n == ix->cap && record_index__grow(ix, from_top))
			return -ENOMEM;
		slot = from_top ? ix->cap - 1 - n : n;
		if (h->type != PERF_RECORD_SAMPLE)
			t = event__time(h, id_sample_type);
		else if (h->size >= min_timed)
			memcpy(&t, (const char *)h + time_off, sizeof(t));
		ix->times_map[slot] = t;
		ix->offs_map[slot] = off & mask;
		n++;
		off += h->size;
		if (!(flags & INDEX_TASKS))
			continue;
		if (h->type == PERF_RECORD_SAMPLE) {
			ix->samples++;
			if (record_index__add_pid(ix, h))
				return -ENOMEM;
		} else if (event__lost(h, &lost)) {
			ix->lost_records++;
			ix->lost += lost;
		}
	}
	ix->offs = ix->offs_map + (from_top ? ix->cap - n : 0);
	ix->times = ix->times_map + (from_top ? ix->cap - n : 0);
	ix->nr = n;
	return 0;
}
