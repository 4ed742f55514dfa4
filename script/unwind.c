/* User stacks of --call-graph dwarf samples, unwound by libdw (libdwfl's
 * frame API) from the sample's registers and stack dump, and the inline
 * nests at each frame from the DSO's DWARF, as the stock perf shows them.
 * The dump and the registers come from the file, so they are hostile:
 * libdw reads memory only through memory_read(), which stays inside the
 * dump or a mapped file. */
#include "script/unwind.h"
#include "script/machine.h"
#include "script/symbols.h"
#include "lib/id-hash.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libiberty/demangle.h>

/* Processes whose libdw state is kept at once: each holds descriptors of
 * its DSOs' files. Past this all are let go and rebuilt as needed. */
#define MAX_PROCS 64
/* DSOs reported for one process: more maps are left out of unwinding. */
#define MAX_MODULES 1024
/* The x86_64 registers of the DWARF ABI libdw's unwinder starts from:
 * rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
#define DWARF_REGS 17
#define PERF_REG_IP 8
#define PERF_REG_SP 7

/* perf_regs.h's bit of each DWARF register */
static const int dwarf_to_perf[DWARF_REGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, PERF_REG_IP,
};

/* What one DSO gives unwinding and inline lookups, made once a run. */
struct uw_dso {
	int fd;		/* its loadable ELF (-1: none, not unwound through) */
	int et_exec;
	u64 lo, hi;	/* its PT_LOADs' addresses, the first one aligned down */
	struct dso_seg segs[8];
	int nr_segs;
	int dw_tried;	/* the DWARF of its symbols' file looked for */
	int dw_fd;
	Elf *dw_elf;
	Dwarf *dw;
	struct id_hash inlines;	/* vaddr -> struct inlines */
};

/* The functions at one address, innermost first; nr 0: no line there. */
struct inlines {
	int nr;
	char *names[];
};

/* One process's libdw session, for the maps of one generation. */
struct uw_proc {
	Dwfl *dwfl;	/* NULL: nothing to unwind with */
	u64 gen;
};

struct unwind_cache {
	struct machine *m;
	struct id_hash dsos;	/* struct dso pointer -> struct uw_dso */
	struct id_hash procs;	/* pid -> struct uw_proc */
	size_t nr_procs;
	Elf *arch;		/* an x86_64 ELF header: libdw's backend */
	char arch_ehdr[sizeof(Elf64_Ehdr)];
	/* the sample being unwound */
	const struct sample *smp;
	u64 *pcs;
	int nr, max;
};

static void uw_dso__free(struct uw_dso *d)
{
	for (size_t i = 0; i < d->inlines.cap; i++) {
		struct inlines *in = d->inlines.owners[i];

		for (int j = 0; in && j < in->nr; j++)
			free(in->names[j]);
		free(in);
	}
	id_hash__exit(&d->inlines);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->dw_elf)
		elf_end(d->dw_elf);
	if (d->dw_fd >= 0)
		close(d->dw_fd);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

