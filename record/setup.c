/* What a recording needs before its loop: the target's maps, the events
 * opened and mapped, the flight recorder's buffers and writer, tracking. */
#include "record/setup.h"
#include "record/off-cpu.h"
#include "buildid/held-files.h"
#include "util/cgroup.h"
#include "util/cpumap.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "record/record.h"
#include "record/summary.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* The fds a dump, a file's end or the synthesis of /proc opens for a
 * while beside those the run holds: the file made ahead for the next
 * dump, the tracing data's tracefs files, a binary, its copy in the
 * build-id cache and their directories, the /proc and sysfs files read. */
#define RECORD_TRANSIENT_FDS 6
/* What the set-up opens after the twins, the BPF side-band's events
 * aside: the writer's eventfd and pipes, the files made ahead, an epoll. */
#define RECORD_SETUP_FDS 8

/* The fds open now, and the soft RLIMIT_NOFILE: 0, or 1 when there is no
 * limit to check. A /proc/self/fd that cannot be opened for want of an
 * fd says the limit is reached. */
static int record__fds(int *in_use, u64 *limit)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 1;
	*limit = rl.rlim_cur;
	*in_use = fds_open();
	if (*in_use == -EMFILE || *in_use == -ENFILE)
		*in_use = rl.rlim_cur;
	return *in_use < 0;
}

/* -C beside an event of every CPU (--off-cpu, --switch-output-when: a
 * program writes into the event of the CPU it runs on, and a task's span
 * may end on any CPU): the session's CPUs are every CPU online, the
 * other events only the target's. Where that cannot be, those events
 * stay on the target's CPUs. */
static void record__every_cpu(struct evlist *evlist)
{
	struct cpu_map *all = cpu_map__new(NULL);

	if (!all || all->nr == evlist->cpus->nr) {
		cpu_map__put(all);
		return;
	}
	evlist->target_cpus = evlist->cpus;
	evlist->cpus = all;
}

/* Builds the cpu and thread maps for the target; prints why on failure. */
int record__setup_maps(struct record *rec)
{
	struct target *t = &rec->opts.target;
	/* --per-thread: every event on any CPU, one ring per thread */
	struct cpu_map *cpus = t->per_thread ? cpu_map__new_any() : cpu_map__new(t->cpu_list);
	struct thread_map *threads = NULL;

	if (!cpus) {
		pr_err("perf record: cpu list '%s': %s\n", t->cpu_list ? t->cpu_list : "online",
		       errno == ENODEV ? "CPU not online" : "bad syntax (expected e.g. 0-2,4)");
		return -EINVAL;
	}
	if (t->pid || t->tid) {
		const char *list = t->pid ? t->pid : t->tid;

		threads = thread_map__new_str(list, !t->pid);
		if (!threads)
			pr_err("perf record: %s '%s': %s\n", t->pid ? "pid" : "tid", list,
			       errno == ESRCH ? "No such process" : "bad list");
	} else if (t->uid_str) {
		threads = thread_map__new_uid(t->uid);
		if (!threads)
			pr_err("perf record: -u/--uid %s: %s\n", t->uid_str,
			       errno == ESRCH ? "the user runs no process" : strerror(errno));
	} else {
		threads = thread_map__new_pid(rec->opts.per_task ? rec->workload.pid : -1);
	}
	if (threads)
		evlist__set_maps(rec->evlist, cpus, threads);
	if (threads && t->cpu_list && evlist__has_system_wide(rec->evlist))
		record__every_cpu(rec->evlist);
	cpu_map__put(cpus);
	thread_map__put(threads);
	return threads ? 0 : -EINVAL;
}

/* What a flight recorder's memory goes to: the kernel's rings, and the
 * history or the capture buffers in its own memory. */
struct record_memory {
	u64 rings;	/* the kernel's: not charged to the recorder's cgroup */
	u64 user;	/* the recorder's own */
	const char *what;
};

static void record__memory_need(struct record *rec, struct record_memory *m, char *desc,
				size_t sz)
{
	u64 ring = rec->opts.bwd_mmap_bytes;
	int nr = rec->evlist->cpus->nr;

	if (rec->opts.history_size) {
		/* the history, and one take of it being written */
		m->rings = nr * rec->opts.mmap_bytes;
		m->user = 2 * rec->opts.history_size;
		m->what = "--history";
		snprintf(desc, sz, "%lluM of history (and a dump's take of it) and %d rings",
			 (unsigned long long)(rec->opts.history_size >> 20), nr);
		return;
	}
	m->rings = nr * (ring + rec->opts.mmap_bytes);
	m->user = dump__memory(nr, ring);
	m->what = "--overwrite";
	snprintf(desc, sz, "%d rings of %lluM and their capture buffers", nr,
		 (unsigned long long)(ring >> 20));
}

