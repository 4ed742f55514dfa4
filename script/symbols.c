/* Symbol tables for the own perf script: one sorted table per DSO, read
 * once a run, from the build-id cache, debuginfo, the file itself,
 * /proc/kallsyms, the vdso or a JIT's perf map. Every input may be hostile
 * or gone: what cannot be read leaves the DSO without symbols. */
#include "script/symbols.h"
#include "script/symbols-elf.h"
#include "buildid/build-id.h"
#include "lib/buf.h"

#include <ctype.h>
#include <limits.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A bound on what one DSO may hold: a kernel has ~200k functions. */
#define MAX_SYMS (8u << 20)
#define PAGE 4096ULL
#define MAX_PERF_MAP (256 << 20)
#define MAX_KALLSYMS (256 << 20)
#define SYM_HITS 1024	/* a power of two */

/* name and build id -> dso: a file may map thousands of files, and a
 * crafted one millions of names, so this is no list to scan; salted so
 * that the names cannot be chosen to share a chain */
struct dsos {
	struct dso **buckets;
	size_t nr_buckets, nr;
	u64 salt;
	char *buildid_dir;
	int mangled;	/* --no-demangle */
	/* the last lookups, direct-mapped by DSO and address: a callchain's
	 * addresses come back sample after sample, and a binary search of
	 * the kernel's 200k functions misses the CPU's caches at each step */
	struct sym_hit {
		const struct dso *dso;
		u64 addr, off;
		const struct symbol *sym;
	} hits[SYM_HITS];
};

