/* Symbol tables and maps for perf script -F sym,dso: the stock perf's rules
 * on made-up tables, this very binary looked up through /proc/self/maps,
 * the build-id cache, and broken files that must come out as no symbol. */
#include "tests/tests.h"
#include "script/machine.h"
#include "script/symbols-elf.h"
#include "buildid/build-id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether addr is NAME+OFF in dso ("" for no symbol); says what it is if not. */
static int is_at(struct dsos *d, struct dso *dso, u64 addr, const char *want)
{
	char out[128] = "";
	const struct symbol *s;
	u64 off;

	s = dso__find(d, dso, addr, &off);
	if (s)
		snprintf(out, sizeof(out), "%s+%#llx", symbol__name(dso, s), (unsigned long long)off);
	if (strcmp(out, want))
		fprintf(stderr, "  %s %#llx: '%s', not '%s'\n", dso->name, (unsigned long long)addr,
			out, want);
	return !strcmp(out, want);
}

/* A DSO with the table t, as if read from a file. */
static struct dso *made_up(struct dsos *d, const char *name, struct symtab *t)
{
	struct dso *dso = dsos__get(d, DSO_PERF_MAP, name, NULL, 0);

	if (dso) {
		dso->loaded = 1;
		symtab__finish(t, dso);
	}
	return dso;
}

static int test_rules(void)
{
	static const struct {
		u64 start, size;
		const char *name;
		u8 bind;
	} syms[] = {
		/* sizeless symbols reach to the next one */
		{ 0x1000, 0, "_init", STB_GLOBAL }, { 0x1100, 0x10, "sized", STB_GLOBAL },
		/* aliases: a size, then not weak, then global, then fewer
		 * leading underscores, then the longer name */
		{ 0x2000, 0, "nosize", STB_GLOBAL }, { 0x2000, 8, "withsize", STB_LOCAL },
		{ 0x3000, 8, "weak", STB_WEAK }, { 0x3000, 8, "local", STB_LOCAL },
		{ 0x4000, 8, "local4", STB_LOCAL }, { 0x4000, 8, "global4", STB_GLOBAL },
		{ 0x5000, 8, "__under", STB_GLOBAL }, { 0x5000, 8, "_under", STB_GLOBAL },
		{ 0x6000, 8, "__read", STB_GLOBAL }, { 0x6000, 8, "__GI___read", STB_GLOBAL },
	};
	struct dsos *d = dsos__new("/nonexistent");
	struct symtab t = { 0 }, k = { .last_wins = 1 };
	struct dso *dso, *kdso;

	TEST_ASSERT(d, "dsos__new");
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++)
		TEST_ASSERT(!symtab__add(&t, syms[i].start, syms[i].size, syms[i].name,
					 syms[i].bind), "add");
	/* PLT entries win over a symbol stretched over the .plt */
	symtab__add_plt(&t, 0x1030, 0x10, "write@plt");
	dso = made_up(d, "rules", &t);
	TEST_ASSERT(dso && dso->nr_syms == 7 && dso->nr_plt == 1, "table of %zu + %zu",
		    dso ? dso->nr_syms : 0, dso ? dso->nr_plt : 0);
	TEST_ASSERT(is_at(d, dso, 0x10ff, "_init+0xff"), "0x10ff");
	TEST_ASSERT(is_at(d, dso, 0x1035, "write@plt+0x5"), "0x1035");
	TEST_ASSERT(is_at(d, dso, 0x1045, "_init+0x45"), "0x1045");
	TEST_ASSERT(is_at(d, dso, 0x110f, "sized+0xf"), "0x110f");
	TEST_ASSERT(is_at(d, dso, 0x1110, ""), "0x1110");
	TEST_ASSERT(is_at(d, dso, 0xfff, ""), "0xfff");
	TEST_ASSERT(is_at(d, dso, 0x2001, "withsize+0x1"), "0x2001");
	TEST_ASSERT(is_at(d, dso, 0x3000, "local+0"), "0x3000");
	TEST_ASSERT(is_at(d, dso, 0x4000, "global4+0"), "0x4000");
	TEST_ASSERT(is_at(d, dso, 0x5000, "_under+0"), "0x5000");
	TEST_ASSERT(is_at(d, dso, 0x6000, "__GI___read+0"), "0x6000");

	/* kallsyms: no sizes, the last alias in file order */
	symtab__add(&k, 0xffffffff81000000ULL, 0, "memcpy", STB_GLOBAL);
	symtab__add(&k, 0xffffffff81000000ULL, 0, "__pi_memcpy", STB_GLOBAL);
	symtab__add(&k, 0xffffffff81000040ULL, 0, "last", STB_GLOBAL);
	kdso = made_up(d, "kallsyms", &k);
	TEST_ASSERT(kdso && is_at(d, kdso, 0xffffffff8100003fULL, "__pi_memcpy+0x3f"), "alias");
	/* the last one: to the end of its page and one more */
	TEST_ASSERT(is_at(d, kdso, 0xffffffff81001fffULL, "last+0x1fbf"), "last");
	TEST_ASSERT(is_at(d, kdso, 0xffffffff81002000ULL, ""), "past last");
	dsos__delete(d);
	return TEST_OK;
}

