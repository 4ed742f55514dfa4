/* A session's events: opening them on every CPU and thread, their rings,
 * enabling, disabling, and switching sampling to the twins. */
#include "util/evlist.h"
#include "util/cpumap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct evlist *evlist__new(void)
{
	struct evlist *evlist = calloc(1, sizeof(struct evlist));

	if (evlist) {
		evlist->twin_stale = -1;
		cpu_hotplug__init(&evlist->hotplug);
	}
	return evlist;
}

void evlist__delete(struct evlist *evlist)
{
	if (!evlist)
		return;
	evlist__munmap(evlist);
	cpu_hotplug__close(&evlist->hotplug);
	for (int i = 0; i < evlist->nr_entries; i++)
		evsel__delete(evlist->entries[i]);
	free(evlist->entries);
	cpu_map__put(evlist->cpus);
	cpu_map__put(evlist->target_cpus);
	thread_map__put(evlist->threads);
	id_hash__exit(&evlist->ids);
	free(evlist);
}

int evlist__add(struct evlist *evlist, struct evsel *evsel)
{
	struct evsel **n = realloc(evlist->entries, (evlist->nr_entries + 1) * sizeof(*n));

	if (!n) {
		evsel__delete(evsel);
		return -ENOMEM;
	}
	evsel->idx = evlist->nr_entries;
	n[evlist->nr_entries++] = evsel;
	evlist->entries = n;
	return 0;
}

void evlist__set_maps(struct evlist *evlist, struct cpu_map *cpus, struct thread_map *threads)
{
	cpu_map__put(evlist->cpus);
	thread_map__put(evlist->threads);
	evlist->cpus = cpu_map__get(cpus);
	evlist->threads = thread_map__get(threads);
}

int evlist__set_leader(struct evlist *evlist, int first, int end, const char *name)
{
	struct evsel *leader = evlist->entries[first];
	char *copy = NULL;

	if (name && !(copy = strdup(name)))
		return -ENOMEM;
	/* a --group over {groups} makes one group of them all, as perf does */
	for (int i = first; i < end; i++) {
		free(evlist->entries[i]->group_name);
		evlist->entries[i]->group_name = NULL;
		evlist->entries[i]->leader = leader;
		evlist->entries[i]->nr_members = 0;
	}
	leader->nr_members = end - first;
	leader->group_name = copy;
	return 0;
}

int evlist__nr_groups(const struct evlist *evlist)
{
	int n = 0;

	for (int i = 0; i < evlist->nr_entries; i++)
		n += evsel__is_leader(evlist->entries[i]) && evlist->entries[i]->nr_members > 1;
	return n;
}

/* The kernel checks a filter only when it is set: after the open. */
static int evsel__apply_filter(struct evsel *e, char *errbuf, size_t errsz)
{
	for (int k = 0; e->filter && k < e->nr_cpus * e->nr_threads; k++) {
		if (e->fd[k] >= 0 && ioctl(e->fd[k], PERF_EVENT_IOC_SET_FILTER, e->filter)) {
			int err = -errno;

			snprintf(errbuf, errsz, "failed to set filter \"%s\" on event %s: %s",
				 e->filter, e->name, strerror(errno));
			return err;
		}
	}
	return 0;
}

int evlist__has_system_wide(const struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr_entries; i++)
		if (evlist->entries[i]->system_wide)
			return 1;
	return 0;
}

int evlist__whole_cpus(const struct evlist *evlist)
{
	return evlist->cpus && evlist->threads && evlist->cpus->nr && evlist->cpus->map[0] >= 0 &&
	       evlist->threads->nr == 1 && evlist->threads->map[0] == -1;
}

int evlist__open(struct evlist *evlist, char *errbuf, size_t errsz, int verbose)
{
	/* first: a CPU that goes and comes back during the open is seen */
	if (evlist__whole_cpus(evlist) && evlist->hotplug.fd < 0)
		evlist->hotplug_err = cpu_hotplug__open(&evlist->hotplug);
	struct thread_map *any = thread_map__new_pid(-1);

	if (!any) {
		snprintf(errbuf, errsz, "open: %s", strerror(errno));
		return -ENOMEM;
	}
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		int err;

		e->only_cpus = e->system_wide ? NULL : evlist->target_cpus;
		err = evsel__open(e, evlist->cpus, e->system_wide ? any : evlist->threads,
				  errbuf, errsz, verbose);

		if (!err)
			err = evsel__apply_filter(e, errbuf, errsz);
		for (int k = 0; !err && k < e->nr_cpus * e->nr_threads; k++)
			if (e->fd[k] >= 0 && id_hash__add(&evlist->ids, e->id[k], e)) {
				err = -ENOMEM;
				snprintf(errbuf, errsz, "%s: ids: %s", e->name, strerror(ENOMEM));
			}
		if (err) {
			thread_map__put(any);
			return err;
		}
	}
	thread_map__put(any);
	return 0;
}

