/* A pprof profile built up in memory, every part held once (open
 * addressing tables over arrays), and written as profile.proto through
 * protobuf-c into a gzip stream (zlib). */
#include "script/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pprof/profile.pb-c.h>
#include <zlib.h>

/* A table slot: the entry's index + 1 (0: free) and its key's hash. */
struct islot {
	u64 hash;
	u64 idx1;
};

struct itab {
	struct islot *slot;
	size_t cap, nr;	/* cap: a power of two, never more than half full */
};

struct pstr { size_t off, len; };	/* in chars, NUL-terminated there */
struct pmap { u64 start, limit, offset; s64 file, bid; };
struct pfunc { s64 name, file; };
struct ploc { u64 mapping, addr, function; };
struct pstack { size_t off; u32 nr; };	/* in locs */
struct skey {
	u64 stack, time;	/* stack: its index */
	u32 pid, tid, cpu, has_time;
	s64 comm;
};
/* pid, tid and cpu are string labels: pprof's readers drop a number
 * label of 0 (proto3 does not write it), and the backends index strings */
struct psample {
	struct skey k;
	s64 pid_s, tid_s, cpu_s;	/* the key's numbers as strings */
};

/* The label keys, in the string table from the start. */
enum { KEY_PID, KEY_TID, KEY_CPU, KEY_COMM, KEY_TIME, KEY_NS, NR_KEYS };
static const char *const key_names[NR_KEYS] = { "pid", "tid", "cpu", "comm", "time", "nanoseconds" };

struct pprof {
	char *chars;
	size_t nr_chars, cap_chars;
	struct pstr *strs;
	size_t nr_strs, cap_strs;
	struct pmap *maps;
	size_t nr_maps, cap_maps;
	struct pfunc *funcs;
	size_t nr_funcs, cap_funcs;
	struct ploc *locs_v;
	size_t nr_locs_v, cap_locs_v;
	u64 *locs;	/* the stacks' location ids, one after another */
	size_t nr_locs, cap_locs;
	struct pstack *stacks;
	size_t nr_stacks, cap_stacks;
	struct psample *samples;
	size_t nr_samples, cap_samples;
	s64 *values;	/* nr_types a sample */
	size_t cap_values;
	struct itab t_strs, t_maps, t_funcs, t_locs, t_stacks, t_samples;
	Perftools__Profiles__ValueType types[64];	/* two an event at most */
	int nr_types, default_type;
	s64 time_nanos, duration_nanos;
	s64 keys[NR_KEYS];
	/* every hash starts from it: a file's pids, names and addresses
	 * cannot be chosen to pile into one probe run (as lib/id-hash.c) */
	u64 salt;
};

/* Room for need elements of size in *v (capacity *cap). 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}
#define GROW(p, what, need) grow((void **)&(p)->what, &(p)->cap_##what, need, sizeof(*(p)->what))

static u64 mix(u64 h, u64 v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static u64 hash_bytes(u64 salt, const void *d, size_t len)
{
	const unsigned char *c = d;
	u64 h = 0xcbf29ce484222325ULL ^ salt;

	while (len--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return mix(h, 0);
}

/* Room for one more entry in t. 0 or -ENOMEM. */
static int itab__reserve(struct itab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct islot *n;

	if ((t->nr + 1) * 2 <= t->cap)
		return 0;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j = t->slot[i].hash & (cap - 1);

		if (!t->slot[i].idx1)
			continue;
		while (n[j].idx1)
			j = (j + 1) & (cap - 1);
		n[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = n;
	t->cap = cap;
	return 0;
}

typedef int (*eq_fn)(const struct pprof *p, size_t idx, const void *key);

/* key's slot: its entry's (idx1 set), or the free one it goes into (idx1
 * 0, hash set; the caller fills idx1 and counts it). After reserve. */
static struct islot *itab__find(struct itab *t, u64 hash, eq_fn eq, const struct pprof *p,
				const void *key)
{
	for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct islot *s = &t->slot[i];

		if (!s->idx1) {
			s->hash = hash;
			return s;
		}
		if (s->hash == hash && eq(p, s->idx1 - 1, key))
			return s;
	}
}

struct str_key { const char *s; size_t len; };

static int str_eq(const struct pprof *p, size_t i, const void *key)
{
	const struct str_key *k = key;

	return p->strs[i].len == k->len && !memcmp(p->chars + p->strs[i].off, k->s, k->len);
}

