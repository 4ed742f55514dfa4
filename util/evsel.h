#ifndef PERF_EVSEL_H
#define PERF_EVSEL_H

#include <linux/perf_event.h>
#include "util/callchain.h"
#include "util/util.h"

struct cpu_map;
struct thread_map;

/* One event as the user asked for it, and once opened, its fds and ids,
 * one per (cpu, thread) pair, laid out [cpu][thread]. */
struct evsel {
	struct perf_event_attr attr;
	char *name;
	char *tp_sys, *tp_name;	/* tracepoints only */
	int idx;
	int overwrite;		/* -1: as --overwrite says; 0/1: /no-overwrite/, /overwrite/ */
	int user_period;	/* period/freq came from a term: -c/-F leave it */
	int tracking;		/* the dummy carrying COMM/MMAP2/FORK/EXIT */
	int wake_each;		/* wake the reader on every sample (trigger events) */
	struct evsel *leader;	/* itself unless a member of a {group} */
	int nr_members;		/* a leader's group size, itself included */
	char *group_name;	/* a leader's NAME{...}, or NULL */
	int sample_read;	/* :S: the leader's samples read the whole group */
	char *filter;		/* --filter / --exclude-perf, set on every fd once open */
	int inherit;		/* -1: as --no-inherit says; 0/1: /no-inherit/, /inherit/ */
	int has_callchain;	/* /call-graph=/, /max-stack=/: callchain overrides -g */
	struct callchain_param callchain;
	u16 max_stack;		/* /max-stack=N/: attr.sample_max_stack */
	int cgroup_fd;		/* -G: its cgroup's directory, for PERF_FLAG_PID_CGROUP; or -1 */
	int nr_cpus, nr_threads;
	int *fd;
	u64 *id;
};

/* New event with a copy of attr and name; NULL with errno set. Freed with
 * evsel__delete(), which also closes whatever was opened. */
struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name);
void evsel__delete(struct evsel *evsel);

/* Opens one fd per cpu x thread. Falls back from cycles to cpu-clock and
 * from kernel+user to user-only sampling the way perf does, caps a
 * frequency above perf_event_max_sample_rate and raises the soft
 * RLIMIT_NOFILE when it runs out of fds. A group member goes into its
 * leader's group (the leader must be open). verbose > 0 notes the fallbacks
 * on stderr; verbose < 0 (quiet) silences even the capping warning.
 * 0 or -errno; on error all fds of this evsel are closed and errbuf says
 * why in one line. */
int evsel__open(struct evsel *evsel, struct cpu_map *cpus,
		struct thread_map *threads, char *errbuf, size_t errsz, int verbose);
void evsel__close(struct evsel *evsel);
/* --filter: ands filter to the event's filter, as perf does with a second
 * one. 0 or -ENOMEM. */
int evsel__append_filter(struct evsel *evsel, const char *filter);

static inline int evsel__is_leader(const struct evsel *e)
{
	return e->leader == e;
}

static inline int *evsel__fd(struct evsel *e, int cpu_idx, int thread_idx)
{
	return &e->fd[cpu_idx * e->nr_threads + thread_idx];
}

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

/* An integer from /proc/sys/kernel/NAME, or def when it cannot be read. */
long sysctl__read(const char *name, long def);

#endif
