/* The functions of an ELF file through libelf, from wherever its build id
 * says a copy is: the build-id cache, debuginfo, or the file itself. */
#include "script/symbols-elf.h"
#include "buildid/build-id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libiberty/demangle.h>

/* A DSO bigger than this is not read: [unknown] rather than minutes. */
#define MAX_ELF_SIZE (2LL << 30)
#define MAX_VDSO_SIZE (1 << 20)

/* path as a libelf handle on *fd, if it is a regular file of sane size
 * whose build id is dso's (or dso has none); NULL otherwise. */
static Elf *elf_open(const char *path, const struct dso *dso, int *fd)
{
	u8 bid[BUILD_ID_SIZE];
	struct stat st;
	Elf *elf = NULL;

	/* O_NONBLOCK: a FIFO at a mapped path must not hang the run */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return NULL;
	/* an empty size: /proc and the like, whose reading may do things */
	if (!fstat(*fd, &st) && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(Elf32_Ehdr) &&
	    st.st_size <= MAX_ELF_SIZE) {
		elf_version(EV_CURRENT);
		/* ELF_C_READ, not _MMAP: a file cut short under us is an
		 * error, not a SIGBUS */
		elf = elf_begin(*fd, ELF_C_READ, NULL);
	}
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    (!dso->bid_len || (build_id__from_elf(elf, bid) == dso->bid_len &&
			       !memcmp(bid, dso->bid, dso->bid_len))))
		return elf;
	if (elf)
		elf_end(elf);
	close(*fd);
	return NULL;
}

static void elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

static int has_section(Elf *elf, u32 type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	return 0;
}

/* The PT_LOAD segments, to turn file offsets into symbol addresses. */
/* A C++ name as the stock perf shows it: demangled, without parameters.
 * NULL if name is not mangled; the caller frees it. */
static char *demangle(const struct symtab *t, const char *name)
{
	if (t->mangled)
		return NULL;
	return name[0] == '_' && name[1] == 'Z' ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
}

static void load_segs(struct dso *dso, Elf *elf)
{
	size_t n;
	GElf_Phdr ph;

	dso->nr_segs = 0;
	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && dso->nr_segs < (int)ARRAY_SIZE(dso->segs); i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			dso->segs[dso->nr_segs++] = (struct dso_seg){ ph.p_offset, ph.p_vaddr,
								      ph.p_filesz };
}

/* The functions (FUNC, IFUNC and label symbols defined in executable sections)
 * of elf's first symbol table of that type. 0 or -ENOMEM. */
static int load_syms(struct symtab *t, Elf *elf, u32 type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t size = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!data || !size)
		return 0;
	for (size_t i = 0; i < data->d_size / size; i++) {
		GElf_Sym sym;
		GElf_Shdr where;
		Elf_Scn *sec;
		const char *name;
		int st = 0, rc;

		if (!gelf_getsym(data, i, &sym))
			break;
		st = GELF_ST_TYPE(sym.st_info);
		/* NOTYPE: assembly labels such as _dl_start_user */
		if ((st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE)
			continue;
		sec = elf_getscn(elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &where) || !(where.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		/* demangled first: the choice among aliases is on these names */
		char *dem = demangle(t, name);

		rc = symtab__add(t, sym.st_value, sym.st_size, dem ? dem : name,
				 GELF_ST_BIND(sym.st_info));
		free(dem);
		if (rc)
			return rc;
	}
	return 0;
}

/* A section by name, NULL if none. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t strndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, strndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/* name@plt for each entry of the .plt, in the order of .rela.plt (.rel.plt)
 * after the .plt's header, one sh_entsize each, as the stock perf names
 * them. 0 or -ENOMEM. */
static int load_plt(struct symtab *t, Elf *elf)
{
	GElf_Shdr plt, rel, dyn;
	Elf_Scn *rel_scn = section(elf, ".rela.plt", &rel), *dyn_scn;
	Elf_Data *rel_data, *dyn_data;
	size_t size;
	char name[512];

	if (!rel_scn)
		rel_scn = section(elf, ".rel.plt", &rel);
	if (!rel_scn || !section(elf, ".plt", &plt) || !plt.sh_entsize ||
	    (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL))
		return 0;
	dyn_scn = elf_getscn(elf, rel.sh_link);
	if (!dyn_scn || !gelf_getshdr(dyn_scn, &dyn) || dyn.sh_type != SHT_DYNSYM)
		return 0;
	rel_data = elf_getdata(rel_scn, NULL);
	dyn_data = elf_getdata(dyn_scn, NULL);
	size = gelf_fsize(elf, rel.sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	if (!rel_data || !dyn_data || !size)
		return 0;
	for (size_t i = 0; i < rel_data->d_size / size; i++) {
		u64 info;
		GElf_Sym sym;
		const char *sname = NULL;
		int rc;

		if (rel.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rel_data, i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rel_data, i, &r))
				break;
			info = r.r_info;
		}
		if (gelf_getsym(dyn_data, GELF_R_SYM(info), &sym))
			sname = elf_strptr(elf, dyn.sh_link, sym.st_name);
		char *dem = sname ? demangle(t, sname) : NULL;

		snprintf(name, sizeof(name), "%s@plt", dem ? dem : sname ? sname : "");
		free(dem);
		rc = symtab__add_plt(t, plt.sh_addr + (i + 1) * plt.sh_entsize, plt.sh_entsize,
				     name);
		if (rc)
			return rc;
	}
	return 0;
}

