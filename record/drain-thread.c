/* --threads: the drain threads, each reading the forward rings of its CPU
 * mask into its rings' data.N files, and the main thread's hold on them. */
#include "record/drain-thread.h"
#include "record/record.h"
#include "util/cpumap.h"
#include "util/evlist.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Options that cannot go with drain threads: a one-line reason, or NULL
 * (-o - and --switch-output-event are the options' checks, as early as
 * the stock's). */
static const char *drain_threads__refused(const struct record *rec)
{
	if (rec->opts.history_size)
		return "perf record: --threads: --history: its compressed history is kept by "
		       "the main thread";
	for (int c = 0; c < rec->evlist->nr_mmaps; c++)
		if (rec->evlist->fwd[c].pc && rec->evlist->fwd[c].cpu < 0)
			return "--per-thread option is mutually exclusive to parallel streaming mode.";
	return NULL;
}

/* Gives every ring to the thread whose mask holds its CPU; a ring of no
 * mask (user masks that leave a recorded CPU out) goes to the first
 * thread, rather than be left to fill and lose its records. */
static int drain_threads__assign(struct drain_threads *dt)
{
	struct evlist *evlist = dt->rec->evlist;

	for (int c = 0; c < evlist->nr_mmaps; c++) {
		struct drain_thread *t = &dt->t[0];
		int cpu = evlist->fwd[c].cpu;

		if (!evlist->fwd[c].pc)
			continue;
		for (int i = 0; i < dt->nr; i++)
			if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &dt->t[i].masks.maps))
				t = &dt->t[i];
		t->rings = realloc(t->rings, (t->nr_rings + 1) * sizeof(int));
		if (!t->rings)
			return -ENOMEM;
		t->rings[t->nr_rings++] = c;
	}
	return 0;
}

static int drain_threads__init(struct drain_threads *dt, const struct threads_spec *ts)
{
	dt->t = calloc(ts->nr, sizeof(*dt->t));
	dt->out = calloc(dt->rec->evlist->nr_mmaps + 1, sizeof(*dt->out));
	if (!dt->t || !dt->out)
		return -ENOMEM;
	dt->nr = ts->nr;
	for (int c = 0; c <= dt->rec->evlist->nr_mmaps; c++)
		dt->out[c].fd = -1;
	for (int i = 0; i < ts->nr; i++)
		dt->t[i].efd = -1;
	pthread_mutex_init(&dt->shared, NULL);
	pthread_mutex_init(&dt->hits_lock, NULL);
	pthread_mutex_init(&dt->bpf_lock, NULL);
	for (int i = 0; i < dt->nr; i++) {
		struct drain_thread *t = &dt->t[i];

		t->all = dt;
		t->idx = i;
		t->masks = ts->masks[i];
		pthread_mutex_init(&t->lock, NULL);
		t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (t->efd < 0)
			return -errno;
	}
	return drain_threads__assign(dt);
}

/* The threads of the spec, or the stock's lines and status for a refusal
 * (rec->status). 0 or -errno. */
static int drain_threads__spec(struct record *rec, struct threads_spec *ts)
{
	struct threads_cpus tc = {
		.cpus = rec->evlist->cpus->map,
		.nr = rec->evlist->cpus->nr,
		.max_cpu = cpu__max_present(),
		.group = threads__sysfs_group,
	};
	const char *why = drain_threads__refused(rec);
	int err = why ? -EINVAL : 0;

	if (why)
		snprintf(rec->err, sizeof(rec->err), "%s", why);
	else
		err = threads_spec__parse(ts, rec->opts.threads_spec, &tc, rec->err,
					  sizeof(rec->err));
	if (!err)
		return 0;
	if (rec->err[0])
		pr_err("%s\n", rec->err);
	pr_err("Failed to initialize parallel data streaming masks\n");
	rec->status = 256 + (err < -255 ? -EINVAL : err);	/* the stock's: its -errno as a byte */
	return err;
}