static int test_maps(void)
{
	struct dsos *d = dsos__new("/nonexistent");
	struct machine m;
	struct addr_loc al;

	TEST_ASSERT(d && !machine__init(&m, d, NULL, 0), "init");
	TEST_ASSERT(!machine__mmap(&m, 10, 0x10000, 0x4000, 0, "/nonexistent/a", NULL, 0), "a");
	/* cuts a in two: what is left right of it keeps its file offset */
	TEST_ASSERT(!machine__mmap(&m, 10, 0x11000, 0x1000, 0x5000, "/nonexistent/b", NULL, 0), "b");
	machine__resolve(&m, 10, PERF_RECORD_MISC_USER, 0x12345, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/nonexistent/a") && al.rel == 0x2345 &&
		    !al.sym, "right of b: %s %#llx", al.map ? al.map->dso->name : "-",
		    (unsigned long long)al.rel);
	machine__resolve(&m, 10, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/nonexistent/b") && al.rel == 0x5010,
		    "in b: %#llx", (unsigned long long)al.rel);
	machine__resolve(&m, 10, PERF_RECORD_MISC_USER, 0x14000, &al);
	TEST_ASSERT(!al.map && al.rel == 0x14000, "past a");
	/* anonymous code is looked up by address, in the JIT's perf map */
	TEST_ASSERT(!machine__mmap(&m, 10, 0x20000, 0x1000, 0x20000, "//anon", NULL, 0), "anon");
	machine__resolve(&m, 10, PERF_RECORD_MISC_USER, 0x20010, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/tmp/perf-10.map") && al.rel == 0x20010,
		    "anon: %s", al.map ? al.map->dso->name : "-");
	/* a child process starts with its parent's maps, a thread shares them */
	TEST_ASSERT(!machine__fork(&m, 11, 10) && !machine__fork(&m, 10, 10), "fork");
	machine__resolve(&m, 11, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/nonexistent/b"), "child");
	machine__resolve(&m, 12, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(!al.map, "unknown pid");
	/* the kernel from its MMAP on; below it nothing */
	TEST_ASSERT(!machine__mmap(&m, -1, 0xffffffff81000000ULL, 0x1000, 0,
				   "[kernel.kallsyms]_text", NULL, 0), "kernel");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffff80000000ULL, &al);
	TEST_ASSERT(!al.map, "below the kernel");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffff83000000ULL, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "[kernel.kallsyms]"), "kernel");
	machine__exit(&m);
	/* many files: each name one DSO, found again */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 5000; i++) {
			char name[32];
			struct dso *dso;

			snprintf(name, sizeof(name), "/lib/%d.so", i);
			dso = dsos__get(d, DSO_ELF, name, NULL, 0);
			TEST_ASSERT(dso && !strcmp(dso->name, name) && dso->loaded == pass,
				    "%s: pass %d", name, pass);
			dso->loaded = 1;	/* marks the first one */
		}
	}
	dsos__delete(d);
	return TEST_OK;
}

/* Where this function is in this binary: the map's file and its offset. */
static int self_offset(char path[PATH_MAX], u64 *off)
{
	unsigned long start, end, pgoff, ip = (unsigned long)(void *)self_offset;
	char line[PATH_MAX + 128], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &pgoff,
			   path) == 5 && ip >= start && ip < end) {
			*off = ip - start + pgoff;
			found = 1;
		}
	fclose(f);
	return found;
}

static int write_bytes(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc;

	if (fd < 0)
		return -errno;
	rc = write_all(fd, p, len);
	close(fd);
	return rc;
}

