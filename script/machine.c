/* Mappings of processes and of the kernel, built from a file's records in
 * time order, and addresses resolved against them. */
#include "script/machine.h"
#include "script/symbols-elf.h"
#include "script/line.h"
#include "script/unwind.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The maps of the kernel's code that KSYMBOL records name, kept among the
 * processes' under a pid no process has. */
#define KSYMBOL_PID ((u32)-1)
/* Where the kernel is when the file has no MMAP for it: the upper half. */
#define KERNEL_START_DEFAULT 0xffff800000000000ULL
/* Maps beyond these are not followed (their addresses are unknown): a
 * crafted file could otherwise copy a huge process at every FORK. */
#define MAX_MAPS (1u << 16)		/* of one process: the kernel's max_map_count */
#define MAX_MAPS_TOTAL (8u << 20)	/* of all: 320 MB */

struct maps {
	struct map *v;	/* sorted, not overlapping */
	size_t nr, cap;
	u64 gen;	/* changes with v: what the unwinder built on them is stale */
};

/* perf's flag on a HEADER_BUILD_ID entry: the size byte after the 20
 * bytes of the id says how many are used */
#define MISC_BUILD_ID_SIZE (1 << 15)
/* header, pid, then 20 bytes of id, its size and 3 spare, then the name */
#define BID_ENTRY_NAME 36

static int build_id_feature__lookup(const void *body, u64 size, const char *dso, int kernel,
				    u8 bid[BUILD_ID_SIZE]);

int build_id_feature__kernel(const void *body, u64 size, u8 bid[BUILD_ID_SIZE])
{
	return build_id_feature__lookup(body, size, "[kernel.kallsyms]", 1, bid);
}

int build_id_feature__find(const void *body, u64 size, const char *dso, u8 bid[BUILD_ID_SIZE])
{
	return build_id_feature__lookup(body, size, dso, 0, bid);
}

