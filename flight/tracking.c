/* The tracking log: the raw COMM, MMAP2, FORK, EXIT... records kept for
 * dumps, pruned of exited tasks and bounded by its cap. */
#include "flight/tracking.h"
#include "util/event.h"
#include "buildid/held-files.h"

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
	/* a KSYMBOL or BPF_EVENT the kernel over-sized is kept trimmed
	 * (util/event.h): dumps write the log as it is */
	u16 size = event__real_size(h, t->id_sample_type);

	buf__add(&t->log, h, size);
	if (t->log.err)
		return t->log.err;
	((struct perf_event_header *)(t->log.p + t->log.len - size))->size = size;
	t->nr_records++;
	if (t->held)
		held_files__see(t->held, h);
	return 0;
}

int tracking__rename_due(const struct tracking *t, u64 now_ns, u64 min_gap_ns)
{
	return (t->lost > t->lost_named || t->full > t->full_named) &&
	       (!t->renamings || now_ns - t->rename_ns >= min_gap_ns);
}

/* A task's fork as the log has it, sorted by tid, then time. */
struct fork_time {
	u32 tid;
	u64 time;
};

static int fork_time__cmp(const void *a, const void *b)
{
	const struct fork_time *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Every FORK of the log, sorted; NULL with *nr 0 when there is none or
 * no memory (the names then keep time 0). The caller frees it. */
static struct fork_time *tracking__forks(const struct tracking *t, size_t *nr)
{
	struct fork_time *f = NULL, *grown;
	size_t cap = 0;

	*nr = 0;
	for (size_t off = 0; off < t->log.len;) {
		const struct perf_event_header *h = (const void *)(t->log.p + off);

		off += h->size;
		if (h->type != PERF_RECORD_FORK)
			continue;
		if (*nr == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(f, cap * sizeof(*f));
			if (!grown) {
				free(f);
				*nr = 0;
				return NULL;
			}
			f = grown;
		}
		f[*nr].tid = ((const u32 *)(h + 1))[2];
		f[(*nr)++].time = event__time(h, t->id_sample_type);
	}
	if (*nr)
		qsort(f, *nr, sizeof(*f), fork_time__cmp);
	return f;
}

/* The time of tid's last fork in f, or 0 if it has none. */
static u64 forks__last(const struct fork_time *f, size_t nr, u32 tid)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {	/* the first entry past tid */
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].tid <= tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && f[lo - 1].tid == tid ? f[lo - 1].time : 0;
}

/* Adds one COMM from /proc. A task whose FORK outlived the loss but
 * whose COMM did not is named after its parent from its fork on: its
 * name from /proc is stamped just after that fork (before any of its
 * samples, which all follow it), else at time 0. */
static int tracking__add_name(struct tracking *t, const struct perf_event_header *h,
			      const struct fork_time *forks, size_t nr_forks)
{
	union {
		struct perf_event_header h;
		char b[256];
	} rec;
	u64 forked = forks__last(forks, nr_forks, ((const u32 *)(h + 1))[1]);

	if (!forked || h->size > sizeof(rec))
		return tracking__add(t, h);
	memcpy(rec.b, h, h->size);
	if (event__set_time(&rec.h, t->id_sample_type, forked + 1))
		return tracking__add(t, h);
	return tracking__add(t, &rec.h);
}

int tracking__rename(struct tracking *t, const struct buf *names, u64 now_ns)
{
	size_t nr_forks;
	struct fork_time *forks = tracking__forks(t, &nr_forks);
	int err = 0;

	t->lost_named = t->lost;
	t->full_named = t->full;
	t->renamings++;
	t->rename_ns = now_ns;
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= names->len;) {
		const struct perf_event_header *h = (const void *)(names->p + off);

		if (h->size < sizeof(*h) + 8 || off + h->size > names->len)
			break;
		err = tracking__add_name(t, h, forks, nr_forks);
		if (err)
			break;
		t->renamed++;
		off += h->size;
	}
	free(forks);
	return err;
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
 * in order; the rest are counted in *dropped. */
static void tracking__compact(struct tracking *t, const unsigned char *keep, u64 *dropped)
{
	size_t out = 0, i = 0;

	for (size_t off = 0; off < t->log.len; i++) {
		const struct perf_event_header *h = (const void *)(t->log.p + off);
		u16 size = h->size;	/* the move below may overwrite h */

		if (keep[i]) {
			memmove(t->log.p + out, h, size);
			out += size;
		} else {
			(*dropped)++;
			t->nr_records--;
		}
		off += size;
	}
	t->log.len = out;
}

/* Records that name kernel code: the kernel's maps (pid -1), and the
 * KSYMBOL and BPF_EVENT records of kernel symbols such as BPF programs
 * (pruned once unloaded, so what is left of them names live code). */