/* Overwrite mode: the kernel rings and the capture buffers must fit in
 * the memory available, and what the recorder allocates itself under
 * its cgroup's limits (memory.max, memory.high, v1's limit_in_bytes,
 * its own and its ancestors'), which OOM-kill or throttle it long
 * before MemAvailable runs out: said now rather than at the first dump.
 * 0 or -ENOMEM with rec->err set. */
static int record__check_memory(struct record *rec)
{
	u64 avail = meminfo_kb("MemAvailable") * 1024;
	struct cgroup_memory cg;
	struct record_memory m;
	char desc[128];

	if (!rec->opts.overwrite)
		return 0;
	record__memory_need(rec, &m, desc, sizeof(desc));
	if (avail && m.rings + m.user > avail) {
		snprintf(rec->err, sizeof(rec->err), "%s: %s need %lluM, only %lluM of memory "
			 "is available%s", m.what, desc,
			 (unsigned long long)((m.rings + m.user) >> 20),
			 (unsigned long long)(avail >> 20),
			 rec->opts.history_size ? "" : ": use a smaller -m");
		return -ENOMEM;
	}
	if (cgroup__memory_limit(&cg) || m.user <= cg.room)
		return 0;
	snprintf(rec->err, sizeof(rec->err), "%s: %s need %lluM of the recorder's own memory, "
		 "only %lluM is left under %.600s (%lluM): the recorder would be %s", m.what, desc,
		 (unsigned long long)(m.user >> 20), (unsigned long long)(cg.room >> 20),
		 cg.file, (unsigned long long)(cg.limit >> 20),
		 strstr(cg.file, "memory.high") ? "throttled" : "OOM-killed");
	return -ENOMEM;
}

/* Whether the twins' fds (one per backward event and CPU) leave room for
 * what a dump opens: where the limit is that tight, dumps copy the rings
 * rather than fail. */
static int record__twins_fit(struct record *rec)
{
	u64 need = RECORD_SETUP_FDS + RECORD_TRANSIENT_FDS, limit;
	int in_use;

	if (record__fds(&in_use, &limit))
		return 1;
	/* every slot but the first may come to be open (evsel.h) */
	for (int i = 0; i < rec->evlist->nr_entries; i++) {
		struct evsel *e = rec->evlist->entries[i];

		if (e->attr.write_backward)
			need += (TWIN_SLOTS - 1) * e->nr_cpus * e->nr_threads;
	}
	if (!rec->opts.no_bpf_event)
		need += rec->evlist->cpus->nr;
	return (u64)in_use + need <= limit;
}

/* Dumps that come while recording read each ring where it is, standing
 * still, while twin events write into rings of their own: the capture
 * copies nothing and takes the same time for rings of any size. Only for
 * events of whole CPUs (evlist__open_twins() says why); without twins,
 * which take as much memory again in the kernel's rings, dumps copy the
 * rings. Returns whether the twins are open. */
static int record__open_twins(struct record *rec)
{
	char why[256];

	if (!rec->opts.overwrite || rec->opts.per_task || !rec->so.kind || rec->opts.history_size)
		return 0;
	if (!record__twins_fit(rec)) {
		if (rec->opts.verbose)
			pr_err("[ perf record: no twin events: their fds would not leave a dump "
			       "room under RLIMIT_NOFILE: dumps copy the rings ]\n");
		return 0;
	}
	if (!evlist__open_twins(rec->evlist, why, sizeof(why)))
		return 1;
	if (rec->opts.verbose)
		pr_err("[ perf record: %s: dumps copy the rings ]\n", why);
	return 0;
}

/* Overwrite mode: capture buffers for every ring, and the dump writer. */
static int record__setup_dumps(struct record *rec)
{
	int err;

	if (rec->opts.history_size) {
		int nr = rec->evlist->nr_mmaps;

		rec->history = history__new(nr, rec->opts.history_size, rec->opts.history_level);
		if (!rec->history) {
			err = -errno;
			if (errno == EINVAL)
				snprintf(rec->err, sizeof(rec->err), "--history: %lluK is too small for "
					 "%d rings: at least %lluK", (unsigned long long)
					 (rec->opts.history_size >> 10), nr,
					 (unsigned long long)(history__min_size(nr) >> 10));
			else
				snprintf(rec->err, sizeof(rec->err), "--history: %s", strerror(errno));
			return err;
		}
		rec->dump_opts.history_slots = nr;
	}
	rec->dump = dump__new(rec->evlist, record__id_sample_type(rec->evlist), &rec->dump_opts);
	if (!rec->dump) {
		err = -errno;
		snprintf(rec->err, sizeof(rec->err), "capture buffers: %s", strerror(errno));
		return err;
	}
	err = writer__start(&rec->writer, &dump__writer_ops);
	if (err) {
		snprintf(rec->err, sizeof(rec->err), "dump writer: %s", strerror(-err));
		return err;
	}
	writer__warm(&rec->writer, rec->dump, rec->opts.output);
	if (rec->opts.verbose)
		record__print_memory(rec);
	return 0;
}

/* --switch-output-event and --switch-output-when: forward events whose
 * samples trigger a switch. */
