/* Symbol tables for perf script -F sym,dso (script/symbols.c): the stock
 * perf's rules on made-up tables, this very binary looked up through
 * /proc/self/maps, the build-id cache, and broken files that must come out
 * as no symbol. */
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

static int test_rules(struct test_ctx *ctx)
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

	(void)ctx;

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

	/* _init stretched over a .plt of two entries and the .plt.got after
	 * them: the stock perf's tree search meets it before the second
	 * entry's start only (then [unknown], as its lines show) */
	struct symtab p = { 0 };
	struct dso *pdso;

	symtab__add(&p, 0x1000, 0, "_init", STB_GLOBAL);
	symtab__add(&p, 0x2000, 0x10, "_start", STB_GLOBAL);
	symtab__add_plt(&p, 0x1030, 0x10, "read@plt");
	symtab__add_plt(&p, 0x1040, 0x10, "write@plt");
	pdso = made_up(d, "plt", &p);
	TEST_ASSERT(pdso && is_at(d, pdso, 0x1020, "_init+0x20"), "the .plt's first slot");
	TEST_ASSERT(is_at(d, pdso, 0x1048, "write@plt+0x8"), "write@plt");
	TEST_ASSERT(is_at(d, pdso, 0x1058, ""), ".plt.got");
	TEST_ASSERT(is_at(d, pdso, 0x1ff8, ""), "the end of _init's room");
	TEST_ASSERT(is_at(d, pdso, 0x2008, "_start+0x8"), "_start");

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

/* A map's name that is no absolute path ("[vvar]", "[anon:jit]", or any
 * a crafted file gives) names no file: a copy of exe under that name in
 * the current directory is never read, while the same copy named by its
 * absolute path is. */
static int test_relative(struct dsos *d, const char *dir, const char *exe, u64 off)
{
	static const char *const names[] = { "[vvar]", "[anon:jit]", "perf", "./perf" };
	char path[PATH_MAX], cwd[PATH_MAX];
	size_t len;
	char *img = read_file(exe, &len);
	struct dso *dso;
	const struct symbol *s;
	int ret = TEST_OK, fd;
	u64 o;

	TEST_ASSERT(img && getcwd(cwd, sizeof(cwd)) && !chdir(dir), "read %s, chdir %s", exe, dir);
	for (size_t i = 0; ret == TEST_OK && i < ARRAY_SIZE(names); i++) {
		ret = write_bytes(names[i] + (names[i][0] == '.' ? 2 : 0), img, len);
		dso = ret ? NULL : dsos__get(d, DSO_ELF, names[i], NULL, 0);
		fd = dso ? dsos__open_elf(d, dso) : -1;
		if (fd >= 0)
			close(fd);
		s = dso ? dso__find(d, dso, off, &o) : NULL;
		if (!dso || fd != -ENOENT || s) {
			fprintf(stderr, "  %s: %s\n", names[i], s ? symbol__name(dso, s) : "opened");
			ret = TEST_FAIL;
		}
		/* the same file by its absolute path: read */
		snprintf(path, sizeof(path), "%s/%s", dir, names[i] + (names[i][0] == '.' ? 2 : 0));
		dso = ret ? NULL : dsos__get(d, DSO_ELF, path, NULL, 0);
		s = dso ? dso__find(d, dso, off, &o) : NULL;
		if (ret == TEST_OK && (!s || strcmp(symbol__name(dso, s), "self_offset"))) {
			fprintf(stderr, "  %s: not read\n", path);
			ret = TEST_FAIL;
		}
	}
	free(img);
	if (chdir(cwd))
		ret = TEST_FAIL;
	return ret;
}

static int test_self(struct test_ctx *ctx)
{
	char exe[PATH_MAX], dir[] = "/tmp/perf-test-sym-XXXXXX", link[PATH_MAX + 64];
	u8 bid[BUILD_ID_SIZE];
	struct dsos *d, *cached;
	struct dso *dso;
	const struct symbol *s;
	int fd, len, ret;
	u64 off, o;
	Elf *elf;

	(void)ctx;

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
	if (ret == TEST_OK)
		ret = test_relative(d, dir, exe, off);
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

/* A JIT's perf map is read from a directory anyone writes: the file is
 * read, a link to it is not followed, a FIFO neither hangs nor is read. */
static int test_perf_map(struct test_ctx *ctx)
{
	static const char text[] = "1000 10 jitted\n";
	char dir[] = "/tmp/frtest-pmap-XXXXXX", path[3][PATH_MAX];
	static const char *const names[] = { "map", "link", "fifo" };
	struct dsos *d;
	int ret = TEST_OK;

	(void)ctx;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	for (int i = 0; i < 3; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
	d = dsos__new(dir);
	if (!d || write_bytes(path[0], text, strlen(text)) || symlink(path[0], path[1]) ||
	    mkfifo(path[2], 0600))
		ret = TEST_FAIL;
	for (int i = 0; ret == TEST_OK && i < 3; i++) {
		struct dso *dso = dsos__get(d, DSO_PERF_MAP, path[i], NULL, 0);
		u64 off;
		const struct symbol *s = dso ? dso__find(d, dso, 0x1005, &off) : NULL;
		const char *name = s ? symbol__name(dso, s) : "none";

		if (!dso || strcmp(name, i ? "none" : "jitted")) {
			fprintf(stderr, "  %s: %s\n", path[i], name);
			ret = TEST_FAIL;
		}
	}
	if (d)
		dsos__delete(d);
	for (int i = 0; i < 3; i++)
		unlink(path[i]);
	rmdir(dir);
	return ret;
}

TEST_SUITE(suite_script_symbols, "script/symbols",
	   "perf script's symbols: the stock's rules, this binary, the build-id cache, broken "
	   "files, relative names never opened, a JIT's perf map read without links",
	   test_rules, test_self, test_perf_map);