static int build_id_feature__lookup(const void *body, u64 size, const char *dso, int kernel,
				    u8 bid[BUILD_ID_SIZE])
{
	const char *b = body;
	u64 off = 0;

	while (size - off >= BID_ENTRY_NAME) {
		struct perf_event_header h;
		const char *name = b + off + BID_ENTRY_NAME;

		memcpy(&h, b + off, sizeof(h));
		if (h.size < BID_ENTRY_NAME || h.size > size - off)
			return 0;
		if (((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) == kernel &&
		    memchr(name, 0, h.size - BID_ENTRY_NAME) && !strcmp(name, dso)) {
			int len = h.misc & MISC_BUILD_ID_SIZE ? (u8)b[off + 12 + BUILD_ID_SIZE] :
				  BUILD_ID_SIZE;

			len = MIN(len, BUILD_ID_SIZE);
			memcpy(bid, b + off + 12, len);
			return len;
		}
		off += h.size;
	}
	return 0;
}

int machine__init(struct machine *m, struct dsos *dsos, const u8 *kernel_bid, int kernel_bid_len)
{
	memset(m, 0, sizeof(*m));
	m->dsos = dsos;
	m->kernel_map.start = KERNEL_START_DEFAULT;
	m->kernel_map.end = ~0ULL;
	m->kernel_map.dso = dsos__get(dsos, DSO_KALLSYMS, "[kernel.kallsyms]", kernel_bid,
				      kernel_bid_len);
	m->kernel_map.identity = 1;
	return m->kernel_map.dso ? 0 : -ENOMEM;
}

void machine__exit(struct machine *m)
{
	unwind_cache__delete(m->unwind);
	for (size_t i = 0; i < m->procs.cap; i++) {
		struct maps *p = m->procs.owners[i];

		if (p)
			free(p->v);
		free(p);
	}
	id_hash__exit(&m->procs);
}

/* pid's maps, made empty on first use; NULL without memory. */
static struct maps *machine__maps(struct machine *m, u32 pid)
{
	struct maps *p = id_hash__find(&m->procs, pid);

	if (!p && (p = calloc(1, sizeof(*p))) && id_hash__add(&m->procs, pid, p)) {
		free(p);
		p = NULL;
	}
	return p;
}

static int maps__reserve(struct maps *p, size_t nr)
{
	struct map *n;
	size_t cap = p->cap ? p->cap : 16;

	if (nr <= p->cap)
		return 0;
	while (cap < nr)
		cap *= 2;
	n = realloc(p->v, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->v = n;
	p->cap = cap;
	return 0;
}

/* Puts map in, keeping what sticks out of it of the maps it overlaps. */
static int maps__insert(struct machine *m, struct maps *p, const struct map *map)
{
	size_t lo = 0, hi, nr_new = 0, nr_old = p->nr;
	struct map add[3];

	if (p->nr >= MAX_MAPS || m->nr_maps >= MAX_MAPS_TOTAL)
		return 0;
	if (maps__reserve(p, p->nr + 3))
		return -ENOMEM;
	/* the first map ending after map's start; the maps do not overlap,
	 * so their ends are sorted too */
	for (size_t top = p->nr; lo < top;) {
		size_t mid = lo + (top - lo) / 2;

		if (p->v[mid].end <= map->start)
			lo = mid + 1;
		else
			top = mid;
	}
	for (hi = lo; hi < p->nr && p->v[hi].start < map->end; hi++)
		;
	if (lo < hi && p->v[lo].start < map->start) {
		add[nr_new] = p->v[lo];
		add[nr_new++].end = map->start;
	}
	add[nr_new++] = *map;
	if (lo < hi && p->v[hi - 1].end > map->end) {
		struct map right = p->v[hi - 1];

		if (!right.identity)
			right.pgoff += map->end - right.start;
		right.start = map->end;
		add[nr_new++] = right;
	}
	p->gen = ++m->gen;
	memmove(p->v + lo + nr_new, p->v + hi, (p->nr - hi) * sizeof(*p->v));
	memcpy(p->v + lo, add, nr_new * sizeof(*add));
	p->nr = p->nr - (hi - lo) + nr_new;
	m->nr_maps += p->nr - nr_old;
	return 0;
}

/* Memory with no file behind it, as the stock perf tells it by name:
 * anonymous maps (and hugetlbfs, whatever its name) and the kernel's
 * pseudo names of the stack, the heap and SysV shared memory. Their
 * addresses show as they are, and no file of their name is ever opened:
 * "[stack]" or "[heap]" would be one in the current directory. */
static int is_fileless(const char *name, u32 flags)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || (flags & MAP_HUGETLB) ||
	       !strncmp(name, "[stack", 6) || !strncmp(name, "/SYSV", 5) || !strcmp(name, "[heap]");
}

int machine__mmap(struct machine *m, u32 pid, const struct mmap_desc *d)
{
	struct map map = { d->start, d->start + d->len, d->pgoff, NULL, 0 };
	const char *filename = d->filename;
	char perf_map[64];
	struct maps *p;

	if (!d->len || map.end < d->start)
		return 0;
	if (pid == (u32)-1) {
		/* modules and the rest of the kernel's maps are not followed,
		 * so the kernel's reaches up to the top, over .init.text and
		 * whatever kallsyms knows above its text, as in the stock perf
		 * on a machine without modules */
		if (!strncmp(filename, "[kernel.kallsyms]", 17))
			m->kernel_map.start = d->start;
		return 0;
	}
	if (is_fileless(filename, d->flags)) {
		map.identity = 1;
		/* JITs describe such code in a perf map, by address; data
		 * there (a return address into the stack) has no symbols */
		if (d->prot & PROT_EXEC) {
			snprintf(perf_map, sizeof(perf_map), "/tmp/perf-%u.map", pid);
			map.dso = dsos__get(m->dsos, DSO_PERF_MAP, perf_map, NULL, 0);
		} else {
			map.dso = dsos__get(m->dsos, DSO_FILELESS, filename, NULL, 0);
		}
	} else if (!strncmp(filename, "/tmp/perf-", 10)) {
		/* the stock reads any file named so as a JIT's perf map, and
		 * an ELF file there then has no symbols */
		map.dso = dsos__get(m->dsos, DSO_PERF_MAP, filename, NULL, 0);
	} else {
		const u8 *bid = d->bid;
		int bid_len = d->bid_len;
		u8 fbid[BUILD_ID_SIZE];

		/* a map without one (the kernel's MMAP2 by default): the id the
		 * file's BUILD_ID feature gives that name, as the stock reads it */
		if (!bid_len && m->bid_feature &&
		    (bid_len = build_id_feature__find(m->bid_feature, m->bid_feature_size, filename,
						      fbid)) > 0)
			bid = fbid;
		map.dso = dsos__get(m->dsos, strcmp(filename, "[vdso]") ? DSO_ELF : DSO_VDSO,
				    filename, bid, bid_len);
	}
	p = machine__maps(m, pid);
	if (!map.dso || !p)
		return -ENOMEM;
	return maps__insert(m, p, &map);
}

int machine__fork(struct machine *m, u32 pid, u32 ppid, int clone)
{
	struct maps *child, *parent;

	if (pid == ppid)	/* a thread: it shares the maps */
		return 0;
	child = machine__maps(m, pid);
	parent = machine__maps(m, ppid);
	if (!child || !parent)
		return -ENOMEM;
	/* a reused pid forgets its earlier process */
	m->nr_maps -= child->nr;
	child->nr = 0;
	child->gen = ++m->gen;
	if (!clone || m->nr_maps + parent->nr > MAX_MAPS_TOTAL)
		return 0;
	if (maps__reserve(child, parent->nr))
		return -ENOMEM;
	if (parent->nr)
		memcpy(child->v, parent->v, parent->nr * sizeof(*parent->v));
	child->nr = parent->nr;
	m->nr_maps += child->nr;
	return 0;
}

int machine__ksymbol(struct machine *m, u64 addr, u32 len, const char *name, int unregister)
{
	struct maps *p = machine__maps(m, KSYMBOL_PID);
	struct map map = { addr, addr + len, 0, NULL, 1 };
	struct symtab t = { 0 };

	if (!p)
		return -ENOMEM;
	if (unregister) {
		for (size_t i = 0; i < p->nr; i++) {
			if (p->v[i].start == addr) {
				memmove(p->v + i, p->v + i + 1, (p->nr - i - 1) * sizeof(*p->v));
				p->nr--;
				m->nr_maps--;
				break;
			}
		}
		return 0;
	}
	if (!len || map.end < addr)
		return 0;
	map.dso = dsos__get(m->dsos, DSO_KSYMBOL, name, NULL, 0);
	if (!map.dso)
		return -ENOMEM;
	/* one table a name: a program loaded again elsewhere keeps the
	 * first one's address, unlikely enough not to be worth a copy */
	if (!map.dso->loaded) {
		map.dso->loaded = 1;
		if (symtab__add(&t, addr, len, name, STB_GLOBAL)) {
			symtab__exit(&t);
			return -ENOMEM;
		}
		symtab__finish(&t, map.dso);
	}
	return maps__insert(m, p, &map);
}

static const struct map *maps__find(const struct maps *p, u64 ip)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr && p->v[lo].start <= ip ? &p->v[lo] : NULL;
}

