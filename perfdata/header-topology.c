/* The feature sections that describe the machine's CPUs, caches and memory,
 * read from sysfs as perf 6.1 reads them, so that the stock perf report
 * --header-only prints the same lines for our files as for its own. */
#include "perfdata/header-internal.h"
#include "util/cpumap.h"
#include "lib/sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"
#define MEMORY_DIR "/sys/devices/system/memory"
#define VALUE_MAX 4096	/* a cpu list of a big machine still fits */

/* Distinct strings in the order first seen: the sibling lists. */
struct str_set {
	char **v;
	u32 nr;
};

static int str_set__add(struct str_set *set, const char *s)
{
	char **nv;

	for (u32 i = 0; i < set->nr; i++)
		if (!strcmp(set->v[i], s))
			return 0;
	nv = realloc(set->v, (set->nr + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	set->v = nv;
	set->v[set->nr] = strdup(s);
	return set->v[set->nr++] ? 0 : -ENOMEM;
}

/* perf_header_string_list: u32 nr, then the strings. */
static void str_set__put(struct buf *b, const struct str_set *set)
{
	buf__u32(b, set->nr);
	for (u32 i = 0; i < set->nr; i++)
		header__put_string(b, set->v[i]);
}

static void str_set__release(struct str_set *set)
{
	for (u32 i = 0; i < set->nr; i++)
		free(set->v[i]);
	free(set->v);
}

/* The first of a CPU's topology files that exists (newer kernels renamed
 * core_siblings to package_cpus and thread_siblings to core_cpus). */
static int cpu__topology_str(int cpu, const char *name, const char *old_name, char *out)
{
	int err = sysfs__read_strf(out, VALUE_MAX, CPU_DIR "/cpu%d/topology/%s", cpu, name);

	if (err == -ENOENT && old_name)
		err = sysfs__read_strf(out, VALUE_MAX, CPU_DIR "/cpu%d/topology/%s", cpu, old_name);
	return err;
}

/* A CPU's id from its topology directory; -1 (as the stock writes) when
 * the CPU is offline or the kernel does not say. */
static u32 cpu__topology_id(int cpu, const char *name)
{
	char s[32];
	long v;

	if (sysfs__read_strf(s, sizeof(s), CPU_DIR "/cpu%d/topology/%s", cpu, name))
		return (u32)-1;
	v = strtol(s, NULL, 10);
	return (u32)v;
}

/*
 * The sibling lists of the online CPUs (sockets, then threads), then for
 * every possible CPU {core id, socket id}, then the die lists and each
 * CPU's die id when the kernel knows dies. The reader takes the number of
 * per-CPU entries from NRCPUS' "available", which is cpu__max_present()
 * there too.
 */
int header__cpu_topology(struct buf *b)
{
	struct cpu_map *online = cpu_map__new(NULL);
	struct str_set sockets = { 0 }, threads = { 0 }, dies = { 0 };
	int nr = cpu__max_present(), has_die, err = 0;
	char *s = malloc(VALUE_MAX);

	if (!online || !s) {
		err = online ? -ENOMEM : -errno;
		goto out;
	}
	has_die = !cpu__topology_str(online->map[0], "die_cpus_list", NULL, s);
	for (int i = 0; i < online->nr && !err; i++) {
		int cpu = online->map[i];

		err = cpu__topology_str(cpu, "package_cpus_list", "core_siblings_list", s);
		if (!err)
			err = str_set__add(&sockets, s);
		if (!err)
			err = cpu__topology_str(cpu, "core_cpus_list", "thread_siblings_list", s);
		if (!err)
			err = str_set__add(&threads, s);
		if (!err && has_die)
			err = cpu__topology_str(cpu, "die_cpus_list", NULL, s);
		if (!err && has_die)
			err = str_set__add(&dies, s);
	}
	if (err)
		goto out;
	str_set__put(b, &sockets);
	str_set__put(b, &threads);
	for (int cpu = 0; cpu < nr; cpu++) {
		buf__u32(b, cpu__topology_id(cpu, "core_id"));
		buf__u32(b, cpu__topology_id(cpu, "physical_package_id"));
	}
	if (has_die) {
		str_set__put(b, &dies);
		for (int cpu = 0; cpu < nr; cpu++)
			buf__u32(b, cpu__topology_id(cpu, "die_id"));
	}
out:
	str_set__release(&sockets);
	str_set__release(&threads);
	str_set__release(&dies);
	cpu_map__put(online);
	free(s);
	return err ? err : b->err;
}

static int u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The numbers N of the entries PREFIXN of dir, ascending, in a malloc'd
 * array: the NUMA nodes, a node's memory blocks. NULL with errno. */
static u32 *dir__numbered(const char *dir, const char *prefix, u32 *nr)
{
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	u32 *v = NULL, *nv;
	struct dirent *e;

	*nr = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char *end;
		unsigned long n;

		if (strncmp(e->d_name, prefix, plen) || !isdigit((unsigned char)e->d_name[plen]))
			continue;
		n = strtoul(e->d_name + plen, &end, 10);
		if (*end || n > UINT32_MAX)
			continue;
		nv = realloc(v, (*nr + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			closedir(d);
			errno = ENOMEM;
			return NULL;
		}
		v = nv;
		v[(*nr)++] = n;
	}
	closedir(d);
	if (!v) {
		errno = ENOENT;
		return NULL;
	}
	qsort(v, *nr, sizeof(*v), u32_cmp);
	return v;
}

/* "Node 0 MemTotal:  8742688 kB" in a node's meminfo, in kB; 0 if absent. */
static u64 node_meminfo_kb(const char *meminfo, const char *key)
{
	const char *p = meminfo ? strstr(meminfo, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* For each node: its number, total and free memory in kB, its cpu list. */
int header__numa_topology(struct buf *b)
{
	char path[64], cpus[VALUE_MAX];
	u32 nr, *nodes = dir__numbered(NODE_DIR, "node", &nr);
	int err = 0;

	if (!nodes)
		return -errno;
	buf__u32(b, nr);
	for (u32 i = 0; i < nr && !err; i++) {
		char *mi;

		snprintf(path, sizeof(path), NODE_DIR "/node%u/meminfo", nodes[i]);
		mi = read_file(path, NULL);
		if (!mi) {
			err = -errno;
			break;
		}
		err = sysfs__read_strf(cpus, sizeof(cpus), NODE_DIR "/node%u/cpulist", nodes[i]);
		if (err) {
			free(mi);
			break;
		}
		buf__u32(b, nodes[i]);
		buf__u64(b, node_meminfo_kb(mi, "MemTotal:"));
		buf__u64(b, node_meminfo_kb(mi, "MemFree:"));
		header__put_string(b, cpus);
		free(mi);
	}
	free(nodes);
	return err ? err : b->err;
}

/*
 * Version 1, the memory block size, then per node its number, the number
 * of bits of its block map (highest block + 1) and the map itself as a
 * u64 bit count and u64 words: which memory blocks the node holds.
 */
int header__mem_topology(struct buf *b)
{
	u32 nr, *nodes = dir__numbered(NODE_DIR, "node", &nr);
	u64 block_size;
	int err;

	if (!nodes)
		return -errno;
	err = sysfs__read_u64(MEMORY_DIR "/block_size_bytes", 16, &block_size);
	if (err)
		goto out;
	buf__u64(b, 1);
	buf__u64(b, block_size);
	buf__u64(b, nr);
	for (u32 i = 0; i < nr; i++) {
		char dir[64];
		u32 nblocks, *blocks;
		u64 bits, *words;

		snprintf(dir, sizeof(dir), NODE_DIR "/node%u", nodes[i]);
		blocks = dir__numbered(dir, "memory", &nblocks);
		if (!blocks && errno != ENOENT) {
			err = -errno;
			goto out;
		}
		/* a node without memory still gets a one-bit map, none set */
		bits = blocks ? (u64)blocks[nblocks - 1] + 1 : 1;
		words = calloc(ALIGN_UP(bits, 64) / 64, sizeof(u64));
		if (!words) {
			free(blocks);
			err = -ENOMEM;
			goto out;
		}
		for (u32 j = 0; blocks && j < nblocks; j++)
			words[blocks[j] / 64] |= 1ULL << (blocks[j] % 64);
		buf__u64(b, nodes[i]);
		buf__u64(b, bits);
		buf__u64(b, bits);
		buf__add(b, words, ALIGN_UP(bits, 64) / 8);
		free(words);
		free(blocks);
	}
out:
	free(nodes);
	return err ? err : b->err;
}
