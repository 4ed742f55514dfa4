/* Which binaries a file's samples hit: a small address-space model fed
 * the file's own records, as the stock perf works it out after recording
 * by reading the file back, but without the second pass. */
#include "buildid/dso-hits.h"
#include "buildid/dso-hits-internal.h"
#include "buildid/build-id.h"
#include "util/evlist.h"
#include "util/evsel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_RECORD 65536

struct dso_map {
	u64 start, end;
	int dso;
};

struct dso_task {
	struct dso_map *m;
	int nr, cap;
	int last;	/* the map the last lookup found: samples come in runs */
};

/* A file is written a round at a time (a pass over every ring, then
 * FINISHED_ROUND), ring after ring: a sample may come before the MMAP2
 * of its binary, from another CPU's ring, that is older. Readers sort a
 * round by time; here such samples wait for the round's end. */
#define MAX_PENDING 65536

struct dso_pending {
	u64 ip;
	u32 pid;
};

struct dso_module {
	char name[64];
	u64 start, end;
	int dso;	/* -1 until hit */
};

static struct dso_layout layout_of(u64 st, int rewritten)
{
	static const u64 before_chain[] = { PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
					    PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					    PERF_SAMPLE_PERIOD };
	struct dso_layout l = { -1, -1, -1 };
	int off = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERF_SAMPLE_IP) {
		l.ip = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		l.tid = off;
		off += 8;
	}
	for (size_t i = 0; i < ARRAY_SIZE(before_chain); i++)
		off += st & before_chain[i] ? 8 : 0;
	/* READ's size varies: no fixed place after it */
	if (rewritten && (st & PERF_SAMPLE_CALLCHAIN) && !(st & PERF_SAMPLE_READ))
		l.chain = off;
	return l;
}

/* An event's samples as files hold them (the recorder's rewrite, if any). */
static struct dso_layout evsel_layout(const struct evsel *e)
{
	return layout_of(e->file_sample_type ? e->file_sample_type : e->attr.sample_type,
			 e->file_sample_type != 0);
}

struct dso_hits *dso_hits__new(const struct evlist *evlist, int all)
{
	struct dso_hits *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->all = all;
	s->kernel = s->vdso = -1;
	s->nr_mods = -1;
	s->layouts = calloc(evlist->nr_entries + 1, sizeof(*s->layouts));
	s->carry = malloc(MAX_RECORD);
	s->pending = malloc(MAX_PENDING * sizeof(*s->pending));
	if (!s->layouts || !s->carry || !s->pending)
		goto fail;
	s->by_id = evlist->nr_entries &&
		   (evlist->entries[0]->attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	s->layouts[0] = evlist->nr_entries ? evsel_layout(evlist->entries[0]) : layout_of(0, 0);
	for (int i = 0; s->by_id && i < evlist->nr_entries; i++)
		s->layouts[i] = evsel_layout(evlist->entries[i]);
	if (dso_hits__add_ids(s, evlist))
		goto fail;
	return s;
fail:
	dso_hits__delete(s);
	errno = ENOMEM;
	return NULL;
}

int dso_hits__add_ids(struct dso_hits *s, const struct evlist *evlist)
{
	for (int i = 0; s->by_id && i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];

		for (int k = 0; k < evsel__nr_id_slots(e); k++)
			if (evsel__id_at(e, k) &&
			    id_hash__add(&s->ids, evsel__id_at(e, k), &s->layouts[i]))
				return -ENOMEM;
	}
	return 0;
}

void dso_hits__delete(struct dso_hits *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr; i++) {
		free(s->d[i].name);
		if (s->d[i].fd >= 0)
			close(s->d[i].fd);
	}
	for (int i = 0; i < s->nr_tasks; i++) {
		free(s->task_list[i]->m);
		free(s->task_list[i]);
	}
	free(s->task_list);
	id_hash__exit(&s->tasks);
	id_hash__exit(&s->ids);
	free(s->d);
	free(s->mods);
	free(s->layouts);
	free(s->carry);
	free(s->pending);
	free(s);
}

