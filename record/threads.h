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

/* The machine a spec is resolved over: the CPUs recorded (cpus[nr]), the
 * number of CPUs it could have (a mask naming a CPU past it is refused;
 * the stock lets that number itself through, to be filtered out) and
 * its grouping. */
struct threads_cpus {
	const int *cpus;
	int nr;
	int max_cpu;
	threads_group_fn group;
};

/* Resolves spec ("" or NULL: cpu; a spec that begins with a layout's name,
 * in any case, is that layout, as the stock reads it) over tc: a
 * predefined layout makes one thread per group of the recorded CPUs, with
 * that group as its affinity; user masks are read and checked as the
 * stock reads and checks them: both masks filtered through the recorded
 * CPUs, refused where one is left empty or meets an earlier thread's, or
 * where a list does not read. 0 with ts filled (threads_spec__exit() frees
 * it), or the error whose exit status the stock gives, errbuf holding the
 * stock's lines (none for a spec of no pair): -EINVAL (a bad spec), -ENODEV
 * (a CPU past max_cpu), -ENOMEM (a list that does not read, as the stock's
 * library reports it). */
int threads_spec__parse(struct threads_spec *ts, const char *spec, const struct threads_cpus *tc,
			char *errbuf, size_t errsz);
void threads_spec__exit(struct threads_spec *ts);

#endif