static void evlist__close_twins(struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr_entries; i++)
		evsel__close_twins(evlist->entries[i]);
}

int evlist__open_twins(struct evlist *evlist, char *errbuf, size_t errsz)
{
	/* an event of a task counts the children it inherits; one opened
	 * anew would start over with none */
	if (evlist->threads->nr != 1 || evlist->threads->map[0] != -1) {
		snprintf(errbuf, errsz, "twin events: only for events of whole CPUs");
		return -EOPNOTSUPP;
	}
	/* their ids are not hashed: only a forward event's are looked up */
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		int err;

		if (!e->attr.write_backward || !e->fd)
			continue;
		err = evsel__open_twins(e, evlist->cpus, evlist->threads, errbuf, errsz);
		if (err) {
			evlist__close_twins(evlist);
			return err;
		}
	}
	evlist->twin_stale = -1;
	return 0;
}

/* Closes every fd in slot of the twinned events. */
static void evlist__close_slot(struct evlist *evlist, int slot)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int c = 0; e->twinned && c < e->nr_cpus; c++) {
			int *fd = evsel__slot_fd(e, slot, c, 0);

			if (*fd >= 0)
				close(*fd);
			*fd = -1;
			*evsel__slot_id(e, slot, c, 0) = 0;
		}
	}
}

/* Whether a hit can reach two events of leader's group (and their twins)
 * at once: a tracepoint's, a software event's other than the clocks
 * (both go through a list of the CPU's events), a dynamic PMU's (kprobes,
 * uprobes). Counters and clocks each count on their own: their sets
 * need not be opened anew, which would restart a frequency's period. */
static int evlist__group_shares_hits(const struct evlist *evlist, const struct evsel *leader)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct perf_event_attr *a = &evlist->entries[i]->attr;

		if (evlist->entries[i]->leader != leader)
			continue;
		if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		    a->type == PERF_TYPE_RAW || a->type == PERF_TYPE_BREAKPOINT)
			continue;
		if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						       a->config == PERF_COUNT_SW_TASK_CLOCK))
			continue;
		return 1;
	}
	return 0;
}

int evlist__reopen_twins(struct evlist *evlist)
{
	int set = evlist->twin_stale, err = 0;

	if (set < 0)
		return 0;
	evlist->twin_stale = -1;
	evlist__close_slot(evlist, set + 2);
	for (int i = 0; i < evlist->nr_entries && !err; i++) {
		struct evsel *e = evlist->entries[i];

		if (!e->twinned || !evlist__group_shares_hits(evlist, e->leader))
			continue;
		for (int c = 0; c < e->nr_cpus && !err; c++) {
			int *fresh = evsel__slot_fd(e, set + 2, c, 0);
			const struct mmap *ring = set ? &evlist->bwd_twin[c] : &evlist->bwd[c];

			if (*evsel__slot_fd(e, set, c, 0) < 0)
				continue;
			*fresh = evsel__open_twin_fd(e, set + 2, evlist->cpus, evlist->threads, c, 0);
			if (*fresh < 0) {
				err = *fresh;
				*fresh = -1;
			} else if (ioctl(*fresh, PERF_EVENT_IOC_SET_OUTPUT, ring->fd)) {
				err = -errno;
			}
		}
	}
	/* the set runs on the events it had */
	if (err)
		evlist__close_slot(evlist, set + 2);
	return err;
}

/* Points fd at the CPU's ring of its direction, mapping it on first use. */
static int evlist__attach_ring(struct mmap *ring, int fd, int cpu, size_t bytes,
			       int backward, char *errbuf, size_t errsz)
{
	int err;

	if (!ring->pc) {
		err = mmap__init(ring, fd, cpu, bytes, backward);
		if (err)
			snprintf(errbuf, errsz, "mmap: cpu %d: %s ring of %zu bytes: %s%s", cpu,
				 backward ? "backward" : "forward", bytes, strerror(-err),
				 err == -EPERM ? " (see /proc/sys/kernel/perf_event_mlock_kb)" : "");
		return err;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd)) {
		err = -errno;
		snprintf(errbuf, errsz, "mmap: cpu %d: SET_OUTPUT: %s", cpu, strerror(errno));
		return err;
	}
	return 0;
}

