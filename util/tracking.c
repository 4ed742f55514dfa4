#include "util/tracking.h"
#include "util/event.h"
#include "util/held-files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tracking__init(struct tracking *t, u64 cap, u64 id_sample_type)
{
	memset(t, 0, sizeof(*t));
	t->cap = cap;
	t->id_sample_type = id_sample_type;
}

void tracking__exit(struct tracking *t)
{
	buf__release(&t->log);
	held_files__delete(t->held);
	t->held = NULL;
}

int tracking__wants(u32 type)
{
	switch (type) {
	case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2: case PERF_RECORD_COMM:
	case PERF_RECORD_FORK: case PERF_RECORD_EXIT: case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT: case PERF_RECORD_CGROUP: case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_TEXT_POKE:
		return 1;
	}
	return 0;
}

int tracking__add(struct tracking *t, const struct perf_event_header *h)
{
	buf__add(&t->log, h, h->size);
	if (t->log.err)
		return t->log.err;
	t->nr_records++;
	if (t->held)
		held_files__see(t->held, h);
	return 0;
}

/* pid and tid of a task record: every type here starts with u32 pid, and
 * FORK/EXIT carry the tid third, COMM/MMAP/MMAP2 second. */
static void task_ids(const struct perf_event_header *h, u32 *pid, u32 *tid)
{
	const u32 *p = (const u32 *)(h + 1);

	*pid = p[0];
	*tid = (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) ? p[2] : p[1];
}

static int is_task_record(u32 type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2 || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT;
}

/* tid -> offset + 1 of one of its records (its last EXIT before a prune
 * time, its last COMM), in a small hash; 0 is an empty slot. */
struct tid_map {
	u32 *tids;
	u64 *offs;
	size_t cap;
};

static size_t tid_slot(const struct tid_map *d, u32 tid)
{
	size_t i = (tid * 2654435761u) & (d->cap - 1);

	while (d->offs[i] && d->tids[i] != tid)
		i = (i + 1) & (d->cap - 1);
	return i;
}

/* Keeps the records for which keep[i] (i: their order in the log) holds,
 * in order; the rest are counted as evicted. */
static void tracking__compact(struct tracking *t, const unsigned char *keep)
{
	size_t out = 0, i = 0;

	for (size_t off = 0; off < t->log.len; i++) {
		const struct perf_event_header *h = (const void *)(t->log.p + off);
		u16 size = h->size;	/* the move below may overwrite h */

		if (keep[i]) {
			memmove(t->log.p + out, h, size);
			out += size;
		} else {
			t->evicted_records++;
			t->nr_records--;
		}
		off += size;
	}
	t->log.len = out;
}

/* Over the cap, what goes first is what is least likely to be needed: a
 * task's older names (a later COMM of the same thread supersedes them),
 * then the oldest records, but never the kernel's maps (pid -1), without
 * which no kernel sample resolves. Evicting by age alone would drop the
 * kernel map and a live task's MMAP2s while keeping hundreds of its stale
 * names. */
static void tracking__evict(struct tracking *t)
{
	struct tid_map last = { 0 };
	size_t ncomm = 0, n = 0, i = 0, bytes = t->log.len;
	unsigned char *keep;

	tracking__for_each(t, h) {
		n++;
		ncomm += h->type == PERF_RECORD_COMM;
	}
	keep = malloc(n ? n : 1);
	if (!keep) {
		/* no memory to choose: the cap holds all the same */
		u64 cut = event__cut_oldest(&t->log, t->cap / 2);

		t->evicted_records += cut;
		t->nr_records -= cut;
		return;
	}
	memset(keep, 1, n);
	for (last.cap = 64; last.cap < ncomm * 2; last.cap *= 2)
		;
	last.tids = calloc(last.cap, sizeof(*last.tids));
	last.offs = calloc(last.cap, sizeof(*last.offs));
	if (last.tids && last.offs) {
		tracking__for_each(t, h) {
			u32 pid, tid;
			size_t slot;

			if (h->type != PERF_RECORD_COMM)
				continue;
			task_ids(h, &pid, &tid);
			slot = tid_slot(&last, tid);
			last.tids[slot] = tid;
			last.offs[slot] = (const char *)h - t->log.p + 1;
		}
		tracking__for_each(t, h) {
			u32 pid, tid;

			if (h->type == PERF_RECORD_COMM) {
				task_ids(h, &pid, &tid);
				if (last.offs[tid_slot(&last, tid)] != (size_t)((const char *)h - t->log.p + 1)) {
					keep[i] = 0;
					bytes -= h->size;
				}
			}
			i++;
		}
	}
	/* still over: the oldest, the kernel's maps aside, down to half the cap */
	i = 0;
	tracking__for_each(t, h) {
		if (bytes <= t->cap / 2)
			break;
		if (keep[i] && !(is_task_record(h->type) && *(const u32 *)(h + 1) == (u32)-1)) {
			keep[i] = 0;
			bytes -= h->size;
		}
		i++;
	}
	tracking__compact(t, keep);
	free(keep);
	free(last.tids);
	free(last.offs);
}

int tracking__prune(struct tracking *t, u64 before)
{
	struct tid_map d = { 0 };
	size_t nexits = 0, out = 0;
	int err = 0;

	tracking__for_each(t, h)
		nexits += h->type == PERF_RECORD_EXIT;
	if (nexits) {
		for (d.cap = 64; d.cap < nexits * 2; d.cap *= 2)
			;
		d.tids = calloc(d.cap, sizeof(*d.tids));
		d.offs = calloc(d.cap, sizeof(*d.offs));
		if (!d.tids || !d.offs)
			err = -ENOMEM;
	}
	if (d.tids && d.offs) {
		tracking__for_each(t, h) {
			u32 pid, tid;
			size_t s;

			if (h->type != PERF_RECORD_EXIT || event__time(h, t->id_sample_type) >= before)
				continue;
			task_ids(h, &pid, &tid);
			s = tid_slot(&d, tid);
			d.tids[s] = tid;
			d.offs[s] = (const char *)h - t->log.p + 1;
		}
		/* keep a record unless its thread (or, for maps, its process)
		 * exited later in the log than the record itself */
		for (size_t off = 0; off < t->log.len;) {
			const struct perf_event_header *h = (const void *)(t->log.p + off);
			u16 size = h->size;	/* the move below may overwrite h */
			size_t s;
			u32 pid, tid, key;
			int drop = 0;

			if (is_task_record(h->type)) {
				task_ids(h, &pid, &tid);
				key = (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) ? pid : tid;
				s = tid_slot(&d, key);
				drop = d.offs[s] && off < d.offs[s];
			}
			if (drop) {
				t->pruned_records++;
				t->nr_records--;
			} else {
				memmove(t->log.p + out, h, size);
				out += size;
			}
			off += size;
		}
		t->log.len = out;
	}
	free(d.tids);
	free(d.offs);
	if (t->cap && t->log.len > t->cap)
		tracking__evict(t);
	if (t->held)
		held_files__prune(t->held, &t->log);
	return err;
}