static int names_kernel_code(const struct perf_event_header *h)
{
	return h->type == PERF_RECORD_KSYMBOL || h->type == PERF_RECORD_BPF_EVENT ||
	       (is_task_record(h->type) && *(const u32 *)(h + 1) == (u32)-1);
}

/* Over the cap, what goes first is what is least likely to be needed: a
 * task's older names (a later COMM of the same thread supersedes them),
 * then the oldest records, but never those naming kernel code, without
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
	/* still over: the oldest, kernel code's names aside, down to half the cap */
	i = 0;
	tracking__for_each(t, h) {
		if (bytes <= t->cap / 2)
			break;
		if (keep[i] && !names_kernel_code(h)) {
			keep[i] = 0;
			bytes -= h->size;
		}
		i++;
	}
	tracking__compact(t, keep, &t->evicted_records);
	free(keep);
	free(last.tids);
	free(last.offs);
}

/* A kernel symbol's records: KSYMBOL by address, BPF_EVENT by program id. */
struct ksym_key {
	u64 key;
	u32 type;
	u64 time;	/* of an end (unregister, unload) before the prune time */
};

/* h's key, and in *ends whether h ends its symbol; 0 if h is neither. */
static int ksym_key(const struct perf_event_header *h, struct ksym_key *k, int *ends)
{
	const char *p = (const char *)(h + 1);
	u16 v;

	k->type = h->type;
	if (h->type == PERF_RECORD_KSYMBOL && h->size >= sizeof(*h) + 16) {
		memcpy(&k->key, p, sizeof(k->key));
		memcpy(&v, p + 14, sizeof(v));	/* flags */
		*ends = v & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
		return 1;
	}
	if (h->type == PERF_RECORD_BPF_EVENT && h->size >= sizeof(*h) + 8) {
		u32 id;

		memcpy(&v, p, sizeof(v));
		memcpy(&id, p + 4, sizeof(id));
		k->key = id;
		*ends = v == PERF_BPF_EVENT_PROG_UNLOAD;
		return 1;
	}
	return 0;
}

static int ksym_key__cmp(const void *a, const void *b)
{
	const struct ksym_key *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The last end of k's symbol in ends (sorted), or NULL. */
static const struct ksym_key *ksym_last_end(const struct ksym_key *ends, size_t n,
					    struct ksym_key k)
{
	size_t lo = 0, hi = n;

	k.time = UINT64_MAX;
	while (lo < hi) {	/* the first one after every end of k's symbol */
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_key__cmp(&ends[mid], &k) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ends[lo - 1].type != k.type || ends[lo - 1].key != k.key)
		return NULL;
	return &ends[lo - 1];
}

/* Drops the KSYMBOL and BPF_EVENT records of kernel symbols (BPF
 * programs) unregistered before `before`, as exited tasks are dropped: no
 * later sample can land in them. An address reused by a later program
 * keeps that one's records: what is dropped is what is older than the
 * symbol's last end, by time, as the log is in the order the rings were
 * drained, and a program loaded on one CPU can come before the unload,
 * on another, of the one it replaced. 0 or -ENOMEM. */
static int tracking__prune_ksyms(struct tracking *t, u64 before)
{
	struct ksym_key *ends = NULL, k;
	size_t n = 0, cap = 0, i = 0, nrec = 0;
	unsigned char *keep;
	int end;

	tracking__for_each(t, h) {
		nrec++;
		if (!ksym_key(h, &k, &end) || !end || event__time(h, t->id_sample_type) >= before)
			continue;
		if (n == cap) {
			struct ksym_key *grown = realloc(ends, (cap = cap ? cap * 2 : 16) * sizeof(*ends));

			if (!grown) {
				free(ends);
				return -ENOMEM;
			}
			ends = grown;
		}
		k.time = event__time(h, t->id_sample_type);
		ends[n++] = k;
	}
	if (!n)
		return 0;
	keep = malloc(nrec);
	if (!keep) {
		free(ends);
		return -ENOMEM;
	}
	/* sorted by key, then time: the last end of a key is the last of its run */
	qsort(ends, n, sizeof(*ends), ksym_key__cmp);
	tracking__for_each(t, h) {
		const struct ksym_key *e = ksym_key(h, &k, &end) ? ksym_last_end(ends, n, k) : NULL;
		u64 time = e ? event__time(h, t->id_sample_type) : 0;

		/* a KSYMBOL registered at the very time of the end is the next
		 * program's at that address (a BPF_EVENT's key is its own id) */
		keep[i++] = !e || time > e->time ||
			    (time == e->time && !end && h->type == PERF_RECORD_KSYMBOL);
	}
	tracking__compact(t, keep, &t->pruned_records);
	free(keep);
	free(ends);
	return 0;
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
	if (tracking__prune_ksyms(t, before))
		err = -ENOMEM;
	if (t->cap && t->log.len > t->cap)
		tracking__evict(t);
	if (t->held)
		held_files__prune(t->held, &t->log);
	return err;
}