static void evlist__munmap_twins(struct evlist *evlist)
{
	for (int c = 0; evlist->bwd_twin && c < evlist->nr_mmaps; c++)
		mmap__munmap(&evlist->bwd_twin[c]);
	free(evlist->bwd_twin);
	evlist->bwd_twin = NULL;
}

/* The twins' rings, laid out as the first set's. Without them (a ring
 * the mlock limit refuses) the twins go, and dumps copy the rings. */
static void evlist__mmap_twins(struct evlist *evlist, size_t bytes, char *errbuf, size_t errsz)
{
	int err = 0, twinned = 0;

	for (int i = 0; i < evlist->nr_entries; i++)
		twinned |= evlist->entries[i]->twinned;
	if (!twinned)
		return;
	evlist->bwd_twin = calloc(evlist->nr_mmaps, sizeof(struct mmap));
	err = evlist->bwd_twin ? 0 : -ENOMEM;
	for (int c = 0; c < evlist->cpus->nr && !err; c++) {
		for (int i = 0; i < evlist->nr_entries && !err; i++) {
			struct evsel *e = evlist->entries[i];

			int fd = e->twinned ? *evsel__slot_fd(e, 1, c, 0) : -1;

			if (fd >= 0)
				err = evlist__attach_ring(&evlist->bwd_twin[c], fd, evlist->cpus->map[c],
							  bytes, 1, errbuf, errsz);
		}
	}
	/* every ring has its twin, or none does */
	for (int r = 0; !err && r < evlist->nr_mmaps; r++)
		if (!evlist->bwd[r].pc != !evlist->bwd_twin[r].pc) {
			err = -ENODEV;
			snprintf(errbuf, errsz, "twin rings: ring %d has no twin", r);
		}
	/* the events that sample are opened anew from the start, first
	 * set 0's, then set 1's, the one switched to first: those opened
	 * with the rings only hold them, and a session keeps as many fds
	 * from its first dump to its last */
	for (int set = 0; set < 2 && !err; set++) {
		evlist->twin_stale = set;
		err = evlist__reopen_twins(evlist);
		if (err)
			snprintf(errbuf, errsz, "twin events: opening set %d anew: %s", set,
				 strerror(-err));
	}
	if (!err)
		return;
	evlist__munmap_twins(evlist);
	evlist__close_twins(evlist);
	evlist->twin_stale = -1;
}

int evlist__mmap(struct evlist *evlist, size_t fwd_bytes, size_t bwd_bytes,
		 char *errbuf, size_t errsz)
{
	/* --per-thread: events on "any CPU" get one ring per thread */
	int per_thread = evlist->cpus->map[0] == -1;
	int ncpu = evlist->cpus->nr, err = 0, need_bwd = 0;
	int nr = per_thread ? evlist->threads->nr : ncpu;

	for (int i = 0; i < evlist->nr_entries; i++)
		need_bwd |= evlist->entries[i]->attr.write_backward;
	evlist->fwd = calloc(nr, sizeof(struct mmap));
	evlist->bwd = need_bwd ? calloc(nr, sizeof(struct mmap)) : NULL;
	evlist->nr_mmaps = nr;
	if (!evlist->fwd || (need_bwd && !evlist->bwd)) {
		snprintf(errbuf, errsz, "mmap: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int c = 0; c < ncpu && !err; c++) {
		for (int i = 0; i < evlist->nr_entries && !err; i++) {
			struct evsel *e = evlist->entries[i];
			int bw = e->attr.write_backward;

			for (int t = 0; t < e->nr_threads && !err; t++) {
				int fd = *evsel__fd(e, c, t), r = per_thread ? t : c;

				if (fd < 0)
					continue;
				err = evlist__attach_ring(bw ? &evlist->bwd[r] : &evlist->fwd[r], fd,
							  evlist->cpus->map[c],
							  bw ? bwd_bytes : fwd_bytes, bw, errbuf, errsz);
			}
		}
	}
	if (err)
		evlist__munmap(evlist);
	else if (need_bwd)
		evlist__mmap_twins(evlist, bwd_bytes, errbuf, errsz);
	return err;
}

void evlist__munmap(struct evlist *evlist)
{
	evlist__munmap_twins(evlist);
	for (int c = 0; c < evlist->nr_mmaps; c++) {
		if (evlist->fwd)
			mmap__munmap(&evlist->fwd[c]);
		if (evlist->bwd)
			mmap__munmap(&evlist->bwd[c]);
	}
	free(evlist->fwd);
	free(evlist->bwd);
	evlist->fwd = evlist->bwd = NULL;
	evlist->nr_mmaps = 0;
}

/* req on every fd of every event; of twinned ones, on the active set's
 * live ones only, unless all. */
static int evlist__ioctl_all(struct evlist *evlist, unsigned long req, int all)
{
	int ret = 0;

	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int k = 0; e->fd && (!e->twinned || all) && k < evsel__nr_fds(e); k++)
			if (e->fd[k] >= 0 && ioctl(e->fd[k], req, 0) && !ret)
				ret = -errno;
		for (int c = 0; e->fd && e->twinned && !all && c < e->nr_cpus; c++) {
			int fd = evsel__live_fd(e, evlist->twin_active, c, 0);

			if (fd >= 0 && ioctl(fd, req, 0) && !ret)
				ret = -errno;
		}
	}
	return ret;
}

