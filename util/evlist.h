/* The events of one session, the CPUs and threads they watch, and their
 * forward and backward rings. */
#ifndef PERF_EVLIST_H
#define PERF_EVLIST_H

#include <stddef.h>
#include "util/evsel.h"
#include "lib/id-hash.h"
#include "util/mmap.h"
#include "util/hotplug.h"

struct cpu_map;
struct thread_map;

/* The events of one session, the CPUs and threads they watch, and their
 * rings: per CPU one forward ring and, for --overwrite, one backward ring;
 * every event of a CPU writes into the ring of its direction (SET_OUTPUT). */
struct evlist {
	struct evsel **entries;
	int nr_entries;
	int last_parse;		/* the first event of the last parse_events(): --filter's */
	struct cpu_map *cpus;
	/* -C beside events of every CPU (evsel->system_wide): the CPUs the
	 * other events watch, cpus being every CPU online (NULL: all of cpus) */
	struct cpu_map *target_cpus;
	struct thread_map *threads;
	struct mmap *fwd;	/* [cpus->nr] (--per-thread: [threads->nr]), .pc NULL where unused */
	struct mmap *bwd;	/* [cpus->nr] or NULL */
	struct mmap *bwd_twin;	/* the twins' backward rings, like bwd, or NULL */
	int twin_active;	/* the set of backward events that samples (1: the twins) */
	int twin_stale;		/* the set to open anew before its next turn, or -1 */
	int samples_on;		/* enabled by evlist__enable(), not yet disabled */
	int tracking_on;	/* enabled by either enable, not yet disabled */
	int nr_mmaps;
	struct id_hash ids;	/* sample id -> evsel, filled by evlist__open() */
	/* events of whole CPUs: the CPUs that go offline (which kills their
	 * events for good) and come back, watched from before the open */
	struct cpu_hotplug hotplug;
	int hotplug_err;	/* -errno: why it is not watched */
};

/* NULL with errno set; evlist__delete() frees it and every evsel. */
struct evlist *evlist__new(void);
void evlist__delete(struct evlist *evlist);
/* Takes ownership of evsel (deleted here on failure). 0 or -ENOMEM. */
int evlist__add(struct evlist *evlist, struct evsel *evsel);
/* Sets the cpu and thread maps (takes a reference to each). */
void evlist__set_maps(struct evlist *evlist, struct cpu_map *cpus, struct thread_map *threads);
/* Whether an event is of every CPU whatever the target (system_wide). */
int evlist__has_system_wide(const struct evlist *evlist);

/* Makes entries [first, end) one group led by the first (--group,
 * {a,b}); a NULL name is an anonymous group. 0 or -ENOMEM. */
int evlist__set_leader(struct evlist *evlist, int first, int end, const char *name);
/* The groups of more than one event (what GROUP_DESC lists). */
int evlist__nr_groups(const struct evlist *evlist);

/* Whether the events are of whole CPUs (not of tasks, nor per thread):
 * those the kernel drops when their CPU goes offline. */
int evlist__whole_cpus(const struct evlist *evlist);
/* Opens every event (leaders before their members) and sets their
 * filters, and hashes their ids; errbuf gets one line naming the event
 * (and filter) on failure. Events of whole CPUs get the hotplug watch
 * first (or hotplug_err says why not). */
int evlist__open(struct evlist *evlist, char *errbuf, size_t errsz, int verbose);
/* Opens a twin of every backward event (evsel__open_twins()), before
 * the rings are mapped: only for events of whole CPUs (one fd per CPU,
 * ring r being CPU index r's), since an event of a task opened anew would
 * not follow the children the first inherited. 0 or -errno with errbuf
 * set; on error no twin stays open. */
int evlist__open_twins(struct evlist *evlist, char *errbuf, size_t errsz);
/* Whether every backward ring has a twin ring. */
static inline int evlist__twinned(const struct evlist *evlist)
{
	return evlist->bwd_twin != NULL;
}
/* Moves the sampling to the other set of backward events: every twin is
 * enabled, then, after 50 us for the hits the enables interrupted to end,
 * every event of the set sampling so far is disabled, so that no sample
 * is missed (a CPU the host stops for longer in such a hit aside) and the
 * rings left stand still until the next switch. A hit in between is in
 * both rings, stamped first by the event opened last (the kernel puts the
 * events of a CPU back on a tracepoint's list in the order they were
 * opened, each at its head): so the set switched to must be the one
 * opened last, and the set switched from is opened anew
 * (evlist__reopen_twins()) before its next turn. Each ring switched to
 * has enabled_ns set and switched_ns 0; each ring left has switched_ns, an instant
 * at which both sets sampled on every CPU. With samples off only the
 * roles change. Returns the set that stood still; -errno when an enable
 * failed, after every set is as it was. */
int evlist__switch_twins(struct evlist *evlist);
/* Opens anew, disabled, the events of the set the last switch stood
 * still, once its rings are read (they write where the old ones did):
 * done before the next switch, which does it otherwise. 0 or -errno;
 * a set that could not be opened anew keeps its events, and a dump may
 * then hold a hit of the overlap twice. */
int evlist__reopen_twins(struct evlist *evlist);
/* Maps the rings (sizes in data bytes, powers of two). 0 or -errno with a
 * "mmap: cpu N: ..." line in errbuf. Twins whose rings cannot be had are
 * closed, with 0 and why in errbuf. */
int evlist__mmap(struct evlist *evlist, size_t fwd_bytes, size_t bwd_bytes,
		 char *errbuf, size_t errsz);
void evlist__munmap(struct evlist *evlist);

/* Every event, or with twins their active set; disable stops both sets. */
int evlist__enable(struct evlist *evlist);
int evlist__disable(struct evlist *evlist);
/* Only the tracking events: enabled before /proc is read. 0 or -errno. */
int evlist__enable_tracking(struct evlist *evlist);
/* PAUSE_OUTPUT on every backward ring (1 pauses, 0 resumes). 0 or -errno. */
int evlist__pause_backward(struct evlist *evlist, int pause);

/* CPU index c came back online: the kernel dropped its events when it
 * went (they stay off whatever an enable says), so each is opened anew
 * in the same ring (the ring keeps what it held, the fd it was mapped
 * from stays its own), ids hashed, the twins' sets in the order that
 * makes the next switch's set the newest, and those that should be on
 * enabled. The fds replaced are disabled and closed (for a CPU that never
 * went, a few samples may be in its ring twice). 0 or -errno with errbuf
 * set: the events not yet replaced stay as they were (-ENODEV: the CPU
 * went again). */
int evlist__revive_cpu(struct evlist *evlist, int c, char *errbuf, size_t errsz);

/* The event owning a sample id; NULL if unknown. */
struct evsel *evlist__id2evsel(const struct evlist *evlist, u64 id);
int evlist__has_tracepoints(const struct evlist *evlist);

#define evlist__for_each(evlist, pos, i) \
	for ((i) = 0; (i) < (evlist)->nr_entries && ((pos) = (evlist)->entries[i]); (i)++)

#endif
