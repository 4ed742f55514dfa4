/* Symbol tables for perf script: the DSOs a file's samples hit, each with
 * its functions sorted by address, read once a run. */
#ifndef PERF_SYMBOLS_H
#define PERF_SYMBOLS_H

#include "util/event.h"

/* A function of a DSO, in the DSO's own address space (ELF virtual
 * addresses; kernel addresses for kallsyms; run-time ones for a perf map). */
struct symbol {
	u64 start, end;
	u64 name;	/* offset in its dso's name arena */
	u8 bind;	/* STB_*: picks one of several symbols at one address */
	u8 plt;		/* a PLT entry, name@plt: in the table after the others */
	/* no size: it reaches up to the next symbol, over the PLT's entries
	 * in between. The stock perf keeps them all in one tree, where the
	 * entries inserted after it lift themselves above it once there are
	 * two: its search no longer meets it past the second entry's start
	 * (.plt.got after .init's _init: [unknown]) */
	u8 stretched;
	u32 name_len;	/* strlen of its name: printed without counting */
};

enum dso_kind {
	DSO_ELF,	/* a file, its build-id cache entry or its debuginfo */
	DSO_KALLSYMS,	/* [kernel.kallsyms]: /proc/kallsyms, or the cache's copy of
			 * another kernel's */
	DSO_VDSO,	/* [vdso]: this process's own, as the kernel is the same */
	DSO_PERF_MAP,	/* anonymous code (a JIT's): /tmp/perf-PID.map if there is one */
	DSO_FILELESS,	/* anonymous data, the stack, the heap: no symbols, no file */
	DSO_KSYMBOL,	/* kernel code a KSYMBOL record names (a BPF program): its
			 * one symbol is made from the record */
};

/* The first PT_LOAD segments of an ELF file: a file offset inside one is
 * turned into the virtual address its symbols use. */
struct dso_seg {
	u64 off, vaddr, len;
};

struct dso {
	char *name;	/* what -F dso prints between parentheses */
	size_t name_len;
	enum dso_kind kind;
	u8 bid[BUILD_ID_SIZE];
	int bid_len;	/* 0: the file said no build id */
	int loaded;	/* symbols read (or found unreadable): only once a run */
	struct symbol *syms;	/* sorted by start, one per start; then the PLT's */
	size_t nr_syms, nr_plt;
	char *names;
	struct dso_seg segs[8];
	int nr_segs;
	char *symsrc;	/* the file the symbols came from (NULL: none) */
	struct dso *next;	/* in its hash chain */
};

struct dsos;

/* The DSOs of one run of perf script, each read at most once. buildid_dir
 * is the build-id cache (NULL: $PERF_BUILDID_DIR, else ~/.debug). NULL
 * with errno set; freed with dsos__delete(). */
struct dsos *dsos__new(const char *buildid_dir);
void dsos__delete(struct dsos *d);
/* demangle 0 (--no-demangle): C++ names as their files spell them, for
 * the DSOs read from now on. */
void dsos__set_demangle(struct dsos *d, int demangle);

/* The DSO named name with that build id (bid_len 0: none known), made on
 * first use; its symbols are read when first looked up. NULL without
 * memory. The dso belongs to d. */
struct dso *dsos__get(struct dsos *d, enum dso_kind kind, const char *name, const u8 *bid,
		      int bid_len);

/* The symbol at addr, NULL if none or the DSO cannot be read (a broken,
 * huge or missing file is [unknown], never an error). For DSO_ELF addr is a
 * file offset (what an mmap's pgoff counts), for the others the address
 * itself. *off gets addr's offset from the symbol's start. */
const struct symbol *dso__find(struct dsos *d, struct dso *dso, u64 addr, u64 *off);

/* A read-only descriptor of dso's ELF file as it was recorded (its
 * build-id cache copy first), checked as the symbols' files are, or of a
 * copy of the vdso: the caller closes it. -ENOENT when there is none (a
 * kernel, a JIT map, memory with no file). */
int dsos__open_elf(struct dsos *d, const struct dso *dso);

/* s's name, owned by dso. */
static inline const char *symbol__name(const struct dso *dso, const struct symbol *s)
{
	return dso->names + s->name;
}

#endif
