/* --threads: the stock perf's spec of drain threads resolved into CPU and
 * affinity masks over the CPUs being recorded. */
#include "record/threads.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const layout_names[] = {
	[THREADS_CPU] = "cpu", [THREADS_CORE] = "core", [THREADS_PACKAGE] = "package",
	[THREADS_NUMA] = "numa",
};

/* A topology value of cpu, from sysfs. 0 or -errno. */
static int topology__read(const char *dir, int cpu, const char *name, u64 *val)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/cpu%d/topology/%s", dir, cpu, name);
	return sysfs__read_u64(path, 10, val);
}

/* The NUMA node of cpu: the nodeN entry of its sysfs directory. */
static long numa_node_of(int cpu)
{
	char path[64];

	for (int node = 0; node < CPU_SETSIZE; node++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
		if (!access(path, F_OK))
			return node;
	}
	return 0;	/* no NUMA in this kernel: one node */
}

long threads__sysfs_group(int cpu, enum threads_layout layout)
{
	const char *dir = "/sys/devices/system/cpu";
	u64 pkg, core;

	if (layout == THREADS_NUMA)
		return numa_node_of(cpu);
	if (topology__read(dir, cpu, "physical_package_id", &pkg))
		return -ENOENT;
	if (layout == THREADS_PACKAGE)
		return pkg & 0x7fffffff;
	if (topology__read(dir, cpu, "core_id", &core))
		return -ENOENT;
	return (long)((pkg & 0x7fffffff) << 24 | (core & 0xffffff));
}

/* The stock perf's number of CPUs it can support: a CPU past it is said
 * once, whatever list names it. */
#define THREADS_STOCK_MAX_CPUS 2048

/* Appends a line to errbuf (the stock says several). */
static void err_add(char *errbuf, size_t errsz, const char *line, const char *arg)
{
	size_t n = strnlen(errbuf, errsz);

	if (n < errsz)
		snprintf(errbuf + n, errsz - n, "%s%s%s", n ? "\n" : "", line, arg ? arg : "");
}

/* A CPU list as the stock's libperf reads it: numbers (any base strtoul
 * takes) and ranges, each followed by one separator, up to the first
 * character that starts no number; a CPU named twice, a range backwards,
 * a number too big or junk where the list starts make it unreadable.
 * 0, -ENOMEM where it is unreadable (the stock's status), -ENODEV where
 * it names a CPU past the machine's max_cpu. */
static int parse_cpu_list(const char *s, int max_cpu, cpu_set_t *set, int *warned,
			  char *errbuf, size_t errsz)
{
	unsigned long lo, hi, past = 0;
	int nr = 0;
	char *p;

	CPU_ZERO(set);
	while (*s >= '0' && *s <= '9') {
		lo = hi = strtoul(s, &p, 0);
		if (lo >= INT_MAX || (*p && *p != ',' && *p != '-'))
			return -ENOMEM;
		if (*p == '-') {
			s = p + 1;
			hi = strtoul(s, &p, 0);
			if (hi >= INT_MAX || (*p && *p != ',') || hi < lo)
				return -ENOMEM;
		}
		if (hi >= THREADS_STOCK_MAX_CPUS && !(*warned)++)
			err_add(errbuf, errsz, "Perf can support 2048 CPUs. Consider raising MAX_NR_CPUS",
				NULL);
		for (unsigned long c = lo; c <= hi && c < CPU_SETSIZE; c++) {
			if (CPU_ISSET(c, set))
				return -ENOMEM;
			CPU_SET(c, set);
		}
		past = MAX(past, hi);
		nr++;
		s = *p ? p + 1 : p;
	}
	if (!nr)
		return -ENOMEM;
	/* the stock's bitmap holds max_cpu + 1 bits: that one is filtered out */
	return past > (unsigned long)max_cpu ? -ENODEV : 0;
}

static struct thread_masks *threads_spec__add(struct threads_spec *ts)
{
	struct thread_masks *m = realloc(ts->masks, (ts->nr + 1) * sizeof(*m));

	if (!m)
		return NULL;
	ts->masks = m;
	m += ts->nr++;
	CPU_ZERO(&m->maps);
	CPU_ZERO(&m->affinity);
	return m;
}

/* A predefined layout: a thread per group of the recorded CPUs, in the
 * order their first CPU comes. */
static int threads_spec__layout(struct threads_spec *ts, enum threads_layout layout,
				const struct threads_cpus *tc, char *errbuf, size_t errsz)
{
	const int *cpus = tc->cpus;
	int nr = tc->nr;
	long *key = calloc(nr ? nr : 1, sizeof(*key));	/* each thread's group */

	if (!key)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		long k = layout == THREADS_CPU ? cpus[i] : tc->group(cpus[i], layout);
		int t = 0;

		if (k < 0) {
			snprintf(errbuf, errsz, "--threads=%s: cpu %d: its %s is not known",
				 layout_names[layout], cpus[i], layout_names[layout]);
			free(key);
			return -EINVAL;
		}
		while (t < ts->nr && key[t] != k)
			t++;
		if (t == ts->nr && !threads_spec__add(ts)) {
			free(key);
			return -ENOMEM;
		}
		key[t] = k;
		CPU_SET(cpus[i], &ts->masks[t].maps);
		CPU_SET(cpus[i], &ts->masks[t].affinity);
	}
	free(key);
	return 0;
}