const struct map *machine__user_maps(struct machine *m, u32 pid, size_t *nr, u64 *gen)
{
	const struct maps *p = id_hash__find(&m->procs, pid);

	*nr = p ? p->nr : 0;
	*gen = p ? p->gen : 0;
	return p ? p->v : NULL;
}

const struct map *machine__user_map(struct machine *m, u32 pid, u64 addr)
{
	const struct maps *p = id_hash__find(&m->procs, pid);

	return p ? maps__find(p, addr) : NULL;
}

void machine__resolve(struct machine *m, u32 pid, u32 cpumode, u64 ip, struct addr_loc *al)
{
	struct maps *p;

	memset(al, 0, sizeof(*al));
	al->rel = ip;
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		p = id_hash__find(&m->procs, KSYMBOL_PID);
		al->map = p ? maps__find(p, ip) : NULL;
		if (!al->map && ip >= m->kernel_map.start && ip < m->kernel_map.end)
			al->map = &m->kernel_map;
		if (!al->map)
			return;
	} else if (cpumode == PERF_RECORD_MISC_USER) {
		p = id_hash__find(&m->procs, pid);
		al->map = p ? maps__find(p, ip) : NULL;
		if (!al->map)
			return;
		if (!al->map->identity)
			al->rel = ip - al->map->start + al->map->pgoff;
	} else {
		return;
	}
	al->sym = dso__find(m->dsos, al->map->dso, al->rel, &al->symoff);
}

/* Appends n bytes of src at *p if they fit before end (0 if not). */
static int put(char **p, const char *end, const char *src, size_t n)
{
	if ((size_t)(end - *p) < n)
		return 0;
	memcpy(*p, src, n);
	*p += n;
	return 1;
}

char *addr_loc__format(const struct addr_loc *al, char *p, const char *end, int sym, int symoff,
		       int dso)
{
	char num[20], *h = num + sizeof(num);
	const char *dso_name = al->map ? al->map->dso->name : "[unknown]";
	size_t dso_len = al->map ? al->map->dso->name_len : 9;
	int ok = 1;

	if (sym && al->sym) {
		const char *name = symbol__name(al->map->dso, al->sym);

		ok = put(&p, end, " ", 1) && put(&p, end, name, al->sym->name_len);
		if (symoff) {
			h = line__digits(h, al->symoff, 1);
			ok = ok && put(&p, end, "+0x", 3) && put(&p, end, h, num + sizeof(num) - h);
		}
	} else if (sym) {
		ok = put(&p, end, " [unknown]", 10);
	}
	if (dso)
		ok = ok && put(&p, end, " (", 2) && put(&p, end, dso_name, dso_len) &&
		     put(&p, end, ")", 1);
	return ok ? p : NULL;
}

/* Built without printf and written at once; piece by piece where the
 * names are too long for the line (a name of 4 GB or more is not
 * counted: printed with fprintf). */
void addr_loc__fprintf(const struct addr_loc *al, FILE *out, int sym, int symoff, int dso)
{
	char line[512];
	char *p = addr_loc__format(al, line, line + sizeof(line), sym, symoff, dso);

	if (p) {
		fwrite_unlocked(line, 1, p - line, out);
		return;
	}
	if (sym)
		fprintf(out, " %s", al->sym ? symbol__name(al->map->dso, al->sym) : "[unknown]");
	if (sym && al->sym && symoff)
		fprintf(out, "+0x%llx", (unsigned long long)al->symoff);
	if (dso)
		fprintf(out, " (%s)", al->map ? al->map->dso->name : "[unknown]");
}
