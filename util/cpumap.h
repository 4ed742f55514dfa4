/* The CPUs and the threads a session's events watch, as shared,
 * reference-counted lists. */
#ifndef PERF_CPUMAP_H
#define PERF_CPUMAP_H

#include <sys/types.h>

/* A shared, reference-counted list of CPUs (-1 alone means "any CPU"). */
struct cpu_map {
	int refcnt;
	int nr;
	int map[];
};

/* New map from "0-3,5", or the online CPUs when list is NULL. NULL with
 * errno set (EINVAL for bad syntax, ENODEV for an offline/absent CPU).
 * The caller owns one reference: cpu_map__put() frees it. */
struct cpu_map *cpu_map__new(const char *list);
/* The single-entry map {-1}. */
struct cpu_map *cpu_map__new_any(void);
struct cpu_map *cpu_map__get(struct cpu_map *map);
void cpu_map__put(struct cpu_map *map);
/* Whether cpu is in map (NULL: none is). */
int cpu_map__has(const struct cpu_map *map, int cpu);
/* Number of CPUs the kernel could ever bring online (0..N-1), for headers. */
int cpu__max_present(void);

/* A shared list of thread ids (-1 alone means "any task": -a). */
struct thread_map {
	int refcnt;
	int nr;
	pid_t map[];
};

/* All threads of each pid in a comma list (-p), or exactly the listed tids
 * (-t) when tids_only. NULL with errno set (ESRCH: no such process). */
struct thread_map *thread_map__new_str(const char *list, int tids_only);
/* Every thread of every process uid owns (-u), as /proc says now; a
 * process that exits during the scan is left out. NULL with errno set
 * (ESRCH: the user runs nothing). */
struct thread_map *thread_map__new_uid(uid_t uid);
/* The single-entry map {pid}; pid -1 means any task. */
struct thread_map *thread_map__new_pid(pid_t pid);
struct thread_map *thread_map__get(struct thread_map *map);
void thread_map__put(struct thread_map *map);

#endif