/* Broken copies of exe: none may crash; none yields this function. */
static int test_broken(struct dsos *d, const char *dir, const char *exe, u64 off)
{
	size_t len;
	char *img = read_file(exe, &len), path[PATH_MAX];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	int ret = TEST_OK;

	TEST_ASSERT(img && len > 4096, "read %s", exe);
	for (int i = 0; ret == TEST_OK && i < 6; i++) {
		struct dso *dso;
		const char *name;
		u64 o;

		snprintf(path, sizeof(path), "%s/broken%d", dir, i);
		if (i == 0)		/* the header alone */
			ret = write_bytes(path, img, 64);
		else if (i == 1)	/* cut where the section headers would be */
			ret = write_bytes(path, img, len / 2);
		else if (i == 2) {	/* section headers far away, and many */
			Elf64_Ehdr save = *eh;

			eh->e_shoff = ~0ULL - 100;
			eh->e_shnum = 0xffff;
			ret = write_bytes(path, img, len);
			*eh = save;
		} else if (i == 3) {	/* the string tables point anywhere */
			Elf64_Ehdr save = *eh;

			eh->e_shstrndx = 0xfffe;
			ret = write_bytes(path, img, len);
			*eh = save;
		} else if (i == 4) {
			ret = mkfifo(path, 0600) ? -errno : 0;
		} else {
			ret = mkdir(path, 0700) ? -errno : 0;
		}
		TEST_ASSERT(!ret, "make %s: %s", path, strerror(-ret));
		dso = dsos__get(d, DSO_ELF, path, NULL, 0);
		TEST_ASSERT(dso, "dsos__get");
		const struct symbol *s = dso__find(d, dso, off, &o);

		name = s ? symbol__name(dso, s) : "";
		TEST_ASSERT(i == 3 || strcmp(name, "self_offset"), "%s: found %s", path, name);
	}
	free(img);
	return ret;
}

static int test_self(void)
{
	char exe[PATH_MAX], dir[] = "/tmp/perf-test-sym-XXXXXX", link[PATH_MAX + 64];
	u8 bid[BUILD_ID_SIZE];
	struct dsos *d, *cached;
	struct dso *dso;
	const struct symbol *s;
	int fd, len, ret;
	u64 off, o;
	Elf *elf;

	TEST_ASSERT(self_offset(exe, &off), "this function in /proc/self/maps");
	fd = open(exe, O_RDONLY);
	TEST_ASSERT(fd >= 0, "open %s", exe);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? build_id__from_elf(elf, bid) : 0;
	if (elf)
		elf_end(elf);
	close(fd);
	TEST_ASSERT(len == BUILD_ID_SIZE, "build id of %s: %d bytes", exe, len);
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	d = dsos__new(dir);
	TEST_ASSERT(d, "dsos__new");
	/* the file, with its build id and with none */
	for (int with = 0; with < 2; with++) {
		dso = dsos__get(d, DSO_ELF, exe, bid, with ? len : 0);
		s = dso ? dso__find(d, dso, off, &o) : NULL;
		TEST_ASSERT(s && !strcmp(symbol__name(dso, s), "self_offset") && !o,
			    "self_offset in %s: %s", exe, s ? symbol__name(dso, s) : "none");
	}
	/* another build id: not this file's symbols */
	bid[0] ^= 1;
	dso = dsos__get(d, DSO_ELF, exe, bid, len);
	TEST_ASSERT(dso && !dso__find(d, dso, off, &o), "a file of another build id was read");
	bid[0] ^= 1;
	/* gone, but in the cache: DIR/.build-id/xx/rest/elf, as the stock
	 * perf's buildid-cache -a leaves it */
	snprintf(link, sizeof(link), "%s/.build-id", dir);
	mkdir(link, 0700);
	snprintf(link + strlen(link), sizeof(link) - strlen(link), "/%02x", bid[0]);
	mkdir(link, 0700);
	for (int i = 1; i < len; i++)
		snprintf(link + strlen(link), sizeof(link) - strlen(link), "%s%02x",
			 i == 1 ? "/" : "", bid[i]);
	TEST_ASSERT(!mkdir(link, 0700), "mkdir %s", link);
	strcat(link, "/elf");
	TEST_ASSERT(!symlink(exe, link), "symlink %s", link);
	cached = dsos__new(dir);
	TEST_ASSERT(cached, "dsos__new");
	dso = dsos__get(cached, DSO_ELF, "/nonexistent/perf", bid, len);
	s = dso ? dso__find(cached, dso, off, &o) : NULL;
	TEST_ASSERT(s && !strcmp(symbol__name(dso, s), "self_offset"), "from the cache: %s",
		    s ? symbol__name(dso, s) : "none");
	dsos__delete(cached);
	ret = test_broken(d, dir, exe, off);
	dsos__delete(d);
	/* the test's own files, whatever the outcome */
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ret = TEST_FAIL;
	}
	return ret;
}