/* The string table index of s[0..len), or -ENOMEM. */
static s64 pprof__string(struct pprof *p, const char *s, size_t len)
{
	struct str_key k = { s, len };
	struct islot *slot;

	if (itab__reserve(&p->t_strs))
		return -ENOMEM;
	slot = itab__find(&p->t_strs, hash_bytes(p->salt, s, len), str_eq, p, &k);
	if (slot->idx1)
		return (s64)slot->idx1 - 1;
	if (GROW(p, chars, p->nr_chars + len + 1) || GROW(p, strs, p->nr_strs + 1))
		return -ENOMEM;
	memcpy(p->chars + p->nr_chars, s, len);
	p->chars[p->nr_chars + len] = '\0';
	p->strs[p->nr_strs] = (struct pstr){ p->nr_chars, len };
	p->nr_chars += len + 1;
	slot->idx1 = ++p->nr_strs;
	p->t_strs.nr++;
	return (s64)p->nr_strs - 1;
}

static s64 pprof__cstring(struct pprof *p, const char *s)
{
	return pprof__string(p, s ? s : "", s ? strlen(s) : 0);
}

struct pprof *pprof__new(void)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (!p)
		goto fail;
	p->salt = hash_salt(p);
	/* pprof's rule: the string table opens with "" */
	if (pprof__string(p, "", 0) < 0)
		goto fail;
	for (int i = 0; i < NR_KEYS; i++)
		if ((p->keys[i] = pprof__cstring(p, key_names[i])) < 0)
			goto fail;
	return p;
fail:
	pprof__delete(p);
	errno = ENOMEM;
	return NULL;
}

void pprof__delete(struct pprof *p)
{
	if (!p)
		return;
	free(p->chars);
	free(p->strs);
	free(p->maps);
	free(p->funcs);
	free(p->locs_v);
	free(p->locs);
	free(p->stacks);
	free(p->samples);
	free(p->values);
	free(p->t_strs.slot);
	free(p->t_maps.slot);
	free(p->t_funcs.slot);
	free(p->t_locs.slot);
	free(p->t_stacks.slot);
	free(p->t_samples.slot);
	free(p);
}

int pprof__add_type(struct pprof *p, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;

	if (p->nr_samples)
		return -EBUSY;
	if (p->nr_types == (int)ARRAY_SIZE(p->types))
		return -ENOSPC;
	vt.type = pprof__cstring(p, type);
	vt.unit = pprof__cstring(p, unit);
	if (vt.type < 0 || vt.unit < 0)
		return -ENOMEM;
	p->types[p->nr_types] = vt;
	return p->nr_types++;
}

void pprof__set_default_type(struct pprof *p, int col)
{
	if (col >= 0 && col < p->nr_types)
		p->default_type = col;
}

