/* What perfdata/ shares between the feature writer, the files that make
 * the machine's features and the reader: nothing outside perfdata/ uses it. */
#ifndef PERF_HEADER_INTERNAL_H
#define PERF_HEADER_INTERNAL_H

#include "perfdata/header.h"

/* The bodies of the features that describe the machine, from sysfs as
 * perf 6.1 reads it: header-topology.c (CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * MEM_TOPOLOGY), header-cache.c (CACHE), header-pmu.c (PMU_MAPPINGS,
 * PMU_CAPS, CPU_PMU_CAPS). 0 or -errno; on an error the feature is left
 * out, as the stock leaves out what it cannot read. */
int header__cpu_topology(struct buf *b);
int header__numa_topology(struct buf *b);
int header__mem_topology(struct buf *b);
int header__cache(struct buf *b);
int header__pmu_mappings(struct buf *b);
int header__pmu_caps(struct buf *b);
int header__cpu_pmu_caps(struct buf *b);

/* header-check.c: 0 when the body of feature feat (one of the above, or
 * BUILD_ID, BPF_PROG_INFO, BPF_BTF) holds what its counts and lengths
 * say, -EINVAL when not; other features: 0. nr_cpus: the available CPUs
 * that NRCPUS gives (0 without it), which CPU_TOPOLOGY must describe. */
int header__check_feature(int feat, const void *body, u64 size, u32 nr_cpus);

#endif
