/* --threads: the stock perf's spec of drain threads (cpu, core, package,
 * numa, or masks "<cpus>/<affinity>:..."), resolved into one CPU mask and
 * one affinity mask per thread, over the CPUs being recorded. */
#ifndef PERF_RECORD_THREADS_H
#define PERF_RECORD_THREADS_H

#include <sched.h>
#include <stddef.h>

/* What a predefined layout groups CPUs by. */
enum threads_layout {
	THREADS_CPU,
	THREADS_CORE,
	THREADS_PACKAGE,
	THREADS_NUMA,
	THREADS_USER,	/* masks given by the user */
};

/* One drain thread: the CPUs whose rings it reads, where it may run. */
struct thread_masks {
	cpu_set_t maps;
	cpu_set_t affinity;
};

/* The drain threads of a spec. */
struct threads_spec {
	int nr;
	struct thread_masks *masks;
};

/* The group (core, package, NUMA node) cpu belongs to under layout, as a
 * number equal for CPUs grouped together; -errno where it cannot be
 * told. */
typedef long (*threads_group_fn)(int cpu, enum threads_layout layout);

/* The machine's grouping: core (package and core id), package, NUMA node,
 * from sysfs. */
long threads__sysfs_group(int cpu, enum threads_layout layout);

/* Resolves spec ("" or NULL: cpu) over the CPUs recorded (cpus[nr]): a
 * predefined layout makes one thread per group of those CPUs, with that
 * group as its affinity; user masks are filtered through the recorded
 * CPUs, refused where one is left empty, where two overlap, or where one
 * names a CPU past CPU_SETSIZE or of bad syntax, as the stock perf
 * refuses them. 0 with ts filled (threads_spec__exit() frees it), or
 * -EINVAL with one line in errbuf naming the culprit. */
int threads_spec__parse(struct threads_spec *ts, const char *spec, const int *cpus, int nr,
			threads_group_fn group, char *errbuf, size_t errsz);
void threads_spec__exit(struct threads_spec *ts);

#endif