/* The DSO named name with build id bid (len 0: not known) and identity id
 * (NULL: none), added if new. */
static int dso_hits__find(struct dso_hits *s, const char *name, const u8 *bid, int len,
			  const struct mapped_file_id *id, int kernel)
{
	static const struct mapped_file_id none;

	if (!id)
		id = &none;
	for (int i = s->nr - 1; i >= 0; i--) {
		struct hit_dso *d = &s->d[i];

		if (strcmp(d->name, name) || !mapped_file_id__same(&d->id, id))
			continue;
		if (!len || !d->bid_len || (d->bid_len == len && !memcmp(d->bid, bid, len))) {
			if (!d->bid_len && len) {
				memcpy(d->bid, bid, len);
				d->bid_len = len;
			}
			return i;
		}
	}
	if (s->nr == s->cap) {
		int cap = s->cap ? 2 * s->cap : 32;
		struct hit_dso *n = realloc(s->d, cap * sizeof(*n));

		if (!n)
			return s->err = -ENOMEM;
		s->d = n;
		s->cap = cap;
	}
	memset(&s->d[s->nr], 0, sizeof(struct hit_dso));
	s->d[s->nr].name = strdup(name);
	if (!s->d[s->nr].name)
		return s->err = -ENOMEM;
	memcpy(s->d[s->nr].bid, bid, len);
	s->d[s->nr].bid_len = len;
	s->d[s->nr].kernel = kernel;
	s->d[s->nr].id = *id;
	s->d[s->nr].fd = -1;
	return s->nr++;
}

static struct dso_task *dso_hits__task(struct dso_hits *s, u32 pid, int create)
{
	struct dso_task *t = id_hash__find(&s->tasks, (u64)pid + 1);