static void unwind_cache__drop_procs(struct unwind_cache *c)
{
	for (size_t i = 0; i < c->procs.cap; i++) {
		struct uw_proc *p = c->procs.owners[i];

		if (p && p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
	}
	id_hash__exit(&c->procs);
	c->nr_procs = 0;
}

void unwind_cache__delete(struct unwind_cache *c)
{
	if (!c)
		return;
	unwind_cache__drop_procs(c);
	for (size_t i = 0; i < c->dsos.cap; i++)
		if (c->dsos.owners[i])
			uw_dso__free(c->dsos.owners[i]);
	id_hash__exit(&c->dsos);
	if (c->arch)
		elf_end(c->arch);
	free(c);
}

static struct unwind_cache *unwind_cache__get(struct machine *m)
{
	struct unwind_cache *c = m->unwind;
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->m = m;
	memcpy(c->arch_ehdr, &eh, sizeof(eh));
	elf_version(EV_CURRENT);
	c->arch = elf_memory(c->arch_ehdr, sizeof(c->arch_ehdr));
	if (!c->arch) {
		free(c);
		return NULL;
	}
	m->unwind = c;
	return c;
}

/* The PT_LOADs of d's file: where its module lies once mapped. */
static void uw_dso__load(struct uw_dso *d)
{
	Elf *elf = elf_begin(d->fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n;

	d->lo = ~0ULL;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || elf_getphdrnum(elf, &n))
		goto bad;
	d->et_exec = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (d->lo == ~0ULL)	/* as libdwfl places a module */
			d->lo = ph.p_align ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > d->hi && ph.p_vaddr + ph.p_memsz >= ph.p_vaddr)
			d->hi = ph.p_vaddr + ph.p_memsz;
		if (d->nr_segs < (int)ARRAY_SIZE(d->segs))
			d->segs[d->nr_segs++] = (struct dso_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	if (d->nr_segs && d->lo < d->hi) {
		elf_end(elf);
		return;
	}
bad:
	if (elf)
		elf_end(elf);
	close(d->fd);
	d->fd = -1;
}

/* The run's state of dso, made on first use; NULL without memory. */
static struct uw_dso *uw_dso__get(struct unwind_cache *c, struct dso *dso)
{
	struct uw_dso *d = id_hash__find(&c->dsos, (uintptr_t)dso);

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dw_fd = -1;
	d->fd = dsos__open_elf(c->m->dsos, dso);
	if (d->fd >= 0)
		uw_dso__load(d);
	if (id_hash__add(&c->dsos, (uintptr_t)dso, d)) {
		uw_dso__free(d);
		return NULL;
	}
	return d;
}

/* How far map puts d's addresses from the file's: the PT_LOAD that holds
 * the map's file offset says. 0 when none does. */
static int uw_dso__bias(const struct uw_dso *d, const struct map *map, u64 *bias)
{
	for (int i = 0; i < d->nr_segs; i++) {
		const struct dso_seg *s = &d->segs[i];
		u64 page_off = s->off & ~4095ULL;

		if (map->pgoff >= page_off && map->pgoff - page_off <= s->len + (s->off - page_off)) {
			*bias = map->start - map->pgoff + s->off - s->vaddr;
			return 1;
		}
	}
	return 0;
}

/* libdw's find_elf: the module's own descriptor, read with pread (a file
 * cut short under us is an error, never a SIGBUS). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct uw_dso *d = *userdata;
	int fd = d ? dup(d->fd) : -1;

	(void)mod, (void)name, (void)base;
	*file_name = NULL;
	*elfp = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!*elfp && fd >= 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* No separate debuginfo: the CFI of the loaded file (.eh_frame) is what
 * unwinding uses. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Reports map's DSO as a module of dwfl, once: *seen tracks them. */
static void report_map(struct unwind_cache *c, Dwfl *dwfl, const struct map *map,
		       struct id_hash *seen)
{
	struct uw_dso *d;
	Dwfl_Module *mod;
	void **ud;
	u64 bias;

	if (map->identity || (map->dso->kind != DSO_ELF && map->dso->kind != DSO_VDSO) ||
	    id_hash__find(seen, (uintptr_t)map->dso) ||
	    seen->nr >= MAX_MODULES || id_hash__add(seen, (uintptr_t)map->dso, map->dso))
		return;
	d = uw_dso__get(c, map->dso);
	if (!d || d->fd < 0 || !uw_dso__bias(d, map, &bias))
		return;
	if (d->et_exec)
		bias = 0;
	/* overlapping modules (a crafted file) are refused by libdw */
	mod = dwfl_report_module(dwfl, map->dso->name, d->lo + bias, d->hi + bias);
	if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = d;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_cache *c = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = c;
	return (pid_t)c->smp->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

/* The value of perf register bit in smp's user registers. */
static int user_reg(const struct sample *smp, int bit, u64 *v)
{
	const struct sample_regs *r = &smp->uregs;

	if (!r->regs || !(r->mask & (1ULL << bit)))
		return 0;
	*v = r->regs[__builtin_popcountll(r->mask & ((1ULL << bit) - 1))];
	return 1;
}

/* A word of the stack dump, else of the file mapped there, as the stock
 * reads it: the dump is [sp, sp + dyn_size) less its last word. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_cache *c = arg;
	const struct sample *smp = c->smp;
	u64 sp, size = MIN(smp->stack_dyn_size, smp->stack_size), off;
	const struct map *map;
	struct uw_dso *d;

	(void)dwfl;
	if (!user_reg(smp, PERF_REG_SP, &sp) || addr + 8 < addr)
		return false;
	if (addr >= sp && addr - sp < size && size - (addr - sp) > 8) {
		memcpy(result, (const char *)smp->stack + (addr - sp), 8);
		return true;
	}
	map = machine__user_map(c->m, smp->pid, addr);
	if (!map || map->identity || (map->dso->kind != DSO_ELF && map->dso->kind != DSO_VDSO))
		return false;
	d = uw_dso__get(c, map->dso);
	off = addr - map->start + map->pgoff;
	if (!d || d->fd < 0 || off < map->pgoff || (off_t)off < 0)
		return false;
	return pread(d->fd, result, 8, (off_t)off) == 8;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_cache *c = arg;
	u64 v;

	for (int i = 0; i < DWARF_REGS; i++) {
		Dwarf_Word w;

		if (!user_reg(c->smp, dwarf_to_perf[i], &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, i, 1, &w))
			return false;
	}
	if (!user_reg(c->smp, PERF_REG_IP, &v))
		return false;
	dwfl_thread_state_register_pc(thread, v);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* A libdw session with the DSOs of pid's maps of now; NULL if none. */
static Dwfl *proc_dwfl(struct unwind_cache *c, u32 pid)
{
	u64 gen;
	size_t nr;
	const struct map *maps = machine__user_maps(c->m, pid, &nr, &gen);
	struct id_hash seen = { 0 };
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < nr; i++)
		report_map(c, dwfl, &maps[i], &seen);
	id_hash__exit(&seen);
	if (dwfl_report_end(dwfl, NULL, NULL) ||
	    !dwfl_attach_state(dwfl, c->arch, (pid_t)pid, &thread_callbacks, c)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* pid's session for its maps of now, kept while they stay. */
static Dwfl *unwind_cache__proc(struct unwind_cache *c, u32 pid)
{
	struct uw_proc *p = id_hash__find(&c->procs, pid);
	size_t nr;
	u64 gen;

	machine__user_maps(c->m, pid, &nr, &gen);
	if (p && p->gen == gen)
		return p->dwfl;
	if (!p) {
		if (c->nr_procs >= MAX_PROCS)
			unwind_cache__drop_procs(c);
		p = calloc(1, sizeof(*p));
		if (!p || id_hash__add(&c->procs, pid, p)) {
			free(p);
			return NULL;
		}
		c->nr_procs++;
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = proc_dwfl(c, pid);
	p->gen = gen;
	return p->dwfl;
}

/* Whether the stock's unwinder goes on from a frame at pc: only where the
 * process maps a file there that it can read CFI from; otherwise its
 * find_proc_info fails and the stack ends. libdw would guess a caller from
 * the frame pointer instead: code in the stack, the heap, a JIT's memory,
 * or a file that is gone, ends the stack here too. (Where the file is
 * there but its CFI does not cover pc, both fall back to the frame
 * pointer.) */
static int has_cfi(struct unwind_cache *c, u64 pc)
{
	const struct map *map = machine__user_map(c->m, c->smp->pid, pc);
	struct uw_dso *d;

	if (!map || map->identity || (map->dso->kind != DSO_ELF && map->dso->kind != DSO_VDSO))
		return 0;
	d = uw_dso__get(c, map->dso);
	return d && d->fd >= 0;
}

/* Each frame's pc after the first (the ip, already there). */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind_cache *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a return address is after the call: its last byte is the caller's */
	if (!activation)
		pc--;
	if (c->nr++)
		c->pcs[c->nr - 1] = pc;
	if (c->nr >= c->max || !has_cfi(c, pc))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

int unwind__has_stack(const struct sample *smp)
{
	u64 ip;

	return smp->uregs.regs && smp->stack && smp->stack_dyn_size &&
	       user_reg(smp, PERF_REG_IP, &ip);
}

int unwind__user_frames(struct machine *m, const struct sample *smp, u64 *pcs, int max)
{
	struct unwind_cache *c;
	Dwfl *dwfl;
	u64 ip;

	if (max <= 0 || !user_reg(smp, PERF_REG_IP, &ip))
		return 0;
	pcs[0] = ip;
	c = unwind_cache__get(m);
	if (max == 1 || !c || !(dwfl = unwind_cache__proc(c, smp->pid)))
		return 1;
	c->smp = smp;
	c->pcs = pcs;
	c->nr = 0;
	c->max = max;
	/* an error ends the stack where it happens: what came before stays */
	dwfl_getthread_frames(dwfl, (pid_t)smp->tid, frame_cb, c);
	c->smp = NULL;
	return c->nr > 1 ? c->nr : 1;
}

static char *symtab_lookup(Elf *elf, u64 addr, u64 *value);

/* The DWARF of the file dso's symbols came from (where the stock asks
 * addr2line about inlines), opened once a run; NULL if it has none. */
static Dwarf *uw_dso__dwarf(struct uw_dso *d, const struct dso *dso)
{
	struct stat st;

	if (d->dw_tried)
		return d->dw;
	d->dw_tried = 1;
	if (!dso->symsrc)
		return NULL;
	/* O_NONBLOCK: a FIFO put there must not hang the run */
	d->dw_fd = open(dso->symsrc, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (d->dw_fd < 0 || fstat(d->dw_fd, &st) || !S_ISREG(st.st_mode))
		return NULL;
	/* ELF_C_READ: a file cut short under us is an error, not a SIGBUS */
	d->dw_elf = elf_begin(d->dw_fd, ELF_C_READ, NULL);
	if (d->dw_elf && elf_kind(d->dw_elf) == ELF_K_ELF)
		d->dw = dwarf_begin_elf(d->dw_elf, DWARF_C_READ, NULL);
	return d->dw;
}

/* A function's name as addr2line gives it (its linkage name first),
 * demangled as the symbols are; the caller frees it. */
static char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;
	const char *name = NULL;
	char *dem;

	for (size_t i = 0; i < ARRAY_SIZE(attrs) && !name; i++)
		name = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &a));
	if (!name)
		return strdup("??");
	dem = name[0] == '_' && name[1] == 'Z' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
	return dem ? dem : strdup(name);
}

/* Of two symbols at or below addr, whether b is the one libbfd's
 * elf_find_function keeps over a (the first in the table of those that
 * fit best). */
static int bfd_better(const GElf_Sym *a, const GElf_Sym *b, u64 addr)
{
	int a_func = GELF_ST_TYPE(a->st_info) != STT_NOTYPE;
	int b_func = GELF_ST_TYPE(b->st_info) != STT_NOTYPE;

	if (b->st_value != a->st_value)
		return b->st_value > a->st_value;
	if (a->st_value + a->st_size <= addr)	/* a falls short: the longer */
		return b->st_size > a->st_size;
	if (b->st_value + b->st_size <= addr)
		return 0;
	if (a_func != b_func)
		return b_func;
	return b->st_size < a->st_size;
}

/* The symbol libbfd finds for addr in elf's .symtab, where addr2line
 * takes a function's name from: its name (the caller frees it) and
 * *value; NULL if none. */
static char *symtab_lookup(Elf *elf, u64 addr, u64 *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym, best = { 0 };
	Elf_Data *data;
	size_t n, best_i = 0;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn || !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return NULL;
	n = data->d_size / sh.sh_entsize;
	for (size_t i = 0; i < n && gelf_getsym(data, i, &sym); i++) {
		int t = GELF_ST_TYPE(sym.st_info);

		if ((t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_value > addr || (found && !bfd_better(&best, &sym, addr)))
			continue;
		best = sym;
		best_i = i;
		found = 1;
	}
	const char *name = found && gelf_getsym(data, best_i, &sym) ?
			   elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;

	*value = sym.st_value;
	return name && *name ? strdup(name) : NULL;
}

/* cu was made by GNU as (its functions are .type symbols). */
static int from_assembler(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	return producer && !strncmp(producer, "GNU AS", 6);
}

/* The function the assembler's DWARF gives vaddr, as addr2line (libbfd)
 * picks it: gas writes a DW_TAG_subprogram for each function symbol, the
 * aliases of one function (munmap, __munmap, __GI_munmap...) with the
 * same range, and of those covering vaddr the smallest range wins, a tie
 * going to the one written last. NULL if none covers it. */
static char *asm_function(Dwarf_Die *cu, u64 vaddr)
{
	Dwarf_Die die, best;
	Dwarf_Addr lo, hi;
	u64 best_len = UINT64_MAX;
	int found = 0;

	if (dwarf_child(cu, &die))
		return NULL;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_lowpc(&die, &lo) ||
		    dwarf_highpc(&die, &hi) || vaddr < lo || vaddr >= hi || hi - lo > best_len)
			continue;
		best = die;
		best_len = hi - lo;
		found = 1;
	} while (!dwarf_siblingof(&die, &die));
	return found ? die_name(&best) : NULL;
}

/* The functions at vaddr of dw, innermost first up to the one holding
 * them; none where no line is known (addr2line's "??:0"). NULL without
 * memory. */
static struct inlines *inlines__new(Elf *elf, Dwarf *dw, u64 vaddr)
{
	struct inlines *in = calloc(1, sizeof(*in) + UNWIND_MAX_INLINES * sizeof(char *));
	Dwarf_Die cu, *scopes = NULL;
	int n;

	if (!in || !dwarf_addrdie(dw, vaddr, &cu) || !dwarf_getsrc_die(&cu, vaddr))
		return in;
	/* dwarf_getscopes() goes on from an inlined instance to its abstract
	 * definition's scopes; the instances it is nested in are the
	 * innermost scope's parents in the tree */
	/* the assembler's functions have aliases of the same range, which
	 * addr2line chooses among otherwise (asm_function()) */
	n = from_assembler(&cu) ? 0 : dwarf_getscopes(&cu, vaddr, &scopes);
	if (n > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	for (int i = 0; i < n && in->nr < UNWIND_MAX_INLINES; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		in->names[in->nr] = die_name(&scopes[i]);
		if (!in->names[in->nr])
			break;
		in->nr++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	/* a line but no function (assembly): addr2line names the
	 * assembler's function there, else the symbol, as libbfd picks them */
	if (!in->nr) {
		u64 value;

		in->names[0] = from_assembler(&cu) ? asm_function(&cu, vaddr) : NULL;
		if (!in->names[0])
			in->names[0] = symtab_lookup(elf, vaddr, &value);
		in->nr = 1;
		if (!in->names[0] && !(in->names[0] = strdup("??")))
			in->nr = 0;
	}
	return in;
}

/* The inline nest at vaddr of dso, looked up once a run; NULL if none. */
static const struct inlines *unwind_cache__inlines(struct unwind_cache *c, struct dso *dso,
						   u64 vaddr)
{
	struct uw_dso *d = uw_dso__get(c, dso);
	struct inlines *in;
	Dwarf *dw;

	if (!d || !(dw = uw_dso__dwarf(d, dso)))
		return NULL;
	in = id_hash__find(&d->inlines, vaddr);
	if (!in && (in = inlines__new(d->dw_elf, dw, vaddr)) && id_hash__add(&d->inlines, vaddr, in)) {
		for (int i = 0; i < in->nr; i++)
			free(in->names[i]);
		free(in);
		in = NULL;
	}
	return in && in->nr ? in : NULL;
}

/* One frame: its address in its DSO, then the functions inlined there,
 * each as the stock shows a function it made up for one: the symbol's
 * offset, "(inlined)" in the place of the DSO. */
static void print_frame(struct machine *m, const struct addr_loc *al, FILE *out, int sym,
			int symoff, int dso)
{
	const struct inlines *in = NULL;
	const char *base;

	if (al->sym && al->map->dso->kind == DSO_ELF && unwind_cache__get(m))
		in = unwind_cache__inlines(m->unwind, al->map->dso, al->sym->start + al->symoff);
	for (int i = 0; i < (in ? in->nr : 1); i++) {
		fprintf(out, "\t%16llx", (unsigned long long)al->rel);
		base = al->sym ? symbol__name(al->map->dso, al->sym) : NULL;
		if (!in || !strcmp(in->names[i], base)) {
			addr_loc__fprintf(al, out, sym, symoff, dso);
		} else {
			if (sym)
				fprintf(out, " %s", in->names[i]);
			if (sym && symoff)
				fprintf(out, "+0x%llx", (unsigned long long)al->symoff);
			fprintf(out, " (inlined)");
		}
		fputc('\n', out);
	}
}

void unwind__print(struct machine *m, const struct sample *smp, int max, FILE *out, int sym,
		   int symoff, int dso)
{
	/* the dump is under 64 KiB: no more frames than its words */
	u64 *pcs = malloc(MIN(max, 8192) * sizeof(*pcs));
	int n = pcs ? unwind__user_frames(m, smp, pcs, MIN(max, 8192)) : 0;

	for (int i = 0; i < n; i++) {
		struct addr_loc al;

		if (!pcs[i])	/* as the stock: a zero pc is no frame */
			continue;
		machine__resolve(m, smp->pid, PERF_RECORD_MISC_USER, pcs[i], &al);
		print_frame(m, &al, out, sym, symoff, dso);
	}
	free(pcs);
}