int evlist__enable(struct evlist *evlist)
{
	evlist->samples_on = 1;
	evlist->tracking_on = 1;
	return evlist__ioctl_all(evlist, PERF_EVENT_IOC_ENABLE, 0);
}

/* req on the live fds of set that write into ring r (twins are events
 * of whole CPUs: ring r is CPU index r's). 0 or the first -errno, the
 * fds after it left as they were. */
static int evlist__ioctl_ring(struct evlist *evlist, int r, int set, unsigned long req)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		int fd = e->twinned ? evsel__live_fd(e, set, r, 0) : -1;

		if (fd >= 0 && ioctl(fd, req, 0))
			return -errno;
	}
	return 0;
}

/* A twin switch's wait between its enables and its disables. */
#define SWITCH_SETTLE_NS 50000

int evlist__switch_twins(struct evlist *evlist)
{
	int from = evlist->twin_active, to = !from, err;
	u64 cut;

	/* a set switched to must be the newest opened */
	if (evlist->twin_stale == to && (err = evlist__reopen_twins(evlist)))
		return err;
	/* every twin on before any event goes off: between the two passes
	 * both sets sample on every CPU, so that one instant can end the
	 * dump on all of them (ring_copy__index()) */
	for (int r = 0; r < evlist->nr_mmaps; r++) {
		struct mmap *ring = to ? &evlist->bwd_twin[r] : &evlist->bwd[r];

		if (!evlist->bwd[r].pc)
			continue;
		ring->enabled_ns = now_ns();
		ring->switched_ns = 0;
		if (!evlist->samples_on)
			continue;
		err = evlist__ioctl_ring(evlist, r, to, PERF_EVENT_IOC_ENABLE);
		if (err) {
			/* as it was: the twins enabled so far go off */
			for (int back = 0; back <= r; back++)
				evlist__ioctl_ring(evlist, back, to, PERF_EVENT_IOC_DISABLE);
			return err;
		}
	}
	/* a hit an enable came in the middle of (IRQs are on in a
	 * tracepoint's handler) goes on once it returns; were its CPU's
	 * events disabled before it gets to them, it would be in neither
	 * ring. Tens of microseconds let it end (CPUs the host holds
	 * longer aside) */
	if (evlist->samples_on)
		for (u64 settle = now_ns() + SWITCH_SETTLE_NS; now_ns() < settle; )
			;
	cut = now_ns();
	for (int r = 0; r < evlist->nr_mmaps; r++) {
		if (!evlist->bwd[r].pc)
			continue;
		(from ? &evlist->bwd_twin[r] : &evlist->bwd[r])->switched_ns = cut;
		/* a disable cannot fail on an open fd; were one left on, it
		 * would write into a ring nobody reads until its next turn */
		if (evlist->samples_on)
			evlist__ioctl_ring(evlist, r, from, PERF_EVENT_IOC_DISABLE);
	}
	evlist->twin_active = to;
	evlist->twin_stale = from;
	return from;
}

