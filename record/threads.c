/* --threads: the stock perf's spec of drain threads resolved into CPU and
 * affinity masks over the CPUs being recorded. */
#include "record/threads.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* "0,2-4" into set; -EINVAL on bad syntax or a CPU past CPU_SETSIZE */
static int parse_cpu_list(const char *s, size_t len, cpu_set_t *set)
{
	const char *end = s + len;

	CPU_ZERO(set);
	while (s < end) {
		char *e;
		unsigned long lo = strtoul(s, &e, 10), hi = lo;

		if (e == s || *s < '0' || *s > '9')
			return -EINVAL;
		if (e < end && *e == '-') {
			s = e + 1;
			hi = strtoul(s, &e, 10);
			if (e == s || *s < '0' || *s > '9')
				return -EINVAL;
		}
		if (lo > hi || hi >= CPU_SETSIZE || e > end || (e < end && *e != ','))
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		s = e < end ? e + 1 : e;
		if (s == end && e < end)
			return -EINVAL;	/* a trailing comma */
	}
	return 0;
}

/* The CPUs of set as a list, "0,2-4", for messages */
static void cpu_set__str(const cpu_set_t *set, char *buf, size_t sz)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n < sz; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n += snprintf(buf + n, sz - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, e);
		c = e;
	}
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
				const int *cpus, int nr, threads_group_fn group, char *errbuf,
				size_t errsz)
{
	long *key = calloc(nr ? nr : 1, sizeof(*key));	/* each thread's group */

	if (!key)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		long k = layout == THREADS_CPU ? cpus[i] : group(cpus[i], layout);
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

/* One "<cpus>/<affinity>" entry, its empty parts skipped as the stock's
 * tokenizer skips them. */
static int threads_spec__entry(struct threads_spec *ts, const char *s, size_t len,
			       const cpu_set_t *recorded, const char *spec, char *errbuf,
			       size_t errsz)
{
	const char *part[2];
	size_t plen[2];
	int nparts = 0;
	struct thread_masks *m;
	char list[256];

	for (const char *p = s, *end = s + len; p < end;) {
		const char *slash = memchr(p, '/', end - p);
		size_t n = (slash ? slash : end) - p;

		if (n && nparts < 2) {
			part[nparts] = p;
			plen[nparts] = n;
		}
		nparts += n != 0;
		p += n + 1;
	}
	m = nparts == 2 ? threads_spec__add(ts) : NULL;
	if (nparts == 2 && !m)
		return -ENOMEM;
	if (!m || parse_cpu_list(part[0], plen[0], &m->maps) ||
	    parse_cpu_list(part[1], plen[1], &m->affinity)) {
		snprintf(errbuf, errsz, "--threads=%s: Invalid thread maps or affinity specs", spec);
		return -EINVAL;
	}
	cpu_set__str(&m->maps, list, sizeof(list));
	CPU_AND(&m->maps, &m->maps, recorded);
	if (!CPU_COUNT(&m->maps)) {
		snprintf(errbuf, errsz, "--threads=%s: Empty maps mask: %s (no CPU recorded)", spec,
			 list);
		return -EINVAL;
	}
	for (int t = 0; t < ts->nr - 1; t++) {
		cpu_set_t both;
		const char *which = "maps";

		CPU_AND(&both, &ts->masks[t].maps, &m->maps);
		if (!CPU_COUNT(&both)) {
			CPU_AND(&both, &ts->masks[t].affinity, &m->affinity);
			which = "affinity";
		}
		if (CPU_COUNT(&both)) {
			cpu_set__str(&both, list, sizeof(list));
			snprintf(errbuf, errsz, "--threads=%s: Intersecting %s mask: %s", spec, which,
				 list);
			return -EINVAL;
		}
	}
	return 0;
}

int threads_spec__parse(struct threads_spec *ts, const char *spec, const int *cpus, int nr,
			threads_group_fn group, char *errbuf, size_t errsz)
{
	cpu_set_t recorded;
	const char *s = spec && *spec ? spec : "cpu";
	int err = 0;

	memset(ts, 0, sizeof(*ts));
	for (size_t l = 0; l < ARRAY_SIZE(layout_names); l++)
		if (!strcmp(s, layout_names[l]))
			return threads_spec__layout(ts, l, cpus, nr, group, errbuf, errsz);
	CPU_ZERO(&recorded);
	for (int i = 0; i < nr; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			CPU_SET(cpus[i], &recorded);
	for (const char *p = s, *end = s + strlen(s); !err && p < end;) {
		const char *colon = memchr(p, ':', end - p);
		size_t n = (colon ? colon : end) - p;

		if (n)
			err = threads_spec__entry(ts, p, n, &recorded, s, errbuf, errsz);
		p += n + 1;
	}
	if (!err && !ts->nr) {
		snprintf(errbuf, errsz, "--threads=%s: Invalid thread maps or affinity specs", s);
		err = -EINVAL;
	}
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