void pprof__set_time(struct pprof *p, s64 time_nanos, s64 duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

static int map_eq(const struct pprof *p, size_t i, const void *key)
{
	return !memcmp(&p->maps[i], key, sizeof(struct pmap));
}

u64 pprof__mapping(struct pprof *p, const struct pprof_mapping *m)
{
	struct pmap k = { m->start, m->limit, m->offset, pprof__cstring(p, m->file), 0 };
	char hex[2 * 64 + 1];
	struct islot *slot;

	for (int i = 0; i < m->bid_len && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->bid[i]);
	k.bid = pprof__string(p, hex, 2 * (size_t)MIN(MAX(m->bid_len, 0), 64));
	if (k.file < 0 || k.bid < 0 || itab__reserve(&p->t_maps))
		return 0;
	slot = itab__find(&p->t_maps,
			  mix(mix(mix(mix(mix(p->salt, k.start), k.limit), k.offset), k.file), k.bid),
			  map_eq, p, &k);
	if (slot->idx1)
		return slot->idx1;
	if (GROW(p, maps, p->nr_maps + 1))
		return 0;
	p->maps[p->nr_maps] = k;
	p->t_maps.nr++;
	return slot->idx1 = ++p->nr_maps;
}

static int func_eq(const struct pprof *p, size_t i, const void *key)
{
	return !memcmp(&p->funcs[i], key, sizeof(struct pfunc));
}

u64 pprof__function(struct pprof *p, const char *name, const char *file)
{
	struct pfunc k = { pprof__cstring(p, name), pprof__cstring(p, file) };
	struct islot *slot;

	if (k.name < 0 || k.file < 0 || itab__reserve(&p->t_funcs))
		return 0;
	slot = itab__find(&p->t_funcs, mix(mix(p->salt, k.name), k.file), func_eq, p, &k);
	if (slot->idx1)
		return slot->idx1;
	if (GROW(p, funcs, p->nr_funcs + 1))
		return 0;
	p->funcs[p->nr_funcs] = k;
	p->t_funcs.nr++;
	return slot->idx1 = ++p->nr_funcs;
}

static int loc_eq(const struct pprof *p, size_t i, const void *key)
{
	return !memcmp(&p->locs_v[i], key, sizeof(struct ploc));
}

u64 pprof__location(struct pprof *p, u64 mapping, u64 addr, u64 function)
{
	struct ploc k = { mapping, addr, function };
	struct islot *slot;

	if (mapping > p->nr_maps || function > p->nr_funcs || itab__reserve(&p->t_locs))
		return 0;
	slot = itab__find(&p->t_locs, mix(mix(mix(p->salt, mapping), addr), function), loc_eq, p, &k);
	if (slot->idx1)
		return slot->idx1;
	if (GROW(p, locs_v, p->nr_locs_v + 1))
		return 0;
	p->locs_v[p->nr_locs_v] = k;
	p->t_locs.nr++;
	return slot->idx1 = ++p->nr_locs_v;
}

struct stack_key { const u64 *locs; u32 nr; };

static int stack_eq(const struct pprof *p, size_t i, const void *key)
{
	const struct stack_key *k = key;

	return p->stacks[i].nr == k->nr &&
	       !memcmp(p->locs + p->stacks[i].off, k->locs, k->nr * sizeof(u64));
}

/* The index of the stack locs[0..nr), or -ENOMEM. */
static s64 pprof__stack(struct pprof *p, const u64 *locs, u32 nr)
{
	struct stack_key k = { locs, nr };
	struct islot *slot;
	u64 h = mix(p->salt, nr);

	if (itab__reserve(&p->t_stacks))
		return -ENOMEM;
	for (u32 i = 0; i < nr; i++)
		h = mix(h, locs[i]);
	slot = itab__find(&p->t_stacks, h, stack_eq, p, &k);
	if (slot->idx1)
		return (s64)slot->idx1 - 1;
	if (GROW(p, locs, p->nr_locs + nr) || GROW(p, stacks, p->nr_stacks + 1))
		return -ENOMEM;
	memcpy(p->locs + p->nr_locs, locs, nr * sizeof(u64));
	p->stacks[p->nr_stacks] = (struct pstack){ p->nr_locs, nr };
	p->nr_locs += nr;
	p->t_stacks.nr++;
	slot->idx1 = ++p->nr_stacks;
	return (s64)p->nr_stacks - 1;
}

static int sample_eq(const struct pprof *p, size_t i, const void *key)
{
	return !memcmp(&p->samples[i].k, key, sizeof(struct skey));
}

static s64 pprof__number(struct pprof *p, u32 v)
{
	char s[16];

	return pprof__string(p, s, snprintf(s, sizeof(s), "%u", (unsigned)v));
}

/* The index of the sample k, made with zero values; -ENOMEM. */
static s64 pprof__sample(struct pprof *p, const struct skey *k)
{
	struct psample *ps;
	struct islot *slot;
	u64 h;

	if (itab__reserve(&p->t_samples))
		return -ENOMEM;
	h = mix(mix(mix(mix(mix(mix(mix(p->salt, k->stack), k->pid), k->tid), k->cpu),
			    (u64)k->comm), k->has_time), k->time);
	slot = itab__find(&p->t_samples, h, sample_eq, p, k);
	if (slot->idx1)
		return (s64)slot->idx1 - 1;
	if (GROW(p, samples, p->nr_samples + 1) ||
	    GROW(p, values, (p->nr_samples + 1) * (size_t)p->nr_types))
		return -ENOMEM;
	ps = &p->samples[p->nr_samples];
	ps->k = *k;
	ps->pid_s = pprof__number(p, k->pid);
	ps->tid_s = pprof__number(p, k->tid);
	ps->cpu_s = pprof__number(p, k->cpu);
	if (ps->pid_s < 0 || ps->tid_s < 0 || ps->cpu_s < 0)
		return -ENOMEM;
	memset(p->values + p->nr_samples * p->nr_types, 0, p->nr_types * sizeof(s64));
	p->t_samples.nr++;
	slot->idx1 = ++p->nr_samples;
	return (s64)p->nr_samples - 1;
}

int pprof__add(struct pprof *p, const u64 *locs, u32 nr, const struct pprof_labels *l, int col,
	       const s64 *values, int n)
{
	struct skey k;
	s64 stack, i;

	if (col < 0 || n < 0 || col + n > p->nr_types)
		return -EINVAL;
	for (u32 j = 0; j < nr; j++)
		if (!locs[j] || locs[j] > p->nr_locs_v)
			return -EINVAL;
	memset(&k, 0, sizeof(k));	/* compared whole: no stray padding */
	stack = pprof__stack(p, locs, nr);
	k.comm = pprof__cstring(p, l->comm);
	if (stack < 0 || k.comm < 0)
		return -ENOMEM;
	k.stack = stack;
	k.pid = l->pid;
	k.tid = l->tid;
	k.cpu = l->cpu;
	k.has_time = !!l->has_time;
	k.time = l->has_time ? l->time : 0;
	i = pprof__sample(p, &k);
	if (i < 0)
		return (int)i;
	for (int c = 0; c < n; c++)
		p->values[i * p->nr_types + col + c] += values[c];
	return 0;
}

void pprof__counts(const struct pprof *p, u64 *samples, u64 *stacks, u64 *locations)
{
	*samples = p->nr_samples;
	*stacks = p->nr_stacks;
	*locations = p->nr_locs_v;
}

/* ---- writing: profile.proto, gzipped ---- */

/* A protobuf-c output that deflates into fd as it is given bytes. */
struct gz_out {
	ProtobufCBuffer base;	/* first: protobuf-c calls base.append */
	z_stream z;
	int fd, err;
	unsigned char out[1 << 16];
};

/* Deflates what z holds (flush: Z_NO_FLUSH, or Z_FINISH for the end)
 * and writes what comes out. */
static void gz__deflate(struct gz_out *g, int flush)
{
	int rc;

	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		if (write_all(g->fd, g->out, sizeof(g->out) - g->z.avail_out)) {
			g->err = -errno;
			return;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

static void gz__append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_out *g = (struct gz_out *)b;

	while (!g->err && len) {
		uInt n = (uInt)MIN(len, (size_t)1 << 30);

		g->z.next_in = (Bytef *)data;
		g->z.avail_in = n;
		gz__deflate(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* Protobuf's rule that messages concatenated merge into one (their
 * repeated fields appended in order) lets the profile go out a piece at
 * a time: a Profile holding a batch of one field's entries, so that no
 * second copy of the whole profile is ever made. */
static void put(struct gz_out *g, Perftools__Profiles__Profile *piece)
{
	if (!g->err)
		protobuf_c_message_pack_to_buffer(&piece->base, &g->base);
}

#define BATCH 128

static void put_head(struct gz_out *g, const struct pprof *p)
{
	Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType types[ARRAY_SIZE(p->types)], *tp[ARRAY_SIZE(p->types)];

	for (int i = 0; i < p->nr_types; i++) {
		types[i] = p->types[i];
		tp[i] = &types[i];
	}
	piece.n_sample_type = p->nr_types;
	piece.sample_type = tp;
	piece.default_sample_type = p->nr_types ? p->types[p->default_type].type : 0;
	piece.time_nanos = p->time_nanos;
	piece.duration_nanos = p->duration_nanos;
	put(g, &piece);
}

static void put_strings(struct gz_out *g, const struct pprof *p)
{
	char *v[BATCH];

	for (size_t i = 0; i < p->nr_strs;) {
		Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (; n < BATCH && i < p->nr_strs; n++, i++)
			v[n] = p->chars + p->strs[i].off;
		piece.n_string_table = n;
		piece.string_table = v;
		put(g, &piece);
	}
}

/* Every location's address is symbolized here, or cannot be: has_functions
 * keeps pprof from looking for the binaries itself. */
static void put_mappings(struct gz_out *g, const struct pprof *p)
{
	Perftools__Profiles__Mapping m[BATCH], *v[BATCH];

	for (size_t i = 0; i < p->nr_maps;) {
		Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (; n < BATCH && i < p->nr_maps; n++, i++) {
			const struct pmap *pm = &p->maps[i];

			m[n] = (Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
			m[n].id = i + 1;
			m[n].memory_start = pm->start;
			m[n].memory_limit = pm->limit;
			m[n].file_offset = pm->offset;
			m[n].filename = pm->file;
			m[n].build_id = pm->bid;
			m[n].has_functions = 1;
			v[n] = &m[n];
		}
		piece.n_mapping = n;
		piece.mapping = v;
		put(g, &piece);
	}
}

static void put_functions(struct gz_out *g, const struct pprof *p)
{
	Perftools__Profiles__Function f[BATCH], *v[BATCH];

	for (size_t i = 0; i < p->nr_funcs;) {
		Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (; n < BATCH && i < p->nr_funcs; n++, i++) {
			f[n] = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
			f[n].id = i + 1;
			f[n].name = f[n].system_name = p->funcs[i].name;
			f[n].filename = p->funcs[i].file;
			v[n] = &f[n];
		}
		piece.n_function = n;
		piece.function = v;
		put(g, &piece);
	}
}

static void put_locations(struct gz_out *g, const struct pprof *p)
{
	Perftools__Profiles__Location l[BATCH], *v[BATCH];
	Perftools__Profiles__Line line[BATCH], *lp[BATCH];

	for (size_t i = 0; i < p->nr_locs_v;) {
		Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (; n < BATCH && i < p->nr_locs_v; n++, i++) {
			const struct ploc *pl = &p->locs_v[i];

			l[n] = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
			l[n].id = i + 1;
			l[n].mapping_id = pl->mapping;
			l[n].address = pl->addr;
			line[n] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
			line[n].function_id = pl->function;
			lp[n] = &line[n];
			l[n].n_line = pl->function ? 1 : 0;
			l[n].line = &lp[n];
			v[n] = &l[n];
		}
		piece.n_location = n;
		piece.location = v;
		put(g, &piece);
	}
}

/* A sample's labels: pid, tid, cpu and comm, and its time if it has one. */
static size_t sample_labels(const struct pprof *p, const struct psample *s,
			    Perftools__Profiles__Label *lab, Perftools__Profiles__Label **lp)
{
	const s64 keys[] = { p->keys[KEY_PID], p->keys[KEY_TID], p->keys[KEY_CPU], p->keys[KEY_COMM] };
	const s64 strs[] = { s->pid_s, s->tid_s, s->cpu_s, s->k.comm };
	size_t n = 0;

	for (; n < ARRAY_SIZE(keys); n++) {
		lab[n] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lab[n].key = keys[n];
		lab[n].str = strs[n];
	}
	/* a unit, so that even a time of 0 reaches pprof's reader */
	if (s->k.has_time) {
		lab[n] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lab[n].key = p->keys[KEY_TIME];
		lab[n].num = (s64)s->k.time;
		lab[n++].num_unit = p->keys[KEY_NS];
	}
	for (size_t i = 0; i < n; i++)
		lp[i] = &lab[i];
	return n;
}

#define MAX_LABELS 5

static void put_samples(struct gz_out *g, const struct pprof *p)
{
	Perftools__Profiles__Sample s[BATCH], *v[BATCH];
	Perftools__Profiles__Label lab[BATCH][MAX_LABELS], *lp[BATCH][MAX_LABELS];

	for (size_t i = 0; i < p->nr_samples;) {
		Perftools__Profiles__Profile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (; n < BATCH && i < p->nr_samples; n++, i++) {
			const struct psample *ps = &p->samples[i];
			const struct pstack *st = &p->stacks[ps->k.stack];

			s[n] = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
			s[n].n_location_id = st->nr;
			s[n].location_id = p->locs + st->off;
			s[n].n_value = p->nr_types;
			s[n].value = p->values + i * p->nr_types;
			s[n].n_label = sample_labels(p, ps, lab[n], lp[n]);
			s[n].label = lp[n];
			v[n] = &s[n];
		}
		piece.n_sample = n;
		piece.sample = v;
		put(g, &piece);
	}
}

int pprof__write(const struct pprof *p, int fd)
{
	struct gz_out *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return -ENOMEM;
	g->base.append = gz__append;
	g->fd = fd;
	/* 15 + 16: a gzip wrapper, as pprof's readers expect */
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	put_head(g, p);
	put_strings(g, p);
	put_mappings(g, p);
	put_functions(g, p);
	put_locations(g, p);
	put_samples(g, p);
	if (!g->err) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		gz__deflate(g, Z_FINISH);
	}
	deflateEnd(&g->z);
	err = g->err;
	free(g);
	return err;
}
