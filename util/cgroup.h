/* Cgroups: -G (events counted in a cgroup) and --all-cgroups (the CGROUP
 * records of the cgroups that exist). */
#ifndef PERF_CGROUP_H
#define PERF_CGROUP_H

#include <stddef.h>
#include "lib/util.h"

struct buf;
struct evlist;

/* Where perf_event cgroups live: a cgroup v1 mount with the perf_event
 * controller, else the cgroup2 mount. 0 or -ENOENT (none mounted). */
int cgroup__mountpoint(char *path, size_t sz);

/* The tightest memory limit on this process: of its memory cgroup and
 * each ancestor's, cgroup v2's memory.max and memory.high, v1's
 * memory.limit_in_bytes. */
#define CGROUP_MEM_PATH (2 * 4096 + 64)
struct cgroup_memory {
	u64 room;		/* the limit less the cgroup's usage (its page
				 * cache on the LRU not counted), or 0 */
	u64 limit;
	char file[CGROUP_MEM_PATH];	/* the limit's file */
};

/* Fills m with the limit that leaves the least room. 0, or -ENOENT when
 * no cgroup limits this process's memory. */
int cgroup__memory_limit(struct cgroup_memory *m);

/* -G NAME: the cgroup's directory, opened for PERF_FLAG_PID_CGROUP. The
 * fd, or -errno with errbuf naming the path. */
int cgroup__open(const char *name, char *errbuf, size_t errsz);

/* -G A,B,...: the Nth cgroup named on the command line (*nr counts them
 * across -G options, empty names too) goes to the Nth event; when only
 * one was named, it goes to every event, as perf does. The events come
 * first. 0 or -errno with errbuf set. */
int cgroup__assign(struct evlist *evlist, const char *arg, int *nr, char *errbuf,
		   size_t errsz);

/* --all-cgroups: one PERF_RECORD_CGROUP (id and path under the mount) for
 * every cgroup that exists, so samples of tasks in cgroups made before the
 * recording have a name. 0 or -errno. */
int cgroup__synthesize(struct buf *out, u64 sample_type);

/* The id of the cgroup v2 at path (relative to the cgroup2 mount; a
 * leading '/' is the mount), the one a BPF program reads off a task:
 * opened beneath the mount without following any link, so that a path a
 * local user planted cannot lead elsewhere. 0 or -errno with errbuf
 * naming the path. */
int cgroup__v2_id(const char *path, u64 *id, char *errbuf, size_t errsz);

#endif