/* One "<maps>/<affinity>" pair: both lists read, filtered through the
 * recorded CPUs, left non-empty, apart from the earlier threads' (all:
 * their union), as the stock checks them, in its order and words. */
static int threads_spec__pair(struct threads_spec *ts, const char *maps, const char *aff,
			      const struct threads_cpus *tc, const cpu_set_t *recorded,
			      struct thread_masks *all, int *warned, char *errbuf, size_t errsz)
{
	struct thread_masks m, both;
	int err = parse_cpu_list(maps, tc->max_cpu, &m.maps, warned, errbuf, errsz);

	if (err) {
		err_add(errbuf, errsz, "Failed to initialize maps thread mask", NULL);
		return err;
	}
	err = parse_cpu_list(aff, tc->max_cpu, &m.affinity, warned, errbuf, errsz);
	if (err) {
		err_add(errbuf, errsz, "Failed to initialize affinity thread mask", NULL);
		return err;
	}
	CPU_AND(&m.maps, &m.maps, recorded);
	CPU_AND(&m.affinity, &m.affinity, recorded);
	CPU_AND(&both.maps, &m.maps, &all->maps);
	CPU_AND(&both.affinity, &m.affinity, &all->affinity);
	if (!CPU_COUNT(&m.maps))
		err_add(errbuf, errsz, "Empty maps mask: ", maps);
	else if (!CPU_COUNT(&m.affinity))
		err_add(errbuf, errsz, "Empty affinity mask: ", aff);
	else if (CPU_COUNT(&both.maps))
		err_add(errbuf, errsz, "Intersecting maps mask: ", maps);
	else if (CPU_COUNT(&both.affinity))
		err_add(errbuf, errsz, "Intersecting affinity mask: ", aff);
	else if (!threads_spec__add(ts))
		return -ENOMEM;
	else {
		ts->masks[ts->nr - 1] = m;
		CPU_OR(&all->maps, &all->maps, &m.maps);
		CPU_OR(&all->affinity, &all->affinity, &m.affinity);
		return 0;
	}
	return -EINVAL;
}

/* User masks: the pairs are cut first (a pair without its affinity is
 * refused before any list is read), then checked in order. */
static int threads_spec__user(struct threads_spec *ts, const char *spec,
			      const struct threads_cpus *tc, char *errbuf, size_t errsz)
{
	char *copy = strdup(spec), *e_save, *p_save, *entry, **part = NULL;
	struct thread_masks all;
	cpu_set_t recorded;
	int nr = 0, err = copy ? 0 : -ENOMEM, warned = 0;

	for (char *s = copy; !err && (entry = strtok_r(s, ":", &e_save)); s = NULL) {
		char *maps = strtok_r(entry, "/", &p_save), *aff = strtok_r(NULL, "/", &p_save);
		char **more = realloc(part, (nr + 1) * 2 * sizeof(*part));

		if (!more) {
			err = -ENOMEM;
			break;
		}
		part = more;
		part[2 * nr] = maps;
		part[2 * nr++ + 1] = aff;
		if (!maps || !aff) {
			err_add(errbuf, errsz, "Invalid thread maps or affinity specs", NULL);
			err = -EINVAL;
		}
	}
	CPU_ZERO(&recorded);
	CPU_ZERO(&all.maps);
	CPU_ZERO(&all.affinity);
	for (int i = 0; i < tc->nr; i++)
		if (tc->cpus[i] >= 0 && tc->cpus[i] < CPU_SETSIZE)
			CPU_SET(tc->cpus[i], &recorded);
	for (int i = 0; !err && i < nr; i++)
		err = threads_spec__pair(ts, part[2 * i], part[2 * i + 1], tc, &recorded, &all,
					 &warned, errbuf, errsz);
	free(part);
	free(copy);
	return err ? err : ts->nr ? 0 : -EINVAL;	/* no pair at all: the stock says no more */
}

int threads_spec__parse(struct threads_spec *ts, const char *spec, const struct threads_cpus *tc,
			char *errbuf, size_t errsz)
{
	const char *s = spec && *spec ? spec : "cpu";
	size_t l = 0;
	int err;

	memset(ts, 0, sizeof(*ts));
	if (errsz)
		errbuf[0] = '\0';
	/* as the stock: a spec that begins with a layout's name is that layout */
	while (l < ARRAY_SIZE(layout_names) &&
	       strncasecmp(s, layout_names[l], strlen(layout_names[l])))
		l++;
	if (l < ARRAY_SIZE(layout_names))
		err = threads_spec__layout(ts, l, tc, errbuf, errsz);
	else
		err = threads_spec__user(ts, s, tc, errbuf, errsz);
	if (err)
		threads_spec__exit(ts);
	return err;
}

void threads_spec__exit(struct threads_spec *ts)
{
	free(ts->masks);
	ts->masks = NULL;
	ts->nr = 0;
}