int drain_threads__setup(struct record *rec)
{
	struct threads_spec ts;
	struct drain_threads *dt;
	int err;

	if (!rec->opts.threads_spec)
		return 0;
	err = drain_threads__spec(rec, &ts);
	if (err)
		return err;
	dt = calloc(1, sizeof(*dt));
	if (dt) {
		dt->rec = rec;
		dt->dir.dfd = -1;
		dt->locked = rec->keep_tracking;
		rec->threads = dt;
		err = drain_threads__init(dt, &ts);
	}
	threads_spec__exit(&ts);
	if (!dt || err) {
		pr_err("perf record: --threads: %s\n", strerror(dt ? -err : ENOMEM));
		return dt ? err : -ENOMEM;
	}
	if (rec->opts.verbose)
		pr_err("perf record: --threads: %d drain threads, a data.N file per ring\n", dt->nr);
	return 0;
}

/* One pass over the thread's rings, its lock held (by it, or by the main
 * thread quiescing it). 0 or -errno. */
static int thread__pass(struct drain_thread *t)
{
	struct drain_threads *dt = t->all;
	struct record *rec = dt->rec;
	s64 w = 0;

	if (dt->locked)
		pthread_mutex_lock(&dt->shared);
	for (int i = 0; i < t->nr_rings && w >= 0; i++) {
		int c = t->rings[i];
		struct drain_sink sink = {
			.data = rec->opts.overwrite || t->err || dt->out[c].fd < 0 ? NULL : &dt->out[c],
			.tracking = rec->keep_tracking ? &rec->tracking : NULL,
			.pending = rec->opts.overwrite ? &rec->pending : NULL,
			.pending_max = rec->pending_max,
			.id_sample_type = rec->tracking.id_sample_type,
			.ring = c + 1,
			.no_round = 1,
			.hits = rec->opts.overwrite ? NULL : rec->data.hits,
			.hits_lock = &dt->hits_lock,
			/* a load the side band lost (its ring full) is seen here */
			.bpf = rec->opts.no_bpf_event ? NULL : &rec->bpf,
			.bpf_lock = &dt->bpf_lock,
			.off_cpu = rec->off_cpu_evsel,
		};

		w = drain__forward(rec->evlist, &sink, &t->stats);
		if (w > 0)
			__atomic_add_fetch(&t->bytes, w, __ATOMIC_RELAXED);
		if (dt->locked)
			rec->pending_dropped += sink.pending_dropped;
	}
	if (dt->locked)
		pthread_mutex_unlock(&dt->shared);
	/* what the main thread sums for the closing line and the header */
	__atomic_store_n(&t->pub.samples, t->stats.samples, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pub.lost, t->stats.lost, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pub.first_time, t->stats.first_time, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pub.last_time, t->stats.last_time, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pub.end_time, t->stats.end_time, __ATOMIC_RELAXED);
	__atomic_store_n(&t->pub.wakeups, t->stats.wakeups, __ATOMIC_RELAXED);
	if (w < 0 && !t->err)
		__atomic_store_n(&t->err, (int)w, __ATOMIC_RELEASE);
	return w < 0 ? (int)w : 0;
}

/* The thread's poll set: its stop eventfd first, then its rings' fds. */
static struct pollfd *thread__pollfds(struct drain_thread *t)
{
	struct pollfd *pfd = calloc(t->nr_rings + 1, sizeof(*pfd));

	if (!pfd)
		return NULL;
	pfd[0] = (struct pollfd){ .fd = t->efd, .events = POLLIN };
	for (int i = 0; i < t->nr_rings; i++)
		pfd[i + 1] = (struct pollfd){ .fd = t->all->rec->evlist->fwd[t->rings[i]].fd,
					      .events = POLLIN };
	return pfd;
}

/* A drain thread: waits for its rings or a stop, drains them, until
 * stopped (the main thread drains what comes after, its events off). */
static void *thread__run(void *arg)
{
	struct drain_thread *t = arg;
	struct pollfd *pfd = thread__pollfds(t);
	int stop = 0;

	/* where it may run: a CPU gone offline keeps it where it is */
	(void)pthread_setaffinity_np(pthread_self(), sizeof(t->masks.affinity),
				     &t->masks.affinity);
	while (pfd && !stop) {
		if (poll(pfd, t->nr_rings + 1, -1) < 0 && errno != EINTR)
			break;
		stop = pfd[0].revents != 0;
		for (int i = 1; i <= t->nr_rings; i++) {
			if (pfd[i].revents & POLLIN)
				t->stats.wakeups++;
			/* its task is gone: the ring is drained, not watched */
			if (pfd[i].revents & (POLLHUP | POLLERR)) {
				pfd[i].fd = -1;
				__atomic_add_fetch(&t->hup, 1, __ATOMIC_RELEASE);
			}
		}
		pthread_mutex_lock(&t->lock);
		thread__pass(t);
		pthread_mutex_unlock(&t->lock);
	}
	free(pfd);
	return NULL;
}

