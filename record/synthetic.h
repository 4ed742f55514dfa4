/* Synthesized records of what already exists (the kernel's map, tasks
 * from /proc, their namespaces), and the build ids read on the way. */
#ifndef PERF_SYNTHETIC_H
#define PERF_SYNTHETIC_H

#include <sys/types.h>
#include "lib/buf.h"
#include "util/event.h"

/* Remembers the build id of each file already read, so a system-wide
 * synthesis reads every library once. */
struct build_id_cache;
/* NULL with errno set; freed with build_id_cache__delete(). */
struct build_id_cache *build_id_cache__new(void);
void build_id_cache__delete(struct build_id_cache *c);
/* The build id of an ELF file: its length (1..20) with bid filled, or 0. */
int build_id_cache__get(struct build_id_cache *c, const char *path, u8 bid[BUILD_ID_SIZE]);

/* Every synthesized record has time 0 (before anything the kernel logs)
 * and id 0, and ends with the sample_id trailer for sample_type. */

/* The kernel's text map, "[kernel.kallsyms]_text" as perf names it. 0 or -errno. */
int synthesize__kernel_mmap(struct buf *out, u64 sample_type);
/* COMM for one task (the workload before its exec). */
int synthesize__comm(struct buf *out, pid_t pid, pid_t tid, const char *comm, u64 sample_type);
/* NAMESPACES for one task (--namespaces): the device and inode of each
 * of its namespaces, read from /proc/PID/task/TID/ns. */
int synthesize__namespaces(struct buf *out, pid_t pid, pid_t tid, u64 sample_type);
/* A process that exists now: COMM and executable MMAP2s (with build ids
 * when cache is given) for its leader, FORK+COMM for its other threads.
 * -ESRCH if it is gone (not an error for callers scanning /proc). */
int synthesize__process(struct buf *out, pid_t pid, u64 sample_type, struct build_id_cache *c);
/* Every process in /proc. */
int synthesize__all(struct buf *out, u64 sample_type, struct build_id_cache *c);
/* A COMM for every thread in /proc, of the name it has now: the names of
 * the tasks whose records the kernel dropped, as far as they still
 * exist; a pending SIGINT, SIGTERM or SIGHUP ends the scan where it is,
 * with the names so far. The threads named, or -errno. */
int synthesize__names(struct buf *out, u64 sample_type);

#endif
