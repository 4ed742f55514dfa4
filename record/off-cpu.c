/* perf record --off-cpu in the record session (record/off-cpu.h). */
#include "record/off-cpu.h"
#include "record/record.h"
#include "record/record-config.h"
#include "bpf/loader.h"
#include "bpf/off-cpu.h"
#include "util/cpumap.h"
#include "util/evlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int record__add_off_cpu(struct record *rec)
{
	struct evsel *e;
	int err;

	if (!rec->opts.off_cpu)
		return 0;
	bpf_loader__set_print(rec->opts.verbose);
	err = off_cpu__check(rec->err, sizeof(rec->err));
	if (err) {
		pr_err("perf record: %s\n", rec->err);
		return err;
	}
	/* in a flight recorder its samples wait with the other forward
	 * samples for the next dump */
	e = evsel__new_bpf_output(OFF_CPU_EVENT);
	if (!e || evlist__add(rec->evlist, e)) {
		evsel__delete(e);
		pr_err("perf record: %s: %s\n", OFF_CPU_OPTION, strerror(ENOMEM));
		return -ENOMEM;
	}
	rec->off_cpu_evsel = e;
	return 0;
}

void record__config_off_cpu(struct record *rec)
{
	struct evsel *e = rec->off_cpu_evsel;
	u64 id_type = record__id_sample_type(rec->evlist);

	if (!e)
		return;
	e->attr.sample_type = off_cpu__event_type(id_type);
	e->file_sample_type = off_cpu__sample_type(id_type);
	e->attr.inherit = 0;
	e->attr.enable_on_exec = 0;
	/* on from the start: only the program writes into it, and only once
	 * the recording starts */
	e->attr.disabled = 0;
	e->attr.freq = 0;
	e->attr.sample_period = 1;
	e->attr.exclude_kernel = e->attr.exclude_user = e->attr.exclude_hv = 0;
	e->attr.sample_max_stack = 0;
	e->attr.exclude_callchain_kernel = e->attr.exclude_callchain_user = 0;
}

/* -G: the cgroups the events count in, by id (cgroup2: the directory's
 * inode). */
static int record__off_cpu_cgroups(struct record *rec, u64 *ids)
{
	int n = 0;

	for (int i = 0; i < rec->evlist->nr_entries && n < 64; i++) {
		struct stat st;
		int fd = rec->evlist->entries[i]->cgroup_fd;

		if (fd >= 0 && !fstat(fd, &st))
			ids[n++] = st.st_ino;
	}
	return n;
}

int record__load_off_cpu(struct record *rec)
{
	struct evsel *e = rec->off_cpu_evsel;
	struct off_cpu_opts o = { .thresh_ns = rec->opts.off_cpu_thresh_ms * 1000000 };
	u64 cgroups[64];
	int err = 0;

	if (!e)
		return 0;
	/* -u alone: its tasks are told by their uid, new ones too */
	if (!rec->opts.target.uid_str)
		o.tasks = record__bpf_tasks(rec->evlist, &rec->opts);
	o.filter_uid = rec->opts.target.uid_str != NULL && !rec->opts.target.pid &&
		       !rec->opts.target.tid;
	o.uid = rec->opts.target.uid;
	o.cgroups = cgroups;
	o.nr_cgroups = record__off_cpu_cgroups(rec, cgroups);
	/* -C: the blocks begun there, wherever they end */
	if (rec->evlist->target_cpus) {
		o.cpus = rec->evlist->target_cpus->map;
		o.nr_cpus = rec->evlist->target_cpus->nr;
	}
	rec->off_cpu = off_cpu__load(&o, rec->err, sizeof(rec->err));
	if (!rec->off_cpu)
		return -EINVAL;
	for (int c = 0; c < e->nr_cpus && !err; c++)
		if (*evsel__fd(e, c, 0) >= 0)
			err = off_cpu__set_event(rec->off_cpu, rec->evlist->cpus->map[c],
						 *evsel__fd(e, c, 0));
	if (err)
		snprintf(rec->err, sizeof(rec->err), "%s: the events' map: %s", OFF_CPU_OPTION,
			 strerror(-err));
	return err;
}

int record__start_off_cpu(struct record *rec)
{
	int err;

	if (!rec->off_cpu)
		return 0;
	err = off_cpu__attach(rec->off_cpu, rec->err, sizeof(rec->err));
	if (err) {
		pr_err("perf record: %s\n", rec->err);
		return err;
	}
	if (rec->opts.verbose > 0)
		off_cpu__list(rec->off_cpu);
	return 0;
}

/* The history slot (a forward ring's index) of CPU cpu: 0 for one not
 * in the session's. */
static int record__off_cpu_slot(const struct record *rec, u32 cpu)
{
	const struct cpu_map *cpus = rec->evlist->cpus;

	for (int c = 0; c < cpus->nr && c < rec->evlist->nr_mmaps; c++)
		if (cpus->map[c] == (int)cpu)
			return c;
	return 0;
}

/* One summed block, as a sample where the recording's records go. */
static int record__off_cpu_emit(const struct off_cpu_sample *s, void *arg)
{
	struct record *rec = arg;
	u64 out[OFF_CPU_RECORD_MAX / 8];
	ssize_t len = off_cpu__build(rec->off_cpu_evsel->file_sample_type, s, out, sizeof(out));

	if (len < 0)
		return 0;	/* cannot happen: the frames are bounded */
	record_stats__account(&rec->stats, (void *)out, s->time);
	/* --history: where the exit dump takes the drained records from, in
	 * the slot of the ring of the CPU the block began on */
	if (rec->history)
		return history__add(rec->history, record__off_cpu_slot(rec, s->cpu), (void *)out,
				    s->time);
	if (rec->opts.overwrite) {
		buf__add(&rec->pending, out, len);
		return rec->pending.err;
	}
	return rec->write_failed ? 0 : perf_data__write(&rec->data, out, len);
}

/* The recording's end in its samples' clock: a flight recorder's is
 * CLOCK_MONOTONIC, read now, after every sample of any ring (its events
 * are disabled); a file's, just after the latest record the last drain
 * saw. */
static u64 record__off_cpu_end(const struct record *rec)
{
	return rec->opts.overwrite ? now_ns() : rec->stats.end_time + 1;
}

int record__off_cpu_sums(struct record *rec)
{
	struct evsel *e = rec->off_cpu_evsel;
	u64 id = 0;
	int n;

	if (!rec->off_cpu)
		return 0;
	for (int k = 0; k < e->nr_cpus && !id; k++)
		id = e->id[k];
	/* a sum has no one switch-out: it is stamped at the end, after
	 * every sample (and readers sort it there) */
	n = off_cpu__drain_sums(rec->off_cpu, id, record__off_cpu_end(rec),
				record__off_cpu_emit, rec);
	return n < 0 ? n : 0;
}

int record__off_cpu_cpu_changed(struct record *rec, int c)
{
	struct evsel *e = rec->off_cpu_evsel;
	int fd;

	if (!rec->off_cpu || c >= e->nr_cpus || (fd = *evsel__fd(e, c, 0)) < 0)
		return 0;
	return off_cpu__set_event(rec->off_cpu, rec->evlist->cpus->map[c], fd);
}