int drain_threads__start(struct drain_threads *dt)
{
	if (!dt || dt->running != DRAIN_THREADS_NEW)
		return 0;
	for (int i = 0; i < dt->nr; i++) {
		int err = pthread_create(&dt->t[i].tid, NULL, thread__run, &dt->t[i]);

		if (err) {
			pr_err("perf record: --threads: starting a drain thread: %s\n", strerror(err));
			drain_threads__stop(dt);
			return -err;
		}
		dt->t[i].started = 1;
	}
	dt->running = DRAIN_THREADS_RUNNING;
	return 0;
}

/* rec->stats: the sum of every thread's since the file began */
static void drain_threads__sum(struct drain_threads *dt)
{
	struct record_stats *st = &dt->rec->stats;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < dt->nr; i++) {
		const struct record_stats *p = &dt->t[i].pub;
		u64 first = __atomic_load_n(&p->first_time, __ATOMIC_RELAXED);
		u64 last = __atomic_load_n(&p->last_time, __ATOMIC_RELAXED);

		st->samples += __atomic_load_n(&p->samples, __ATOMIC_RELAXED);
		st->lost += __atomic_load_n(&p->lost, __ATOMIC_RELAXED);
		st->wakeups += __atomic_load_n(&p->wakeups, __ATOMIC_RELAXED);
		if (first && (!st->first_time || first < st->first_time))
			st->first_time = first;
		st->last_time = MAX(st->last_time, last);
		st->end_time = MAX(st->end_time, __atomic_load_n(&p->end_time, __ATOMIC_RELAXED));
	}
}

s64 drain_threads__ready(struct drain_threads *dt)
{
	int err = 0;

	drain_threads__sum(dt);
	for (int i = 0; i < dt->nr && !err; i++)
		err = __atomic_load_n(&dt->t[i].err, __ATOMIC_ACQUIRE);
	return err;
}

s64 drain_threads__drain_all(struct drain_threads *dt)
{
	u64 before = drain_threads__bytes(dt);
	int err = 0;

	drain_threads__quiesce(dt);
	for (int i = 0; i < dt->nr; i++)
		err = thread__pass(&dt->t[i]) ?: err;
	drain_threads__resume(dt);
	drain_threads__sum(dt);
	return err ? err : (s64)(drain_threads__bytes(dt) - before);
}

void drain_threads__quiesce(struct drain_threads *dt)
{
	if (dt && !dt->quiesced++)
		for (int i = 0; i < dt->nr; i++)
			pthread_mutex_lock(&dt->t[i].lock);
}

void drain_threads__resume(struct drain_threads *dt)
{
	if (dt && !--dt->quiesced)
		for (int i = dt->nr - 1; i >= 0; i--)
			pthread_mutex_unlock(&dt->t[i].lock);
}

void drain_threads__stop(struct drain_threads *dt)
{
	u64 one = 1;

	if (!dt)
		return;
	for (int i = 0; i < dt->nr; i++)
		if (dt->t[i].started && write(dt->t[i].efd, &one, sizeof(one)) < 0)
			pr_err("perf record: --threads: stopping a drain thread: %s\n",
			       strerror(errno));
	for (int i = 0; i < dt->nr; i++) {
		if (dt->t[i].started)
			pthread_join(dt->t[i].tid, NULL);
		dt->t[i].started = 0;
	}
	if (dt->running == DRAIN_THREADS_RUNNING && dt->rec->opts.verbose)
		for (int i = 0; i < dt->nr; i++)
			pr_err("threads[%d]: samples=%llu, wakes=%llu, written=%llu\n", i,
			       (unsigned long long)dt->t[i].stats.samples,
			       (unsigned long long)dt->t[i].stats.wakeups,
			       (unsigned long long)dt->t[i].bytes);
	dt->running = DRAIN_THREADS_STOPPED;
}

