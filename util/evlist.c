#include "util/evlist.h"
#include "util/cpumap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

struct evlist *evlist__new(void)
{
	return calloc(1, sizeof(struct evlist));
}

void evlist__delete(struct evlist *evlist)
{
	if (!evlist)
		return;
	evlist__munmap(evlist);
	for (int i = 0; i < evlist->nr_entries; i++)
		evsel__delete(evlist->entries[i]);
	free(evlist->entries);
	cpu_map__put(evlist->cpus);
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

int evlist__open(struct evlist *evlist, char *errbuf, size_t errsz, int verbose)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		int err = evsel__open(e, evlist->cpus, evlist->threads, errbuf, errsz, verbose);

		if (!err)
			err = evsel__apply_filter(e, errbuf, errsz);
		for (int k = 0; !err && k < e->nr_cpus * e->nr_threads; k++)
			if (e->fd[k] >= 0 && id_hash__add(&evlist->ids, e->id[k], e)) {
				err = -ENOMEM;
				snprintf(errbuf, errsz, "%s: ids: %s", e->name, strerror(ENOMEM));
			}
		if (err)
			return err;
	}
	return 0;
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
	return err;
}

void evlist__munmap(struct evlist *evlist)
{
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

static int evlist__ioctl_all(struct evlist *evlist, unsigned long req)
{
	int ret = 0;

	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int k = 0; e->fd && k < e->nr_cpus * e->nr_threads; k++)
			if (e->fd[k] >= 0 && ioctl(e->fd[k], req, 0) && !ret)
				ret = -errno;
	}
	return ret;
}

int evlist__enable(struct evlist *evlist)
{
	return evlist__ioctl_all(evlist, PERF_EVENT_IOC_ENABLE);
}

int evlist__enable_tracking(struct evlist *evlist)
{
	int ret = 0;

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
	return evlist__ioctl_all(evlist, PERF_EVENT_IOC_DISABLE);
}

int evlist__pause_backward(struct evlist *evlist, int pause)
{
	for (int c = 0; evlist->bwd && c < evlist->nr_mmaps; c++)
		if (evlist->bwd[c].pc &&
		    ioctl(evlist->bwd[c].fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause))
			return -errno;
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
