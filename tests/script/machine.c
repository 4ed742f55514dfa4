/* The address space of perf script (script/machine.c): maps that cut
 * others, forks, the JIT's perf map, many files, and the kernel of the
 * recording found by its build id. */
#include "tests/tests.h"
#include "script/machine.h"
#include "buildid/build-id.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static int test_maps(struct test_ctx *ctx)
{
	struct dsos *d = dsos__new("/nonexistent");
	struct machine m;
	struct addr_loc al;

	(void)ctx;

	TEST_ASSERT(d && !machine__init(&m, d, NULL, 0), "init");
	TEST_ASSERT(!machine__mmap(&m, 10, &(struct mmap_desc){ 0x10000, 0x4000, 0, PROT_EXEC, 0,
								"/nonexistent/a", NULL, 0 }), "a");
	/* cuts a in two: what is left right of it keeps its file offset */
	TEST_ASSERT(!machine__mmap(&m, 10, &(struct mmap_desc){ 0x11000, 0x1000, 0x5000, PROT_EXEC, 0,
								"/nonexistent/b", NULL, 0 }), "b");
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
	TEST_ASSERT(!machine__mmap(&m, 10, &(struct mmap_desc){ 0x20000, 0x1000, 0x20000, PROT_EXEC, 0,
								"//anon", NULL, 0 }), "anon");
	machine__resolve(&m, 10, PERF_RECORD_MISC_USER, 0x20010, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/tmp/perf-10.map") && al.rel == 0x20010,
		    "anon: %s", al.map ? al.map->dso->name : "-");
	/* a child process starts with its parent's maps, a thread shares them */
	TEST_ASSERT(!machine__fork(&m, 11, 10, 1) && !machine__fork(&m, 10, 10, 1), "fork");
	machine__resolve(&m, 11, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "/nonexistent/b"), "child");
	machine__resolve(&m, 12, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(!al.map, "unknown pid");
	/* the stock perf's synthesized FORK (its MMAPs follow): no copy, and
	 * what the pid had before is gone */
	TEST_ASSERT(!machine__fork(&m, 11, 10, 0), "synthesized fork");
	machine__resolve(&m, 11, PERF_RECORD_MISC_USER, 0x11010, &al);
	TEST_ASSERT(!al.map, "synthesized child: %s", al.map ? al.map->dso->name : "-");
	/* the kernel from its MMAP on; below it nothing */
	TEST_ASSERT(!machine__mmap(&m, -1, &(struct mmap_desc){ 0xffffffff81000000ULL, 0x1000, 0,
								PROT_EXEC, 0, "[kernel.kallsyms]_text",
								NULL, 0 }), "kernel");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffff80000000ULL, &al);
	TEST_ASSERT(!al.map, "below the kernel");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffff83000000ULL, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "[kernel.kallsyms]"), "kernel");
	/* a BPF program's KSYMBOL: its name is the DSO and the symbol, above
	 * the kernel's own map, until it is unregistered */
	TEST_ASSERT(!machine__ksymbol(&m, 0xffffffffc0022000ULL, 0x100, "bpf_prog_1_fn", 0),
		    "ksymbol");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffffc0022016ULL, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "bpf_prog_1_fn") && al.sym &&
		    !strcmp(symbol__name(al.map->dso, al.sym), "bpf_prog_1_fn") && al.symoff == 0x16 &&
		    al.rel == 0xffffffffc0022016ULL, "in the program: %s",
		    al.map ? al.map->dso->name : "-");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffffc0022100ULL, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "[kernel.kallsyms]"), "past it");
	TEST_ASSERT(!machine__ksymbol(&m, 0xffffffffc0022000ULL, 0x100, "bpf_prog_1_fn", 1),
		    "unregister");
	machine__resolve(&m, 10, PERF_RECORD_MISC_KERNEL, 0xffffffffc0022016ULL, &al);
	TEST_ASSERT(al.map && !strcmp(al.map->dso->name, "[kernel.kallsyms]"), "unregistered");
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

/* Maps with no file behind them, by the stock's names and flags: their
 * addresses as they are, code in the JIT's perf map, data in a DSO of
 * their own name without symbols; other names keep their file offsets. */
static int test_fileless(struct test_ctx *ctx)
{
	static const struct {
		const char *name;
		u32 prot, flags;
		const char *dso;	/* NULL: a file, its offset shown */
	} maps[] = {
		{ "[stack]", PROT_READ | PROT_WRITE, 0, "[stack]" },
		{ "[stack]", PROT_EXEC, 0, "/tmp/perf-10.map" },
		{ "[stack:123]", PROT_READ, 0, "[stack:123]" },
		{ "[heap]", PROT_READ | PROT_WRITE, 0, "[heap]" },
		{ "[heap]", PROT_READ | PROT_EXEC, 0, "/tmp/perf-10.map" },
		{ "//anon", PROT_READ, 0, "//anon" },
		{ "/SYSV00000000 (deleted)", PROT_READ | PROT_EXEC, 0, "/tmp/perf-10.map" },
		{ "/dev/zero (deleted)", PROT_READ, 0, "/dev/zero (deleted)" },
		{ "/anon_hugepage (deleted)", PROT_READ, 0, "/anon_hugepage (deleted)" },
		{ "/dev/hugepages/x", PROT_READ | PROT_EXEC, MAP_HUGETLB, "/tmp/perf-10.map" },
		{ "/dev/hugepages/x", PROT_READ | PROT_EXEC, 0, NULL },
		{ "[vvar]", PROT_READ, 0, NULL },
		{ "[heapx]", PROT_READ, 0, NULL },
		{ "//anonx", PROT_READ, 0, NULL },
	};
	struct dsos *d = dsos__new("/nonexistent");
	struct machine m;
	struct addr_loc al;
	int ret = TEST_OK;

	(void)ctx;
	TEST_ASSERT(d && !machine__init(&m, d, NULL, 0), "init");
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		u64 start = 0x7ffd00000000ULL + (i << 20), ip = start + 0x1234;
		const char *want = maps[i].dso ? maps[i].dso : maps[i].name;
		u64 rel = maps[i].dso ? ip : 0x7ffffffde000ULL + 0x1234;

		TEST_ASSERT(!machine__mmap(&m, 10, &(struct mmap_desc){
						   start, 0x21000, 0x7ffffffde000ULL, maps[i].prot,
						   maps[i].flags, maps[i].name, NULL, 0 }), "mmap");
		machine__resolve(&m, 10, PERF_RECORD_MISC_USER, ip, &al);
		if (!al.map || strcmp(al.map->dso->name, want) || al.rel != rel || al.sym) {
			fprintf(stderr, "  %s: %s %#llx, not %s %#llx\n", maps[i].name,
				al.map ? al.map->dso->name : "-", (unsigned long long)al.rel, want,
				(unsigned long long)rel);
			ret = TEST_FAIL;
		}
	}
	machine__exit(&m);
	dsos__delete(d);
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
static int test_kernel(struct test_ctx *ctx)
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

	(void)ctx;

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

TEST_SUITE(suite_script_machine, "script/machine",
	   "perf script's maps: cut maps, forks, the JIT's perf map, 5000 files, the kernel's "
	   "symbols by the recording's build id, memory with no file as the stock tells it",
	   test_maps, test_kernel, test_fileless);