int record__add_switch_event(struct record *rec)
{
	int before;

	if (switch_when__add_event(&rec->when, rec->evlist, rec->err, sizeof(rec->err))) {
		pr_err("perf record: %s\n", rec->err);
		return -ENOMEM;
	}
	before = rec->evlist->nr_entries;
	if (!rec->switch_event)
		return 0;
	if (parse_events(rec->evlist, rec->switch_event, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -EINVAL;
	}
	for (int i = before; i < rec->evlist->nr_entries; i++) {
		rec->evlist->entries[i]->overwrite = 0;
		rec->evlist->entries[i]->wake_each = 1;
	}
	rec->switch_evsel = rec->evlist->entries[before];
	return 0;
}

int record__open(struct record *rec)
{
	struct record_opts *opts = &rec->opts;
	int err, twins;

	/* each event takes an fd per CPU, and each dump some more: as the
	 * stock perf, take what the hard limit allows (after the workload's
	 * fork: it keeps the limit it was given) */
	nofile_raise();
	err = record__config(rec->evlist, opts, rec->err, sizeof(rec->err));
	if (!err) {
		record__config_off_cpu(rec);
		switch_when__config(&rec->when);
		err = evlist__open(rec->evlist, rec->err, sizeof(rec->err),
				   opts->quiet ? -1 : opts->verbose);
	}
	if (!err)
		err = record__check_memory(rec);
	if (err)
		return err;
	err = record__load_off_cpu(rec);
	if (err)
		return err;
	twins = record__open_twins(rec);
	err = evlist__mmap(rec->evlist, opts->mmap_bytes, opts->bwd_mmap_bytes,
			   rec->err, sizeof(rec->err));
	if (err)
		return err;
	if (twins && !evlist__twinned(rec->evlist) && opts->verbose)
		pr_err("[ perf record: %s: dumps copy the rings ]\n", rec->err);
	return opts->overwrite ? record__setup_dumps(rec) : 0;
}

/* Every fd a run holds is open once it is set up, but the binaries it
 * will hold and what each dump opens for a while: a run that cannot have
 * them all is refused now, rather than every dump failing with EMFILE
 * later. The held binaries take what is left, two fds each (the writer
 * lends a dump a copy of each). 0 or -EMFILE after saying why. */
static int record__check_fds(struct record *rec)
{
	struct held_files *held = rec->tracking.held;
	int in_use, more = RECORD_TRANSIENT_FDS;
	u64 limit, room;

	if (record__fds(&in_use, &limit))
		return 0;
	/* the twins' slots not open yet: the sets a dump opens anew */
	for (int i = 0; i < rec->evlist->nr_entries; i++) {
		struct evsel *e = rec->evlist->entries[i];
		int n = e->nr_cpus * e->nr_threads;

		for (int k = n; e->twinned && k < TWIN_SLOTS * n; k++)
			more += e->fd[k] < 0;
	}
	if ((u64)in_use + more > limit) {
		pr_err("perf record: too many open files: the recording holds %d file "
		       "descriptors and needs up to %d more, over the limit of %llu "
		       "(RLIMIT_NOFILE, raised to the hard limit): raise 'ulimit -Hn', or "
		       "record fewer events or CPUs\n", in_use, more,
		       (unsigned long long)limit);
		return -EMFILE;
	}
	room = (limit - in_use - more) / 2;
	if (held && (u64)held->max > room) {
		if (rec->opts.verbose)
			pr_err("[ perf record: %llu binaries held at most, not %d: the limit of "
			       "%llu open files (RLIMIT_NOFILE) leaves no room for more ]\n",
			       (unsigned long long)room, held->max, (unsigned long long)limit);
		held->max = room;
	}
	return 0;
}

int record__setup_tracking(struct record *rec)
{
	struct record_opts *opts = &rec->opts;
	int err;

	tracking__init(&rec->tracking, rec->tracking_max, record__id_sample_type(rec->evlist));
	/* a dump's binaries may be gone by then: hold them while the log maps them */
	if (opts->overwrite && rec->dump_opts.buildid_dir[0] &&
	    !(rec->tracking.held = held_files__new())) {
		pr_err("perf record: holding binaries: %s\n", strerror(errno));
		return -ENOMEM;
	}
	bpf_progs__init(&rec->bpf);
	/* before the programs are listed: none loads unseen in between */
	err = opts->no_bpf_event ? 0 : bpf_sideband__open(&rec->bpf_sb);
	if (err && opts->verbose)
		pr_err("Warning: BPF side-band events: %s: only the rings tell of programs\n",
		       strerror(-err));
	err = record__check_fds(rec);
	/* once the events are open, and before tracking starts: the
	 * programs' own load is in the tracking of every dump */
	if (!err && switch_when__start(&rec->when, rec->evlist, opts, rec->err,
				       sizeof(rec->err))) {
		pr_err("perf record: %s\n", rec->err);
		err = -EINVAL;
	}
	return err;
}