static size_t dsos__bucket(const struct dsos *d, enum dso_kind kind, const char *name,
			   const u8 *bid, int bid_len)
{
	u64 h = d->salt ^ kind;

	/* FNV-1a */
	for (const char *c = name; *c; c++)
		h = (h ^ (u8)*c) * 0x100000001b3ULL;
	for (int i = 0; i < bid_len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ULL;
	return (h ^ h >> 29) & (d->nr_buckets - 1);
}

/* Twice the buckets once there are twice as many DSOs; without memory the
 * chains just grow. */
static void dsos__grow(struct dsos *d)
{
	size_t n = d->nr_buckets * 2;
	struct dso **b = calloc(n, sizeof(*b)), **old = d->buckets;
	size_t old_n = d->nr_buckets;

	if (!b)
		return;
	d->buckets = b;
	d->nr_buckets = n;
	for (size_t i = 0; i < old_n; i++) {
		for (struct dso *next, *dso = old[i]; dso; dso = next) {
			size_t at = dsos__bucket(d, dso->kind, dso->name, dso->bid, dso->bid_len);

			next = dso->next;
			dso->next = b[at];
			b[at] = dso;
		}
	}
	free(old);
}

struct dsos *dsos__new(const char *buildid_dir)
{
	struct dsos *d = calloc(1, sizeof(*d));
	const char *home = getenv("HOME");

	if (!d)
		return NULL;
	d->nr_buckets = 256;
	d->buckets = calloc(d->nr_buckets, sizeof(*d->buckets));
	d->salt = hash_salt(d);
	if (!buildid_dir)
		buildid_dir = getenv("PERF_BUILDID_DIR");
	if (buildid_dir)
		d->buildid_dir = strdup(buildid_dir);
	else if (asprintf(&d->buildid_dir, "%s/.debug", home ? home : "") < 0)
		d->buildid_dir = NULL;
	if (!d->buildid_dir || !d->buckets) {
		dsos__delete(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void dsos__set_demangle(struct dsos *d, int demangle)
{
	d->mangled = !demangle;
}

void dsos__delete(struct dsos *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->buckets && i < d->nr_buckets; i++) {
		for (struct dso *n, *dso = d->buckets[i]; dso; dso = n) {
			n = dso->next;
			free(dso->name);
			free(dso->syms);
			free(dso->names);
			free(dso->symsrc);
			free(dso);
		}
	}
	free(d->buckets);
	free(d->buildid_dir);
	free(d);
}

struct dso *dsos__get(struct dsos *d, enum dso_kind kind, const char *name, const u8 *bid,
		      int bid_len)
{
	static const u8 none[BUILD_ID_SIZE];
	struct dso *dso;
	size_t at;

	if (!bid)
		bid = none;
	bid_len = MIN(MAX(bid_len, 0), BUILD_ID_SIZE);
	at = dsos__bucket(d, kind, name, bid, bid_len);
	for (dso = d->buckets[at]; dso; dso = dso->next)
		if (dso->kind == kind && dso->bid_len == bid_len &&
		    !memcmp(dso->bid, bid, bid_len) && !strcmp(dso->name, name))
			return dso;
	dso = calloc(1, sizeof(*dso));
	if (!dso)
		return NULL;
	dso->name = strdup(name);
	dso->name_len = strlen(name);
	if (!dso->name) {
		free(dso);
		return NULL;
	}
	dso->kind = kind;
	dso->bid_len = bid_len;
	memcpy(dso->bid, bid, bid_len);
	dso->next = d->buckets[at];
	d->buckets[at] = dso;
	if (++d->nr > 2 * d->nr_buckets)
		dsos__grow(d);
	return dso;
}

int symtab__add(struct symtab *t, u64 start, u64 size, const char *name, u8 bind)
{
	if (t->nr == MAX_SYMS || !*name)
		return 0;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct symbol *n = realloc(t->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->syms = n;
		t->cap = cap;
	}
	t->syms[t->nr++] = (struct symbol){ start, start + size, t->names.len, bind, 0, 0,
					    (u32)MIN(strlen(name), (size_t)UINT32_MAX) };
	buf__str0(&t->names, name);
	return t->names.err;
}

int symtab__add_plt(struct symtab *t, u64 start, u64 size, const char *name)
{
	size_t nr = t->nr;
	int rc = symtab__add(t, start, size, name, STB_GLOBAL);

	if (t->nr > nr)
		t->syms[nr].plt = 1;
	return rc;
}

void symtab__exit(struct symtab *t)
{
	free(t->syms);
	buf__release(&t->names);
	memset(t, 0, sizeof(*t));
}

static int cmp_start(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->plt != y->plt)
		return x->plt - y->plt;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;	/* file order */
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/* Of two symbols at one address, the one the stock perf shows: one with a
 * size, then not weak, then global, then fewer leading underscores, then
 * the longer name (an alias like __GI___read over __read). 1 if b wins. */
static int better(const struct symtab *t, const struct symbol *a, const struct symbol *b)
{
	const char *na = t->names.p + a->name, *nb = t->names.p + b->name;
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);

	if (t->last_wins)	/* sorted in file order */
		return 1;
	if ((a->end == a->start) != (b->end == b->start))
		return a->end == a->start;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	if (ua != ub)
		return ub < ua;
	return strlen(nb) > strlen(na);
}

/* Sorts, keeps one symbol per address, gives each symbol without a size
 * the room up to the next one (the PLT's entries aside, as the stock perf
 * adds those after that), and hands the table to dso. */
void symtab__finish(struct symtab *t, struct dso *dso)
{
	size_t n = 0, nr_plt = 0, i;

	if (t->names.err || !t->nr) {
		symtab__exit(t);
		return;
	}
	qsort(t->syms, t->nr, sizeof(*t->syms), cmp_start);
	for (i = 0; i < t->nr && !t->syms[i].plt; i++) {
		if (n && t->syms[n - 1].start == t->syms[i].start) {
			if (better(t, &t->syms[n - 1], &t->syms[i]))
				t->syms[n - 1] = t->syms[i];
			continue;
		}
		t->syms[n++] = t->syms[i];
	}
	for (size_t j = 0; j < n; j++) {
		struct symbol *s = &t->syms[j];

		if (s->end < s->start)	/* a size that wraps */
			s->end = s->start;
		if (s->end == s->start) {
			s->end = j + 1 < n ? t->syms[j + 1].start : ALIGN_UP(s->start, PAGE) + PAGE;
			s->stretched = 1;
		}
	}
	for (; i < t->nr; i++)
		if (!nr_plt || t->syms[n + nr_plt - 1].start != t->syms[i].start)
			t->syms[n + nr_plt++] = t->syms[i];
	dso->syms = t->syms;
	dso->nr_syms = n;
	dso->nr_plt = nr_plt;
	dso->names = t->names.p;
	memset(t, 0, sizeof(*t));
}

/* Where the kernel's functions are: /proc/kallsyms if the recorded kernel
 * is the running one (or the file does not say), else the copy the
 * build-id cache keeps, "" if it has none. */
static void kallsyms_path(const struct dso *dso, const char *buildid_dir, char *path, size_t sz)
{
	u8 running[BUILD_ID_SIZE];
	int len = dso->bid_len ? build_id__kernel(running) : 0;
	char hex[2 * BUILD_ID_SIZE + 1];

	if (!dso->bid_len || (len == dso->bid_len && !memcmp(running, dso->bid, len))) {
		snprintf(path, sz, "/proc/kallsyms");
		return;
	}
	for (int i = 0; i < dso->bid_len; i++)
		sprintf(hex + 2 * i, "%02x", dso->bid[i]);
	if (snprintf(path, sz, "%s/[kernel.kallsyms]/%s/kallsyms", buildid_dir, hex) >= (int)sz)
		*path = 0;
}

/* "ffffffff81000000 T _text" lines: text symbols of the kernel proper
 * (module symbols carry a [module] suffix); kallsyms gives no sizes, each
 * ends where the next begins. All zero when kptr_restrict hides them. */
static int load_kallsyms(struct symtab *t, const char *path)
{
	struct stat st;
	size_t len;
	char *text, *line, *next;
	int rc = 0;

	/* /proc/kallsyms has no size; a cache's copy must be a sane file */
	if (strcmp(path, "/proc/kallsyms") &&
	    (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_KALLSYMS))
		return -ENOENT;
	text = read_file(path, &len);
	if (!text)
		return -errno;
	for (line = text; !rc && line < text + len; line = next) {
		char *end = memchr(line, '\n', text + len - line), *name, *type;
		u64 addr;

		next = end ? end + 1 : text + len;
		if (end)
			*end = 0;
		addr = strtoull(line, &type, 16);
		if (type == line || *type++ != ' ' || !*type || type[1] != ' ')
			continue;
		name = type + 2;
		if (!addr || strchr(name, '\t') || strchr(name, ' ') ||
		    !strchr("tTwW", *type))
			continue;
		rc = symtab__add(t, addr, 0, name, *type == 'w' || *type == 'W' ? STB_WEAK :
				 isupper((unsigned char)*type) ? STB_GLOBAL : STB_LOCAL);
	}
	free(text);
	return rc;
}

/* /tmp/perf-PID.map: "START SIZE name" in hex, one function a line, as
 * JITs write it. */
static int load_perf_map(struct symtab *t, const char *path)
{
	size_t len;
	char *text, *line, *next;
	int rc = 0, fd;

	/* named by a pid in the file, in a directory anyone writes: a link,
	 * a FIFO or a device there must not be followed, hang or flood the
	 * run */
	fd = regular_file__open(AT_FDCWD, path, NULL);
	if (fd < 0)
		return fd;
	text = read_fd(fd, MAX_PERF_MAP, &len);
	close(fd);
	if (!text)
		return -errno;
	for (line = text; !rc && line < text + len; line = next) {
		char *end = memchr(line, '\n', text + len - line), *p;
		u64 start, size;

		next = end ? end + 1 : text + len;
		if (end)
			*end = 0;
		start = strtoull(line, &p, 16);
		if (p == line || *p != ' ')
			continue;
		line = p + 1;
		size = strtoull(line, &p, 16);
		if (p == line || *p != ' ')
			continue;
		rc = symtab__add(t, start, size, p + 1, STB_GLOBAL);
	}
	free(text);
	return rc;
}

static void dso__load(struct dsos *d, struct dso *dso)
{
	struct symtab t = { .mangled = d->mangled };
	char path[PATH_MAX];
	int rc = -ENOENT;

	dso->loaded = 1;
	switch (dso->kind) {
	case DSO_ELF:
		rc = elf__load_dso(&t, dso, d->buildid_dir);
		break;
	case DSO_KALLSYMS:
		/* no sizes: of aliases the last one gets the room, as in
		 * the stock perf */
		t.last_wins = 1;
		kallsyms_path(dso, d->buildid_dir, path, sizeof(path));
		rc = load_kallsyms(&t, path);
		break;
	case DSO_VDSO:
		rc = elf__load_vdso(&t, dso);
		break;
	case DSO_PERF_MAP:
		rc = load_perf_map(&t, dso->name);
		break;
	case DSO_KSYMBOL:	/* its table comes with the record */
	case DSO_FILELESS:
		break;
	}
	if (rc) {
		symtab__exit(&t);
		return;
	}
	symtab__finish(&t, dso);
}

int dsos__open_elf(struct dsos *d, const struct dso *dso)
{
	if (dso->kind == DSO_VDSO)
		return elf__open_vdso();
	return dso->kind == DSO_ELF ? elf__open_loadable(dso, d->buildid_dir) : -ENOENT;
}

/* An ELF file offset as the virtual address its symbols are at. */
static u64 dso__vaddr(const struct dso *dso, u64 off)
{
	for (int i = 0; i < dso->nr_segs; i++)
		if (off >= dso->segs[i].off && off - dso->segs[i].off < dso->segs[i].len)
			return off - dso->segs[i].off + dso->segs[i].vaddr;
	return off;
}

/* The last of n symbols starting at or before addr, if it has addr. */
static const struct symbol *syms__find(const struct symbol *syms, size_t n, u64 addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < syms[lo - 1].end ? &syms[lo - 1] : NULL;
}

/* How many PLT entries are at or before addr, from a list sorted by
 * start. */
static size_t plt__upto(const struct dso *dso, u64 addr)
{
	const struct symbol *plt = dso->syms + dso->nr_syms;
	size_t lo = 0, hi = dso->nr_plt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (plt[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The PLT entries that start in (from, to]. */
static size_t plt__count(const struct dso *dso, u64 from, u64 to)
{
	return plt__upto(dso, to) - plt__upto(dso, from);
}

const struct symbol *dso__find(struct dsos *d, struct dso *dso, u64 addr, u64 *off)
{
	u64 h = (addr ^ (uintptr_t)dso ^ d->salt) * 0x9e3779b97f4a7c15ULL;
	struct sym_hit *hit = &d->hits[h >> 51 & (SYM_HITS - 1)];
	const struct symbol *s;
	u64 key = addr;

	if (hit->dso == dso && hit->addr == addr) {
		*off = hit->off;
		return hit->sym;
	}
	if (!dso->loaded)
		dso__load(d, dso);
	if (dso->kind == DSO_ELF || dso->kind == DSO_VDSO)
		addr = dso__vaddr(dso, addr);
	s = syms__find(dso->syms + dso->nr_syms, dso->nr_plt, addr);
	if (!s && (s = syms__find(dso->syms, dso->nr_syms, addr)) && s->stretched &&
	    plt__count(dso, s->start, addr) >= 2)
		s = NULL;
	if (s)
		*off = addr - s->start;
	*hit = (struct sym_hit){ dso, key, s ? *off : 0, s };
	return s;
}
