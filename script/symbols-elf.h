/* Between script/symbols.c and the ELF reader (libelf): a symbol table
 * being built, filled from a DSO's ELF file or from the vdso. */
#ifndef PERF_SYMBOLS_ELF_H
#define PERF_SYMBOLS_ELF_H

#include "lib/buf.h"
#include "script/symbols.h"

#include <gelf.h>

struct symtab {
	struct symbol *syms;
	size_t nr, cap;
	struct buf names;
	int last_wins;	/* of symbols at one address the last, as kallsyms is read */
	int mangled;	/* --no-demangle: C++ names as the file has them */
};

/* Adds a symbol (an empty name is skipped). 0 or -ENOMEM. */
int symtab__add(struct symtab *t, u64 start, u64 size, const char *name, u8 bind);
/* Adds a PLT entry: looked up before the others, which may have been
 * stretched over the .plt. 0 or -ENOMEM. */
int symtab__add_plt(struct symtab *t, u64 start, u64 size, const char *name);
/* Sorted, one per address, sizes fixed: the table moves into dso. */
void symtab__finish(struct symtab *t, struct dso *dso);
/* Frees what t holds. */
void symtab__exit(struct symtab *t);

/* The functions of dso->name's ELF, from the first of: the build-id cache
 * under buildid_dir, /usr/lib/debug/.build-id, the file itself, whose
 * build id is dso's (any, if dso has none) and has a .symtab, else the
 * first with a .dynsym. Fills dso's segments. 0 or -errno. */
int elf__load_dso(struct symtab *t, struct dso *dso, const char *buildid_dir);
/* A read-only descriptor of the first loadable copy of dso's ELF (the
 * build-id cache's, else the file itself) whose build id is dso's, a
 * regular file of sane size; -ENOENT if none. */
int elf__open_loadable(const struct dso *dso, const char *buildid_dir);
/* The functions of this process's vdso: the same kernel made the
 * recorded one. 0 or -errno. */
int elf__load_vdso(struct symtab *t, struct dso *dso);
/* A read-only-in-spirit descriptor of a copy of that vdso (a memfd), as
 * unwinding reads its CFI; the caller closes it. -errno if none. */
int elf__open_vdso(void);

#endif
