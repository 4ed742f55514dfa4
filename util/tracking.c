#include "util/tracking.h"
#include "util/event.h"

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
	return 0;
}

u64 tracking__time(const struct tracking *t, const struct perf_event_header *h)
{
	struct sample_id sid;

	return event__parse_id(h, t->id_sample_type, &sid) ? 0 : sid.time;
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

/* tid -> offset of its last EXIT before the prune time, in a small hash. */
struct dead_set {
	u32 *tids;
	u64 *offs;
	size_t cap;
};

static size_t dead_slot(const struct dead_set *d, u32 tid)
{
	size_t i = (tid * 2654435761u) & (d->cap - 1);

	while (d->offs[i] && d->tids[i] != tid)
		i = (i + 1) & (d->cap - 1);
	return i;
}

int tracking__prune(struct tracking *t, u64 before)
{
	struct dead_set d = { 0 };
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

			if (h->type != PERF_RECORD_EXIT || tracking__time(t, h) >= before)
				continue;
			task_ids(h, &pid, &tid);
			s = dead_slot(&d, tid);
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
				s = dead_slot(&d, key);
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
	/* over the cap: the oldest go first, and are counted as evicted */
	if (t->cap && t->log.len > t->cap) {
		u64 n = event__cut_oldest(&t->log, t->cap / 2);

		t->evicted_records += n;
		t->nr_records -= n;
	}
	return err;
}
