/* Selects a dump's prelude: the tracking records of the tasks its samples
 * refer to and of their ancestors, in time order. */
#include "flight/prelude.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void prelude__reset(struct prelude *p)
{
	if (p->nr_pids)
		memset(p->pids, 0, p->pids_cap * sizeof(*p->pids));
	p->nr_pids = 0;
	p->nr = p->records = p->bytes = p->log_records = p->pending_data = 0;
}

void prelude__exit(struct prelude *p)
{
	free(p->pids);
	free(p->refs);
	free(p->scratch);
	free(p->offs);
	free(p->times);
	memset(p, 0, sizeof(*p));
}

static u64 pid_slot(const u64 *pids, u64 cap, u32 pid)
{
	u64 i = (pid * 2654435761u) & (cap - 1);

	while (pids[i] && pids[i] != (u64)pid + 1)
		i = (i + 1) & (cap - 1);
	return i;
}

int prelude__has_pid(const struct prelude *p, u32 pid)
{
	return p->pids_cap && p->pids[pid_slot(p->pids, p->pids_cap, pid)];
}

static int prelude__grow_pids(struct prelude *p)
{
	u64 cap = p->pids_cap ? p->pids_cap * 2 : 1024;
	u64 *pids = calloc(cap, sizeof(*pids));

	if (!pids)
		return -ENOMEM;
	for (u64 i = 0; i < p->pids_cap; i++)
		if (p->pids[i])
			pids[pid_slot(pids, cap, (u32)(p->pids[i] - 1))] = p->pids[i];
	free(p->pids);
	p->pids = pids;
	p->pids_cap = cap;
	return 0;
}

int prelude__add_pid(struct prelude *p, u32 pid)
{
	u64 s;

	if ((p->nr_pids + 1) * 2 > p->pids_cap && prelude__grow_pids(p))
		return -ENOMEM;
	s = pid_slot(p->pids, p->pids_cap, pid);
	if (!p->pids[s]) {
		p->pids[s] = (u64)pid + 1;
		p->nr_pids++;
	}
	return 0;
}

/* Resizes *arr to cap elements of size each; on failure *arr stays as it
 * was (big enough for the old cap). 0 or -ENOMEM. */
static int grow(void *arr, size_t each, u64 cap)
{
	void **p = arr, *n = realloc(*p, cap * each);

	if (!n)
		return -ENOMEM;
	*p = n;
	return 0;
}

static int prelude__reserve(struct prelude *p, u64 n)
{
	u64 cap = p->cap;

	if (n <= cap)
		return 0;
	while (cap < n)
		cap = cap ? cap * 2 : 4096;
	if (grow(&p->refs, sizeof(*p->refs), cap) || grow(&p->scratch, sizeof(*p->scratch), cap) ||
	    grow(&p->offs, sizeof(*p->offs), cap) || grow(&p->times, sizeof(*p->times), cap))
		return -ENOMEM;
	p->cap = cap;
	return 0;
}

/* Records about one task; every one of them starts with its u32 pid. */
static int is_task_record(u32 type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2 || type == PERF_RECORD_FORK ||
	       type == PERF_RECORD_EXIT || type == PERF_RECORD_NAMESPACES;
}

static u32 record_pid(const struct perf_event_header *h, size_t at)
{
	u32 pid;

	memcpy(&pid, (const char *)h + at, sizeof(pid));
	return pid;
}

int prelude__select(struct prelude *p, const char *buf, u64 len, u64 log_len,
		    u64 id_sample_type)
{
	u64 n = 0, kept = 0;

	for (u64 off = 0; off < len; off += ((const struct perf_event_header *)(buf + off))->size)
		n++;
	if (prelude__reserve(p, n))
		return -ENOMEM;
	n = 0;
	for (u64 off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(buf + off);

		p->pending_data += off >= log_len &&
				   (h->type == PERF_RECORD_SAMPLE || h->type == PERF_RECORD_LOST);
		if (off >= log_len && h->type == PERF_RECORD_SAMPLE &&
		    h->size >= SAMPLE_PID_OFFSET + 4 &&
		    prelude__add_pid(p, record_pid(h, SAMPLE_PID_OFFSET)))
			return -ENOMEM;
		p->log_records += off < log_len;
		p->refs[n] = (struct timed_ref){ event__time(h, id_sample_type), off };
		n++;
		off += h->size;
	}
	merge__sort_refs(p->refs, p->scratch, n);
	/* a parent forks before its child does: walking back in time, every
	 * FORK of a wanted task makes its parent wanted before the parent's
	 * own FORK comes by */
	for (u64 i = n; i-- > 0;) {
		const struct perf_event_header *h = (const void *)(buf + p->refs[i].off);

		if (h->type == PERF_RECORD_FORK && p->refs[i].off < log_len &&
		    h->size >= sizeof(*h) + 8 && prelude__has_pid(p, record_pid(h, sizeof(*h))) &&
		    prelude__add_pid(p, record_pid(h, sizeof(*h) + 4)))
			return -ENOMEM;
	}
	for (u64 i = 0; i < n; i++) {
		const struct perf_event_header *h = (const void *)(buf + p->refs[i].off);
		int tracking = p->refs[i].off < log_len;

		if (tracking && is_task_record(h->type) && h->size >= sizeof(*h) + 4) {
			u32 pid = record_pid(h, sizeof(*h));

			if (pid != (u32)-1 && !prelude__has_pid(p, pid))
				continue;
		}
		p->times[kept] = p->refs[i].time;
		p->offs[kept++] = p->refs[i].off;
		p->records += tracking;
		p->bytes += tracking ? h->size : 0;
	}
	p->nr = kept;
	return 0;
}