static void bid_hex(char *hex, const u8 *bid, int len)
{
	for (int i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
}

/* Where copies of dso's file may be, best first: the build-id cache's
 * (the file may be gone or rebuilt since the recording; the stock perf's
 * cache links the build id to a directory that holds the file as "elf"),
 * debuginfo (index DSO_PATH_DEBUG: no loadable copy), then the file. */
enum { DSO_PATH_ELF, DSO_PATH_CACHED, DSO_PATH_DEBUG, DSO_PATH_NAME, DSO_PATHS };

struct dso_paths {
	char elf[PATH_MAX], cached[PATH_MAX], debug[PATH_MAX];
	const char *v[DSO_PATHS];	/* "" where there is none */
};

static void dso_paths(struct dso_paths *p, const struct dso *dso, const char *buildid_dir)
{
	char hex[2 * BUILD_ID_SIZE + 1] = "";
	u8 file_bid[BUILD_ID_SIZE];
	const u8 *bid = dso->bid;
	int bid_len = dso->bid_len;

	*p->elf = *p->cached = *p->debug = 0;
	p->v[DSO_PATH_ELF] = p->elf;
	p->v[DSO_PATH_CACHED] = p->cached;
	p->v[DSO_PATH_DEBUG] = p->debug;
	/* the recording names the file: a name that is no absolute path
	 * ("[vvar]", "[anon:jit]", or any a crafted file gives) is not one
	 * to open, else the current directory would choose what is read */
	p->v[DSO_PATH_NAME] = dso->name[0] == '/' ? dso->name : "";
	/* a map without a build id (the kernel's MMAP2 by default): the
	 * file's own names its debuginfo, as the stock finds it through the
	 * BUILD_ID feature */
	if (!bid_len && dso->name[0] == '/' && (bid_len = build_id__from_path(dso->name, file_bid)) > 0)
		bid = file_bid;
	if (bid_len <= 0)
		return;
	bid_hex(hex, bid, bid_len);
	snprintf(p->cached, PATH_MAX, "%s/.build-id/%.2s/%s", buildid_dir, hex, hex + 2);
	snprintf(p->elf, PATH_MAX, "%s/.build-id/%.2s/%s/elf", buildid_dir, hex, hex + 2);
	snprintf(p->debug, PATH_MAX, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
}

int elf__open_loadable(const struct dso *dso, const char *buildid_dir)
{
	struct dso_paths p;

	dso_paths(&p, dso, buildid_dir);
	for (int i = 0; i < DSO_PATHS; i++) {
		int fd;
		Elf *elf = *p.v[i] && i != DSO_PATH_DEBUG ? elf_open(p.v[i], dso, &fd) : NULL;

		if (elf) {
			elf_end(elf);
			return fd;
		}
	}
	return -ENOENT;
}

int elf__load_dso(struct symtab *t, struct dso *dso, const char *buildid_dir)
{
	struct dso_paths p;
	const char *const *paths = p.v;

	dso_paths(&p, dso, buildid_dir);
	/* the segments and the PLT from a loadable copy: a .debug file's
	 * segments may be moved, and its .plt is empty */
	for (size_t i = 0; i < DSO_PATHS && !dso->nr_segs; i++) {
		int fd, rc;
		Elf *elf = *paths[i] && i != DSO_PATH_DEBUG ? elf_open(paths[i], dso, &fd) : NULL;

		if (!elf)
			continue;
		load_segs(dso, elf);
		rc = load_plt(t, elf);
		elf_close(elf, fd);
		if (rc)
			return rc;
	}
	/* a .symtab wherever it is, else the first .dynsym */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < DSO_PATHS; i++) {
			u32 type = pass ? SHT_DYNSYM : SHT_SYMTAB;
			int fd, rc;
			Elf *elf = *paths[i] ? elf_open(paths[i], dso, &fd) : NULL;

			if (!elf)
				continue;
			if (!has_section(elf, type)) {
				elf_close(elf, fd);
				continue;
			}
			if (!dso->nr_segs)
				load_segs(dso, elf);
			rc = load_syms(t, elf, type);
			/* the stock looks for inlined functions where it found
			 * the symbols */
			free(dso->symsrc);
			dso->symsrc = strdup(paths[i]);
			elf_close(elf, fd);
			return rc;
		}
	}
	return -ENOENT;
}

/* This process's vdso image (the same kernel made the recorded one): its
 * start and size, 0 if there is none to read. */
static u64 vdso_image(const Elf64_Ehdr **image)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	u64 size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	/* the section headers come last in the image */
	size = eh->e_shoff + (u64)eh->e_shnum * eh->e_shentsize;
	*image = eh;
	return size <= MAX_VDSO_SIZE ? size : 0;
}

int elf__load_vdso(struct symtab *t, struct dso *dso)
{
	const Elf64_Ehdr *eh;
	u64 size = vdso_image(&eh);
	char *copy;
	Elf *elf;
	int rc;

	if (!size)
		return -ENOENT;
	/* libelf gets a copy it may write to, not the mapping */
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, eh, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf) {
		free(copy);
		return -EINVAL;
	}
	load_segs(dso, elf);
	rc = load_syms(t, elf, has_section(elf, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM);
	elf_end(elf);
	free(copy);
	return rc;
}

int elf__open_vdso(void)
{
	const Elf64_Ehdr *eh;
	u64 size = vdso_image(&eh);
	int fd, rc;

	if (!size)
		return -ENOENT;
	fd = memfd_create("[vdso]", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, eh, size);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}