int evlist__enable_tracking(struct evlist *evlist)
{
	int ret = 0;

	evlist->tracking_on = 1;
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int k = 0; e->tracking && e->fd && k < e->nr_cpus * e->nr_threads; k++)
			if (e->fd[k] >= 0 && ioctl(e->fd[k], PERF_EVENT_IOC_ENABLE, 0) && !ret)
				ret = -errno;
	}
	return ret;
}

int evlist__disable(struct evlist *evlist)
{
	evlist->samples_on = 0;
	evlist->tracking_on = 0;
	return evlist__ioctl_all(evlist, PERF_EVENT_IOC_DISABLE, 1);
}

int evlist__pause_backward(struct evlist *evlist, int pause)
{
	for (int c = 0; evlist->bwd && c < evlist->nr_mmaps; c++)
		if (evlist->bwd[c].pc &&
		    ioctl(evlist->bwd[c].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause))
			return -errno;
	return 0;
}

/* The ring slot's event of CPU index c writes into. */
static struct mmap *evlist__ring_of(struct evlist *evlist, const struct evsel *e, int slot, int c)
{
	if (!e->attr.write_backward)
		return &evlist->fwd[c];
	/* slots 0 and 2 are set 0's, 1 and 3 set 1's (TWIN_SLOTS) */
	return slot % 2 ? &evlist->bwd_twin[c] : &evlist->bwd[c];
}

/* Whether the event of slot (CPU index c) should be on now. */
static int evlist__should_be_on(struct evlist *evlist, struct evsel *e, int slot, int c)
{
	if (e->tracking && evlist->tracking_on)
		return 1;
	if (!evlist->samples_on)
		return 0;
	return !e->twinned ||
	       *evsel__slot_fd(e, slot, c, 0) == evsel__live_fd(e, evlist->twin_active, c, 0);
}

/* evlist__revive_cpu() for one event's fd of slot. */
static int evlist__revive_fd(struct evlist *evlist, struct evsel *e, int slot, int c)
{
	struct mmap *ring = evlist__ring_of(evlist, e, slot, c);
	int old, fd;

	if (!ring->pc)
		return -ENODEV;
	old = evsel__reopen_fd(e, slot, evlist->cpus, evlist->threads, c, 0, ring->fd);
	if (old < 0)
		return old;
	fd = *evsel__slot_fd(e, slot, c, 0);
	/* dead, or (a CPU that never went) alive: off either way */
	ioctl(old, PERF_EVENT_IOC_DISABLE, 0);
	if (old == ring->fd)
		ring->own_fd = 1;
	else
		close(old);
	/* ids of the twins' sets are never looked up (evlist__open_twins()) */
	if (slot == 0 && id_hash__add(&evlist->ids, *evsel__slot_id(e, 0, c, 0), e))
		return -ENOMEM;
	if (evlist__should_be_on(evlist, e, slot, c) && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

int evlist__revive_cpu(struct evlist *evlist, int c, char *errbuf, size_t errsz)
{
	/* the sets' rings' holders, then the set sampling now, then the
	 * other, which the next switch goes to: the newest opened */
	int slots[] = { 0, 1, 2 + evlist->twin_active, 2 + !evlist->twin_active };
	int nr_slots = evlist__twinned(evlist) ? 4 : 1;

	if (!evlist__whole_cpus(evlist) || c < 0 || c >= evlist->cpus->nr || !evlist->fwd)
		return 0;
	for (int s = 0; s < nr_slots; s++) {
		/* leaders first: the members join the new ones */
		for (int i = 0; i < evlist->nr_entries; i++) {
			struct evsel *e = evlist->entries[i];
			int err;

			if (!e->fd || (slots[s] && !e->twinned) ||
			    *evsel__slot_fd(e, slots[s], c, 0) < 0)
				continue;
			err = evlist__revive_fd(evlist, e, slots[s], c);
			if (err) {
				snprintf(errbuf, errsz, "%s: cpu %d: opening anew: %s", e->name,
					 evlist->cpus->map[c], strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

struct evsel *evlist__id2evsel(const struct evlist *evlist, u64 id)
{
	return id_hash__find(&evlist->ids, id);
}

int evlist__has_tracepoints(const struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr_entries; i++)
		if (evlist->entries[i]->attr.type == PERF_TYPE_TRACEPOINT)
			return 1;
	return 0;
}