	if (t || !create)
		return t;
	if (s->nr_tasks == s->cap_tasks) {
		int cap = s->cap_tasks ? 2 * s->cap_tasks : 64;
		struct dso_task **n = realloc(s->task_list, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->task_list = n;
		s->cap_tasks = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t || id_hash__add(&s->tasks, (u64)pid + 1, t)) {
		free(t);
		return NULL;
	}
	s->task_list[s->nr_tasks++] = t;
	return t;
}

static int task__grow(struct dso_task *t, int more)
{
	if (t->nr + more > t->cap) {
		int cap = MAX(t->cap * 2, t->nr + more + 8);
		struct dso_map *n = realloc(t->m, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->m = n;
		t->cap = cap;
	}
	return 0;
}

/* A task's maps are kept sorted and apart, so ends are sorted too: the
 * first map that ends after ip (t->nr: none). A JVM or a browser maps
 * hundreds of binaries, and every sample looks one up. */
static int task__first_ending_after(const struct dso_task *t, u64 ip)
{
	int lo = 0, hi = t->nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->m[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A new map replaces whatever part of older ones it covers, as mmap does:
 * the maps it overlaps, [i, k), give way to what is left of the first
 * before it, the new map, and what is left of the last after it. */
static int task__add_map(struct dso_task *t, u64 start, u64 end, int dso)
{
	struct dso_map piece[3];
	int n = 0, i, k;

	if (start >= end)
		return 0;
	if (task__grow(t, 2))
		return -ENOMEM;
	i = task__first_ending_after(t, start);
	for (k = i; k < t->nr && t->m[k].start < end; k++)
		;
	if (i < k && t->m[i].start < start)
		piece[n++] = (struct dso_map){ t->m[i].start, start, t->m[i].dso };
	piece[n++] = (struct dso_map){ start, end, dso };
	if (i < k && t->m[k - 1].end > end)
		piece[n++] = (struct dso_map){ end, t->m[k - 1].end, t->m[k - 1].dso };
	memmove(&t->m[i + n], &t->m[k], (t->nr - k) * sizeof(*t->m));
	memcpy(&t->m[i], piece, n * sizeof(*piece));
	t->nr += n - (k - i);
	return 0;
}

static int task__lookup(struct dso_task *t, u64 ip)
{
	int i;

	/* samples come in runs: the last map found first (an index that
	 * moved since still holds a map, checked like any other) */
	if (t->last < t->nr && t->m[t->last].start <= ip && ip < t->m[t->last].end)
		return t->m[t->last].dso;
	i = task__first_ending_after(t, ip);
	if (i == t->nr || t->m[i].start > ip)
		return -1;
	t->last = i;
	return t->m[i].dso;
}

static void dso_hits__mmap(struct dso_hits *s, const struct perf_event_header *h)
{
	const char *p = (const char *)h, *name;
	u64 addr, len;
	u32 pid, prot = PROT_EXEC;
	u8 bid[BUILD_ID_SIZE];
	int bid_len = 0, off = h->type == PERF_RECORD_MMAP2 ? 72 : 40, dso;
	struct mapped_file_id id;
	struct dso_task *t;

	if (h->size <= off || (h->misc & PERF_RECORD_MISC_MMAP_DATA) ||
	    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&addr, p + 16, 8);
	memcpy(&len, p + 24, 8);
	if (h->type == PERF_RECORD_MMAP2) {
		memcpy(&prot, p + 64, 4);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid_len = MIN((u8)p[40], BUILD_ID_SIZE);
			memcpy(bid, p + 44, bid_len);
		}
	}
	name = p + off;
	if (!(prot & PROT_EXEC) || !memchr(name, '\0', h->size - off) ||
	    (name[0] != '/' && strcmp(name, "[vdso]")))
		return;
	mapped_file_id__from_record(h, &id);
	dso = dso_hits__find(s, name, bid, bid_len, &id, 0);
	if (dso < 0)
		return;
	if (!strcmp(name, "[vdso]"))
		s->vdso = dso;
	t = dso_hits__task(s, pid, 1);
	if (!t || task__add_map(t, addr, addr + len, dso))
		s->err = -ENOMEM;
}

/* A new process starts with a copy of its parent's maps. */
static void dso_hits__fork(struct dso_hits *s, const struct perf_event_header *h)
{
	u32 ids[2];	/* pid, ppid */
	struct dso_task *parent, *child;

	if (h->size < 16)
		return;
	memcpy(ids, (const char *)h + 8, sizeof(ids));
	if (ids[0] == ids[1] || !(parent = dso_hits__task(s, ids[1], 0)) || !parent->nr)
		return;
	child = dso_hits__task(s, ids[0], 1);
	if (!child || task__grow(child, parent->nr)) {
		s->err = -ENOMEM;
		return;
	}
	memcpy(child->m, parent->m, parent->nr * sizeof(*child->m));
	child->nr = parent->nr;
}

/* An exec replaces the address space. */
static void dso_hits__exec(struct dso_hits *s, const struct perf_event_header *h)
{
	struct dso_task *t;
	u32 pid;

	if (h->size < 16 || !(h->misc & PERF_RECORD_MISC_COMM_EXEC))
		return;
	memcpy(&pid, (const char *)h + 8, 4);
	if ((t = dso_hits__task(s, pid, 0)))
		t->nr = t->last = 0;
}

static int module__cmp(const void *a, const void *b)
{
	const struct dso_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* /proc/modules: "name size refs deps state address". Addresses read as 0
 * without the right to see them: then every kernel sample is the kernel's. */
static void dso_hits__read_modules(struct dso_hits *s)
{
	struct buf b = { 0 };
	size_t len;
	char *line, *next;
	int cap = 0;

	s->nr_mods = 0;
	if (buf__file(&b, "/proc/modules", &len) || (buf__u8(&b, 0), b.err))
		goto out;
	for (line = b.p; line && *line; line = next) {
		struct dso_module m = { .dso = -1 };
		unsigned long long size, addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", m.name, &size, &addr) != 3 || !addr)
			continue;
		if (s->nr_mods == cap) {
			struct dso_module *n = realloc(s->mods, (cap = cap * 2 + 16) * sizeof(*n));

			if (!n)
				break;
			s->mods = n;
		}
		m.start = addr;
		m.end = addr + size;
		s->mods[s->nr_mods++] = m;
	}
	if (s->nr_mods > 1)	/* no modules (or none we may see): mods is NULL */
		qsort(s->mods, s->nr_mods, sizeof(*s->mods), module__cmp);
	for (int i = 0; i < s->nr_mods; i++) {
		s->mods_lo = i ? MIN(s->mods_lo, s->mods[i].start) : s->mods[i].start;
		s->mods_hi = MAX(s->mods_hi, s->mods[i].end);
	}
out:
	buf__release(&b);
}

/* The module whose span holds ip, NULL for the kernel's own text. */
static struct dso_module *dso_hits__module(struct dso_hits *s, u64 ip)
{
	int lo = 0, hi = s->nr_mods;

	if (ip < s->mods_lo || ip >= s->mods_hi)
		return NULL;
	while (lo < hi) {	/* the last module starting at or below ip */
		int mid = lo + (hi - lo) / 2;

		if (s->mods[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < s->mods[lo - 1].end ? &s->mods[lo - 1] : NULL;
}

static void dso__hit(struct hit_dso *d)
{
	d->hit = 1;
	d->samples++;
}

static void dso_hits__kernel_hit(struct dso_hits *s, u64 ip)
{
	u8 none[BUILD_ID_SIZE];
	char name[80];

	struct dso_module *m;

	if (s->nr_mods < 0)
		dso_hits__read_modules(s);
	m = dso_hits__module(s, ip);
	if (m) {
		if (m->dso < 0) {
			snprintf(name, sizeof(name), "[%s]", m->name);
			m->dso = dso_hits__find(s, name, none, 0, NULL, 1);
		}
		if (m->dso >= 0)
			dso__hit(&s->d[m->dso]);
		return;
	}
	if (s->kernel < 0)
		s->kernel = dso_hits__find(s, "[kernel.kallsyms]", none, 0, NULL, 1);
	if (s->kernel >= 0)
		dso__hit(&s->d[s->kernel]);
}

/* The task pid, NULL while it is unknown. Tasks are never freed while the
 * model lives, so a pointer kept stays good. */
static struct dso_task *dso_hits__recent_task(struct dso_hits *s, u32 pid)
{
	struct dso_task_slot *r = &s->recent[pid % ARRAY_SIZE(s->recent)];

	if (!r->t || r->pid != pid) {
		struct dso_task *t = dso_hits__task(s, pid, 0);

		if (!t)
			return NULL;
		*r = (struct dso_task_slot){ pid, t };
	}
	return r->t;
}

/* The layout of event instance id's samples, NULL for an unknown id. */
static const struct dso_layout *dso_hits__layout_of(struct dso_hits *s, u64 id)
{
	struct dso_id_slot *c = &s->recent_ids[id % ARRAY_SIZE(s->recent_ids)];

	if (!c->l || c->id != id) {
		const struct dso_layout *l = id_hash__find(&s->ids, id);

		if (!l)
			return NULL;
		*c = (struct dso_id_slot){ id, l };
	}
	return c->l;
}

/* A user-space ip of task pid: a hit of the DSO mapped there. */
static void dso_hits__user_hit(struct dso_hits *s, u32 pid, u64 ip)
{
	const struct dso_seen *e = &s->seen[pid % ARRAY_SIZE(s->seen)];
	struct dso_task *t;
	int dso;

	/* most samples: in the map their task's last one hit */
	if (e->end && e->pid == pid && e->start <= ip && ip < e->end) {
		s->d[e->dso].samples++;
		return;
	}
	t = dso_hits__recent_task(s, pid);
	dso = t ? task__lookup(t, ip) : -1;
	if (dso >= 0) {
		dso__hit(&s->d[dso]);
		s->seen[pid % ARRAY_SIZE(s->seen)] = (struct dso_seen){
			pid, dso, t->m[t->last].start, t->m[t->last].end };
	} else if (s->nr_pending < MAX_PENDING)
		s->pending[s->nr_pending++] = (struct dso_pending){ ip, pid };
	else
		s->unresolved++;
}

/* A callchain of len bytes at p: its user frames (after PERF_CONTEXT_USER)
 * are hits; one that claims more than it holds is read no further. */
static void dso_hits__user_frames(struct dso_hits *s, u32 pid, const char *p, size_t len)
{
	u64 nr, ip;
	int user = 0;

	if (len < 8)
		return;
	memcpy(&nr, p, 8);
	if (nr > (len - 8) / 8)
		return;
	for (u64 i = 0; i < nr; i++) {
		memcpy(&ip, p + 8 + i * 8, 8);
		if (ip >= PERF_CONTEXT_MAX)
			user = ip == PERF_CONTEXT_USER;
		else if (user)
			dso_hits__user_hit(s, pid, ip);
	}
}

static void dso_hits__sample(struct dso_hits *s, const struct perf_event_header *h)
{
	const struct dso_layout *l = &s->layouts[0];
	const char *p = (const char *)h + sizeof(*h);
	size_t body = h->size - sizeof(*h);
	u64 ip;
	u32 pid;

	if (s->by_id) {
		u64 id;

		if (body < 8)
			return;
		memcpy(&id, p, 8);
		l = dso_hits__layout_of(s, id);
		if (!l)
			return;
	}
	if (l->ip < 0 || l->tid < 0 || (size_t)l->ip + 8 > body || (size_t)l->tid + 4 > body)
		return;
	memcpy(&ip, p + l->ip, 8);
	memcpy(&pid, p + l->tid, 4);
	switch (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		dso_hits__kernel_hit(s, ip);
		break;
	case PERF_RECORD_MISC_USER:
		dso_hits__user_hit(s, pid, ip);
		break;
	}
	if (l->chain >= 0)
		dso_hits__user_frames(s, pid, p + l->chain, body - l->chain);
}

void dso_hits__end_round(struct dso_hits *s)
{
	for (int i = 0; i < s->nr_pending; i++) {
		struct dso_task *t = dso_hits__task(s, s->pending[i].pid, 0);
		int dso = t ? task__lookup(t, s->pending[i].ip) : -1;

		if (dso >= 0)
			dso__hit(&s->d[dso]);
		else
			s->unresolved++;
	}
	s->nr_pending = 0;
}

static void dso_hits__record(struct dso_hits *s, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
	    h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_COMM)
		memset(s->seen, 0, sizeof(s->seen));
	switch (h->type) {
	case PERF_RECORD_SAMPLE: dso_hits__sample(s, h); break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: dso_hits__mmap(s, h); break;
	case PERF_RECORD_FORK: dso_hits__fork(s, h); break;
	case PERF_RECORD_COMM: dso_hits__exec(s, h); break;
	case PERF_RECORD_FINISHED_ROUND: dso_hits__end_round(s); break;
	}
}

void dso_hits__feed(struct dso_hits *s, const struct iovec *iov, int iovcnt)
{
	size_t have = 0, need = sizeof(struct perf_event_header);

	/* whole records in place; one split across two iovecs goes through carry */
	for (int i = 0; i < iovcnt; i++) {
		const char *p = iov[i].iov_base, *end = p + iov[i].iov_len;

		while (p < end) {
			const struct perf_event_header *h = (const void *)p;

			if (have || (size_t)(end - p) < sizeof(*h) || h->size > (size_t)(end - p)) {
				size_t n = MIN(need - have, (size_t)(end - p));

				memcpy(s->carry + have, p, n);
				have += n;
				p += n;
				if (have == sizeof(*h)) {
					need = ((struct perf_event_header *)s->carry)->size;
					if (need < sizeof(*h))
						return;		/* not a record: stop reading */
				}
				if (have == need) {
					dso_hits__record(s, (const void *)s->carry);
					have = 0;
					need = sizeof(*h);
				}
				continue;
			}
			if (h->size < sizeof(*h))
				return;
			dso_hits__record(s, h);
			p += h->size;
		}
	}
}

int dso_hits__wanted(const struct dso_hits *s, const struct hit_dso *d)
{
	return d->hit || s->all || (s->vdso >= 0 && d == &s->d[s->vdso]);
}
