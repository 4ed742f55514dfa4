/* Processes' and the kernel's mappings in time order, from a file's
 * records, and sample addresses resolved against them to DSO and symbol. */
#ifndef PERF_MACHINE_H
#define PERF_MACHINE_H

#include <stdio.h>

#include "lib/id-hash.h"
#include "script/symbols.h"

/* One mapping of a process: [start, end) shows dso from file offset pgoff
 * (identity: memory with no file, whose addresses show as they are). */
struct map {
	u64 start, end, pgoff;
	struct dso *dso;
	int identity;
};

/* The processes' mappings and the kernel's, as the MMAP/MMAP2/FORK records
 * of a file build them up in time order: a sample is looked up in the
 * state at its time. */
struct machine {
	struct dsos *dsos;
	struct id_hash procs;	/* pid -> struct maps */
	size_t nr_maps;		/* in all of them */
	struct map kernel_map;	/* [kernel.kallsyms]: its addresses are its own */
	const void *bid_feature;	/* the file's BUILD_ID feature (NULL: none) */
	u64 bid_feature_size;
	u64 gen;		/* counts the changes to any process's maps */
	struct unwind_cache *unwind;	/* made on the first dwarf stack: unwind.h */
};

/* Where an address is: map NULL when no mapping has it; sym NULL when its
 * DSO has no symbol there. rel is what the stock perf shows in a
 * callchain: the DSO's file offset (the address for the kernel, an
 * anonymous map or an unknown address). */
struct addr_loc {
	const struct map *map;
	const struct symbol *sym;
	u64 rel, symoff;
};

/* 0, or -ENOMEM; machine__exit() frees what it holds (dsos stay the
 * caller's). kernel_bid: the recorded kernel's build id (length 0: not
 * known, the running kernel's functions are used). */
int machine__init(struct machine *m, struct dsos *dsos, const u8 *kernel_bid, int kernel_bid_len);

/* The kernel's build id in a HEADER_BUILD_ID feature body (size bytes,
 * checked entry by entry): its length, 0 if none is there. */
int build_id_feature__kernel(const void *body, u64 size, u8 bid[BUILD_ID_SIZE]);
/* The build id the BUILD_ID feature body gives a user-space DSO name: its
 * length with bid filled, 0 when it names none. */
int build_id_feature__find(const void *body, u64 size, const char *dso, u8 bid[BUILD_ID_SIZE]);
void machine__exit(struct machine *m);

/* What an MMAP or MMAP2 record says of a map. An MMAP has no prot: the
 * stock takes PROT_EXEC unless PERF_RECORD_MISC_MMAP_DATA, and no flags. */
struct mmap_desc {
	u64 start, len, pgoff;
	u32 prot, flags;	/* PROT_*, MAP_* (MAP_HUGETLB: no file to read) */
	const char *filename;
	const u8 *bid;
	int bid_len;		/* 0: no build id */
};

/* An MMAP or MMAP2 record of pid: pid -1 with a [kernel.kallsyms] name is
 * the kernel; later maps cut away what they overlap. 0 or -ENOMEM. */
int machine__mmap(struct machine *m, u32 pid, const struct mmap_desc *d);
/* A FORK record: a new process starts with a copy of its parent's maps
 * (clone), or with none where the stock perf's synthesized FORK says that
 * the process's own MMAPs follow (PERF_RECORD_MISC_FORK_EXEC): the
 * parent's would otherwise show through their gaps. 0 or -ENOMEM. */
int machine__fork(struct machine *m, u32 pid, u32 ppid, int clone);
/* A KSYMBOL record: kernel code at [addr, addr + len) named name (a BPF
 * program), a DSO of that name with that one symbol, as the stock perf
 * shows it; unregister: gone again. 0 or -ENOMEM. */
int machine__ksymbol(struct machine *m, u64 addr, u32 len, const char *name, int unregister);
/* pid's maps at this point of the file, sorted by address (NULL, *nr 0:
 * none), valid until the next MMAP or FORK; *gen changes whenever they do. */
const struct map *machine__user_maps(struct machine *m, u32 pid, size_t *nr, u64 *gen);
/* The map of pid that has addr, NULL if none. */
const struct map *machine__user_map(struct machine *m, u32 pid, u64 addr);
/* ip of process pid in cpumode (PERF_RECORD_MISC_KERNEL/USER). */
void machine__resolve(struct machine *m, u32 pid, u32 cpumode, u64 ip, struct addr_loc *al);

/* " name+0x1f (dso)" as perf script's sym, symoff and dso fields print
 * al, "[unknown]" for what is not known. */
void addr_loc__fprintf(const struct addr_loc *al, FILE *out, int sym, int symoff, int dso);
/* The same text at p, before end: where it ends, or NULL if it does not
 * fit. */
char *addr_loc__format(const struct addr_loc *al, char *p, const char *end, int sym, int symoff,
		       int dso);

#endif
