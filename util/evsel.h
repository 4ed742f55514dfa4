/* One event as the user asked for it, and once opened its fds and ids. */
#ifndef PERF_EVSEL_H
#define PERF_EVSEL_H

#include <linux/perf_event.h>
#include "util/callchain.h"
#include "lib/util.h"

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
	int system_wide;	/* of whole CPUs (any task) whatever the session's threads */
	/* the CPUs it is opened on, of the session's (NULL: all of them) */
	const struct cpu_map *only_cpus;
	u64 file_sample_type;	/* the samples' layout in files, when the recorder
				 * rewrites them (0: attr.sample_type) */
	int nr_cpus, nr_threads;
	int twinned;		/* fd and id hold TWIN_SLOTS sets of [cpu][thread] */
	int *fd;		/* [cpu][thread] (twinned: [slot][cpu][thread]) */
	u64 *id;		/* the same layout */
	u64 *gone_id;		/* ids of fds replaced (evsel__reopen_fd()), whose records
				 * a ring or a file may still hold */
	int nr_gone_ids;
};

/* New event with a copy of attr and name; NULL with errno set. Freed with
 * evsel__delete(), which also closes whatever was opened. */
struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name);
/* A bpf-output event that a BPF program writes into, named name: each
 * output one sample; on every CPU, of any task, whatever the target (a
 * program writes into the event of the CPU it runs on); not inherited
 * (the kernel takes no inherited event into a program's map); forward
 * (drained: the map holds one event a CPU, which twins taking turns
 * would leave behind). evsel__delete() frees it; NULL with errno set. */
struct evsel *evsel__new_bpf_output(const char *name);
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
/* A flight recorder's twin events: two sets of the same events, each
 * writing into rings of its own, take turns, and the set switched from
 * stands still while it is read. Slot 0 holds the events as opened, slot
 * 1 their twins: they hold the rings, and stay off. The events that
 * sample are in slots 2 (set 0) and 3 (set 1), opened anew each time
 * their rings have been read, because of two hits of one tracepoint the
 * event opened last stamps first (see evlist__switch_twins()). A set's
 * live events are slot 2 or 3's, slot 0 or 1's while those are closed. */
#define TWIN_SLOTS 4
/* Opens a disabled twin of every open fd in slot 1, with the attr the
 * open settled on, in the twins' group of its leader (whose twins must be
 * open). 0 or -errno with errbuf set; on error no twin stays open. */
int evsel__open_twins(struct evsel *evsel, struct cpu_map *cpus, struct thread_map *threads,
		      char *errbuf, size_t errsz);
/* Opens one disabled twin for slot's (cpu c, thread t), in the group of
 * its leader's fd of that slot, with its id read into the slot and the
 * event's filter set. Returns the fd (the caller's) or -errno. */
int evsel__open_twin_fd(struct evsel *evsel, int slot, struct cpu_map *cpus,
			struct thread_map *threads, int c, int t);
void evsel__close_twins(struct evsel *evsel);
/* --filter: ands filter to the event's filter, as perf does with a second
 * one. 0 or -ENOMEM. */
int evsel__append_filter(struct evsel *evsel, const char *filter);

/* The attr files describe the event with: its samples as written. */
static inline struct perf_event_attr evsel__file_attr(const struct evsel *e)
{
	struct perf_event_attr a = e->attr;

	if (e->file_sample_type)
		a.sample_type = e->file_sample_type;
	return a;
}

static inline int evsel__is_leader(const struct evsel *e)
{
	return e->leader == e;
}

static inline int *evsel__fd(struct evsel *e, int cpu_idx, int thread_idx)
{
	return &e->fd[cpu_idx * e->nr_threads + thread_idx];
}

static inline int *evsel__slot_fd(struct evsel *e, int slot, int cpu_idx, int thread_idx)
{
	return &e->fd[(slot * e->nr_cpus + cpu_idx) * e->nr_threads + thread_idx];
}

static inline u64 *evsel__slot_id(struct evsel *e, int slot, int cpu_idx, int thread_idx)
{
	return &e->id[(slot * e->nr_cpus + cpu_idx) * e->nr_threads + thread_idx];
}

/* The fd of set's live event at (cpu_idx, thread_idx), or -1. */
static inline int evsel__live_fd(struct evsel *e, int set, int cpu_idx, int thread_idx)
{
	int fresh = *evsel__slot_fd(e, set + 2, cpu_idx, thread_idx);

	return fresh >= 0 ? fresh : *evsel__slot_fd(e, set, cpu_idx, thread_idx);
}

/* Entries in fd and id. */
static inline int evsel__nr_fds(const struct evsel *e)
{
	return e->nr_cpus * e->nr_threads * (e->twinned ? TWIN_SLOTS : 1);
}

/* Every id the event has had: those of id[], then the gone ones; 0 where
 * no fd is open. */
static inline int evsel__nr_id_slots(const struct evsel *e)
{
	return (e->id ? evsel__nr_fds(e) : 0) + e->nr_gone_ids;
}

static inline u64 evsel__id_at(const struct evsel *e, int k)
{
	int live = e->id ? evsel__nr_fds(e) : 0;

	return k < live ? e->id[k] : e->gone_id[k - live];
}

/* Opens anew the event of slot's (cpu index c, thread t), as
 * evsel__open_twin_fd() does (disabled), writing into ring_fd's ring
 * (SET_OUTPUT), in place of the fd there: for an event of a whole CPU
 * that the kernel dropped when the CPU went offline, which nothing
 * revives. The id replaced joins gone_id. Returns the fd replaced (the
 * caller's now, to close, or to keep while its ring is mapped), or
 * -errno with nothing changed. */
int evsel__reopen_fd(struct evsel *e, int slot, struct cpu_map *cpus,
		     struct thread_map *threads, int c, int t, int ring_fd);

struct buf;
/* The ids of the fds open and of those replaced (what a file's attr
 * lists: an fd not open, a twin slot not in use, has id 0, which the
 * kernel never gives), and their number. */
u64 evsel__nr_ids(const struct evsel *e);
void evsel__put_ids(const struct evsel *e, struct buf *b);

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

/* An integer from /proc/sys/kernel/NAME, or def when it cannot be read. */
long sysctl__read(const char *name, long def);

#endif