/* A HEADER_BUILD_ID feature: a user DSO's entry, then the kernel's. */
static size_t bid_feature(char *p, const u8 bid[BUILD_ID_SIZE])
{
	static const char *const names[] = { "/usr/bin/true", "[kernel.kallsyms]" };
	size_t off = 0;

	for (int i = 0; i < 2; i++) {
		struct perf_event_header h = { 0, (i ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
					       1 << 15, 36 + 24 };

		memset(p + off, 0, h.size);
		memcpy(p + off, &h, sizeof(h));
		memcpy(p + off + 12, bid, BUILD_ID_SIZE);
		p[off + 12 + BUILD_ID_SIZE] = i ? BUILD_ID_SIZE : 8;
		strcpy(p + off + 36, names[i]);
		off += h.size;
	}
	return off;
}

/* The kernel of the recording: the running one's functions from
 * /proc/kallsyms, another's from the cache's copy, none without one. */
static int test_kernel(void)
{
	char dir[] = "/tmp/perf-test-ksym-XXXXXX", path[PATH_MAX], body[256], name[256], hex[41];
	unsigned long long addr;
	u8 running[BUILD_ID_SIZE], other[BUILD_ID_SIZE], bid[BUILD_ID_SIZE];
	int len = MAX(build_id__kernel(running), 0), ret = TEST_OK;
	size_t size;
	struct dsos *d;
	struct machine m;
	struct addr_loc al;
	char type;
	FILE *f;

	TEST_ASSERT(len == BUILD_ID_SIZE, "running kernel's build id: %d bytes", len);
	memcpy(other, running, len);
	other[0] ^= 0xff;
	/* the feature's kernel entry; cut short or sizeless, nothing */
	size = bid_feature(body, other);
	TEST_ASSERT(build_id_feature__kernel(body, size, bid) == BUILD_ID_SIZE &&
		    !memcmp(bid, other, BUILD_ID_SIZE), "kernel entry not found");
	TEST_ASSERT(!build_id_feature__kernel(body, size - 1, bid), "a cut entry was read");
	memset(body + 60, 0, 8);
	TEST_ASSERT(!build_id_feature__kernel(body, size, bid), "an entry of size 0 was read");
	/* another kernel: the cache's kallsyms */
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	for (int i = 0; i < BUILD_ID_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", other[i]);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]", dir);
	mkdir(path, 0700);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", hex);
	mkdir(path, 0700);
	strcat(path, "/kallsyms");
	f = fopen(path, "w");
	TEST_ASSERT(f, "create %s", path);
	fprintf(f, "ffffffff81000000 T cached_fn\nffffffff81000100 t next_fn\n");
	fclose(f);
	d = dsos__new(dir);
	TEST_ASSERT(d && !machine__init(&m, d, other, BUILD_ID_SIZE), "init");
	machine__resolve(&m, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ULL, &al);
	if (!al.sym || strcmp(symbol__name(al.map->dso, al.sym), "cached_fn") || al.symoff != 0x10)
		ret = TEST_FAIL;
	machine__exit(&m);
	dsos__delete(d);
	TEST_ASSERT(ret == TEST_OK, "another kernel: not the cache's kallsyms");
	/* the running kernel: /proc/kallsyms, whatever the cache holds */
	f = fopen("/proc/kallsyms", "r");
	TEST_ASSERT(f && fscanf(f, "%llx %c %255s", &addr, &type, name) == 3, "/proc/kallsyms");
	fclose(f);
	TEST_ASSERT(addr, "/proc/kallsyms hides its addresses (kptr_restrict)");
	d = dsos__new(dir);
	TEST_ASSERT(d && !machine__init(&m, d, running, len), "init");
	machine__resolve(&m, 1, PERF_RECORD_MISC_KERNEL, addr, &al);
	if (!al.sym || !strcmp(symbol__name(al.map->dso, al.sym), "cached_fn"))
		ret = TEST_FAIL;
	machine__exit(&m);
	/* a third kernel, not in the cache: no functions */
	other[1] ^= 0xff;
	TEST_ASSERT(!machine__init(&m, d, other, BUILD_ID_SIZE), "init");
	machine__resolve(&m, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ULL, &al);
	if (!al.map || al.sym)
		ret = TEST_FAIL;
	machine__exit(&m);
	dsos__delete(d);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		ret = TEST_FAIL;
	TEST_ASSERT(ret == TEST_OK, "the running kernel's or an unknown kernel's functions");
	return TEST_OK;
}

static int test_symbols(struct test_ctx *ctx)
{
	int ret = test_rules();

	(void)ctx;
	if (ret == TEST_OK)
		ret = test_maps();
	if (ret == TEST_OK)
		ret = test_self();
	if (ret == TEST_OK)
		ret = test_kernel();
	return ret;
}

const struct test_suite suite_symbols = {
	"symbols", "perf script's symbols: the stock's rules, maps, this binary, the build-id cache, broken files, the kernel's",
	test_symbols,
};