int drain_threads__alive(const struct drain_threads *dt)
{
	int n = 0;

	for (int i = 0; i < dt->nr; i++)
		n += dt->t[i].nr_rings - __atomic_load_n(&dt->t[i].hup, __ATOMIC_ACQUIRE);
	return n;
}

void drain_threads__read_bpf(struct drain_threads *dt, struct record *rec)
{
	if (dt)
		pthread_mutex_lock(&dt->bpf_lock);
	bpf_sideband__read(&rec->bpf_sb, &rec->bpf);
	if (dt)
		pthread_mutex_unlock(&dt->bpf_lock);
}

u64 drain_threads__bytes(const struct drain_threads *dt)
{
	u64 n = 0;

	for (int i = 0; dt && i < dt->nr; i++)
		n += __atomic_load_n(&dt->t[i].bytes, __ATOMIC_RELAXED);
	return n;
}

/* Closes the data.N files (they are complete as they are). */
static void drain_threads__close_files(struct drain_threads *dt)
{
	for (int c = 0; c < dt->rec->evlist->nr_mmaps; c++)
		if (dt->out[c].fd >= 0)
			perf_data__abort(&dt->out[c]);	/* no name of its own: only closed */
}

int drain_threads__open_files(struct drain_threads *dt, const char *output, char **header_path)
{
	struct record *rec = dt->rec;
	int err = data_dir__create(&dt->dir, output);

	for (int c = 0; !err && c < rec->evlist->nr_mmaps; c++) {
		if (!rec->evlist->fwd[c].pc)
			continue;
		err = data_dir__open_file(&dt->dir, c, &dt->out[c]);
		if (!err)
			err = perf_data__set_compression(&dt->out[c], rec->opts.comp_level,
							 rec->opts.comp_mmap_len);
	}
	*header_path = err ? NULL : data_dir__header_path(&dt->dir);
	if (!err && !*header_path)
		err = -ENOMEM;
	if (err) {
		drain_threads__close_files(dt);
		data_dir__abort(&dt->dir);
		return err;
	}
	/* a new file counts from nothing */
	for (int i = 0; i < dt->nr; i++) {
		memset(&dt->t[i].stats, 0, sizeof(dt->t[i].stats));
		memset(&dt->t[i].pub, 0, sizeof(dt->t[i].pub));
		__atomic_store_n(&dt->t[i].bytes, 0, __ATOMIC_RELAXED);
	}
	return 0;
}

int drain_threads__commit(struct drain_threads *dt, const char *path,
			  const struct header_info *info, int keep_old)
{
	struct record *rec = dt->rec;
	struct header_info hi = *info;
	int err;

	hi.dir_format = 1;
	/* -z: the header says how the data.N files were compressed */
	for (int c = 0; c < rec->evlist->nr_mmaps; c++) {
		rec->data.comp_in += dt->out[c].comp_in;
		rec->data.comp_out += dt->out[c].comp_out;
	}
	drain_threads__close_files(dt);
	err = perf_data__commit(&rec->data, &hi, 0, rec->err, sizeof(rec->err));
	if (!err && (err = data_dir__place(&dt->dir, path, keep_old, rec->data.placed,
					   sizeof(rec->data.placed))))
		snprintf(rec->err, sizeof(rec->err), "%s: rename into place: %s", path,
			 strerror(-err));
	if (err)
		data_dir__abort(&dt->dir);
	return err;
}

void drain_threads__delete(struct drain_threads *dt)
{
	if (!dt)
		return;
	drain_threads__stop(dt);
	drain_threads__close_files(dt);
	data_dir__abort(&dt->dir);
	for (int i = 0; i < dt->nr; i++) {
		if (dt->t[i].efd >= 0)
			close(dt->t[i].efd);
		pthread_mutex_destroy(&dt->t[i].lock);
		free(dt->t[i].rings);
	}
	pthread_mutex_destroy(&dt->shared);
	pthread_mutex_destroy(&dt->hits_lock);
	pthread_mutex_destroy(&dt->bpf_lock);
	free(dt->t);
	free(dt->out);
	free(dt);
}
