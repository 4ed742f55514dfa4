/* The steps of perf record's loop: what already exists, the drain, the
 * file in normal mode and its rotation, the flight recorder's dumps. */
#include "record/record.h"
#include "util/cgroup.h"
#include "util/cpumap.h"
#include "util/evlist.h"
#include "record/drain-thread.h"
#include "record/synthetic.h"
#include "record/off-cpu.h"
#include "bpf/off-cpu.h"
#include "record/record-state.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct perf_event_header finished_init = {
	.type = PERF_RECORD_FINISHED_INIT, .size = sizeof(finished_init)
};

/* Removes the records of one type past from: --synth=task reads the maps
 * (synthesize__process() always does) but keeps none of them. */
static void drop_records(struct buf *b, size_t from, u32 type)
{
	size_t out = from;

	for (size_t off = from; off + sizeof(struct perf_event_header) <= b->len;) {
		struct perf_event_header h;

		memcpy(&h, b->p + off, sizeof(h));
		if (!h.size)
			break;
		if (h.type != type) {
			memmove(b->p + out, b->p + off, h.size);
			out += h.size;
		}
		off += h.size;
	}
	b->len = out;
}

/* --namespaces: the kernel says the namespaces of the tasks it sees start;
 * those that exist already get theirs here, one for each COMM past from. */
static int add_namespaces(struct buf *b, size_t from, u64 st)
{
	size_t end = b->len;
	int err = 0;

	for (size_t off = from; !err && off + sizeof(struct perf_event_header) <= end;) {
		struct perf_event_header h;
		u32 ids[2];

		memcpy(&h, b->p + off, sizeof(h));
		if (!h.size)
			break;
		if (h.type == PERF_RECORD_COMM && h.size >= sizeof(h) + sizeof(ids)) {
			memcpy(ids, b->p + off + sizeof(h), sizeof(ids));
			err = synthesize__namespaces(b, ids[0], ids[1], st);
		}
		off += h.size;
	}
	return err;
}

/* What already exists, as --synth asks: the kernel map always, then the
 * watched tasks (COMM, FORK) from /proc, with their maps unless left out.
 * A workload is not in /proc yet: its COMM is the caller's. */
static int record__synthesize_existing(struct record *rec, struct buf *b)
{
	u64 st = record__id_sample_type(rec->evlist);
	unsigned int synth = SYNTH_ALL & ~rec->opts.no_synth;
	struct thread_map *threads = rec->evlist->threads;
	struct build_id_cache *bids = NULL;
	size_t from;
	int err;

	buf__add(b, rec->kernel_map.p, rec->kernel_map.len);
	from = b->len;
	/* --all-cgroups: the cgroups that exist, before the tasks in them */
	err = rec->opts.all_cgroups && (synth & SYNTH_CGROUP) ? cgroup__synthesize(b, st) : 0;
	if (err)
		return err;
	/* the BPF programs loaded already, as the kernel tells of later ones */
	err = rec->opts.no_bpf_event ? 0 : bpf_progs__synthesize(&rec->bpf, b, st);
	if (err == -EPERM && !rec->opts.verbose)
		err = 0;	/* not allowed to see them, as most users: no news */
	if (err && err != -ENOMEM) {
		pr_err("Warning: BPF programs: %s: samples in those loaded before perf are not "
		       "named\n", strerror(-err));
		err = 0;
	}
	if (err)
		return err;
	if (rec->opts.per_task || !(synth & SYNTH_TASK))
		return b->err;
	/* -B: maps without build ids, as the kernel's are then */
	if ((synth & SYNTH_MMAP) && !rec->opts.no_buildid) {
		bids = build_id_cache__new();
		if (!bids)
			return -ENOMEM;
	}
	if (threads->map[0] == -1) {
		err = synthesize__all(b, st, bids);
	} else {
		for (int i = 0; i < threads->nr && !err; i++) {
			err = synthesize__process(b, threads->map[i], st, bids);
			if (err == -ESRCH)
				err = 0;	/* a thread, or gone: its process covers it */
		}
	}
	build_id_cache__delete(bids);
	if (!err && !(synth & SYNTH_MMAP))
		drop_records(b, from, PERF_RECORD_MMAP2);
	if (!err && rec->opts.namespaces)
		err = add_namespaces(b, from, st);
	return err ? err : b->err;
}

int record__read_kernel_map(struct record *rec)
{
	int err = synthesize__kernel_mmap(&rec->kernel_map, record__id_sample_type(rec->evlist));

	if (err == -ENOENT && rec->opts.verbose)
		pr_err("Warning: /proc/kallsyms hides addresses (kptr_restrict): no kernel map\n");
	if (rec->kernel_map.err) {
		pr_err("perf record: the kernel map: %s\n", strerror(-rec->kernel_map.err));
		return rec->kernel_map.err;
	}
	return 0;	/* no kernel map: samples in it stay unnamed, as before */
}

/* The records that describe what already exists: the kernel map and the
 * tasks being watched (at the end of each file instead with
 * --tail-synthesize, except in the flight recorder, whose dumps describe
 * their tasks anyway). They go to the file (normal mode) and to the
 * tracking log (flight recorder, or normal mode with --switch-output, so
 * that every later file can start with them). */
int record__synthesize(struct record *rec)
{
	u64 st = record__id_sample_type(rec->evlist);
	int tail = rec->opts.tail_synthesize && !rec->opts.overwrite;
	struct buf b = { 0 };
	int err = tail ? 0 : record__synthesize_existing(rec, &b);

	if (!err && rec->opts.per_task)
		err = synthesize__comm(&b, rec->workload.pid, rec->workload.pid, "perf-exec", st);
	if (!err && b.err)
		err = b.err;
	for (size_t off = 0; !err && rec->keep_tracking && off < b.len;) {
		const struct perf_event_header *h = (const void *)(b.p + off);

		err = tracking__add(&rec->tracking, h);
		off += h->size;
	}
	if (err)
		pr_err("perf record: synthesizing existing tasks: %s\n", strerror(-err));
	if (!err && !rec->opts.overwrite) {
		if (!tail)
			buf__add(&b, &finished_init, sizeof(finished_init));
		err = b.err ? b.err : record__start_file(rec, b.p, b.len);
	}
	buf__release(&b);
	return err;
}

/* --tail-synthesize: what exists now, at the end of the file, after the
 * FINISHED_INIT that the stock perf also writes first there. */
static int record__synthesize_tail(struct record *rec)
{
	struct buf b = { 0 };
	int err;

	buf__add(&b, &finished_init, sizeof(finished_init));
	err = record__synthesize_existing(rec, &b);
	if (!err)
		err = perf_data__write(&rec->data, b.p, b.len);
	buf__release(&b);
	return err;
}

static s64 record__drain_flush(struct record *rec, u64 flush)
{
	struct drain_sink sink = {
		.flush = flush,
		.data = rec->opts.overwrite || rec->write_failed ? NULL : &rec->data,
		.tracking = rec->keep_tracking ? &rec->tracking : NULL,
		.pending = rec->opts.overwrite && !rec->history ? &rec->pending : NULL,
		.history = rec->history,
		.pending_max = rec->pending_max,
		.trigger = rec->switch_evsel,
		.when = rec->when.evsel,
		.id_sample_type = rec->tracking.id_sample_type,
		.bpf = rec->opts.no_bpf_event ? NULL : &rec->bpf,
		.behind = rec->drain_behind,
		.first_ring = rec->drain_first,
		/* off-CPU samples are stamped with their switch-out, long
		 * before they are emitted: no round could bound their times */
		.no_round = rec->off_cpu_evsel != NULL,
		.off_cpu = rec->off_cpu_evsel,
	};
	s64 w = drain__forward(rec->evlist, &sink, &rec->stats);

	rec->pending_dropped += sink.pending_dropped;
	rec->drain_behind = sink.behind;
	rec->drain_first = sink.first_ring;
	if (sink.triggered)
		record__ask_switch(rec, sink.when_time ? "when" : "event");
	if (sink.when_time && !rec->when_ns)
		rec->when_ns = sink.when_time;
	return w;
}

/* --threads: the loop's drain is theirs; a drain to the heads is done
 * here, the threads held */
s64 record__drain(struct record *rec)
{
	return rec->threads ? drain_threads__drain_all(rec->threads) : record__drain_flush(rec, 0);
}

s64 record__drain_ready(struct record *rec)
{
	return rec->threads ? drain_threads__ready(rec->threads) :
	       record__drain_flush(rec, rec->opts.mmap_flush);
}

int record__ask_switch(struct record *rec, const char *why)
{
	struct trigger *t = &rec->trigger;
	u64 now = now_ns();

	switch (trigger__ask(t, now)) {
	case TRIGGER_LIMITED:
		rec->state_dirty = 1;
		if (!rec->opts.quiet)
			pr_err(TRIGGER_IGNORED_MSG "%llu ignored so far) ]\n",
			       (unsigned long long)t->limited);
		return 0;
	case TRIGGER_ACCEPTED:
		rec->asked_why = why;
		if (t->delay_ns && rec->opts.verbose)
			pr_err("[ perf record: trigger: switching in %.3f s "
			       "(--switch-output-delay) ]\n", t->delay_ns / 1e9);
		break;
	case TRIGGER_MERGED:
		rec->triggers_merged++;
		rec->state_dirty = 1;
		break;
	}
	return 1;
}

int record__switch_due(struct record *rec)
{
	u64 now;

	if (writer__busy(&rec->writer))
		return 0;	/* served once the dump in progress is written */
	now = now_ns();
	return trigger__due(&rec->trigger, now) || record__size_reached(rec) ||
	       (rec->so.kind == SWITCH_TIME && now >= rec->next_switch);
}

static void removed_file(const char *path, void *arg)
{
	struct record *rec = arg;

	post_dump__forget(&rec->post_dump, path);
	if (rec->opts.verbose)
		pr_err("[ perf record: Removed %s (--switch-max-files) ]\n", path);
}

int record__adopt_earlier(struct record *rec)
{
	int err;

	if (!rec->so.earlier || !rec->so.max_files)
		return 0;
	err = switch_output__adopt(&rec->so, rec->opts.output, removed_file, rec);
	if (err)
		pr_err("perf record: --switch-max-files-earlier: %s: %s\n", rec->opts.output,
		       strerror(-err));
	return err;
}

/* The path of the next output: -o itself, or -o.TIMESTAMP when switching. */
static char *record__next_path(struct record *rec)
{
	return record__timestamped(rec) ? switch_output__name(&rec->so, rec->opts.output) :
	       strdup(rec->opts.output);
}

static struct header_info record__info(struct record *rec)
{
	int bpf = !rec->opts.no_bpf_event;

	return (struct header_info){
		.evlist = rec->evlist, .argc = rec->argc, .argv = rec->argv,
		.first_sample_time = rec->stats.first_time, .last_sample_time = rec->stats.last_time,
		.bpf_prog_info = bpf ? &rec->bpf.info : NULL, .bpf_btf = bpf ? &rec->bpf.btf : NULL,
	};
}

/* A file is in place: what --switch-output-state says of it, and its
 * post-dump run (unless it was rotated away already). */
static void record__dump_placed(struct record *rec, const char *placed)
{
	char cwd[PATH_MAX], *last = NULL;
	struct timespec ts;

	/* the path a reader of the state file can use from anywhere */
	if (placed[0] == '/' || !getcwd(cwd, sizeof(cwd)) || asprintf(&last, "%s/%s", cwd, placed) < 0)
		last = strdup(placed);
	clock_gettime(CLOCK_REALTIME, &ts);
	free(rec->last_dump);
	rec->last_dump = last;
	rec->last_dump_time = (u64)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (!access(placed, F_OK))
		post_dump__add(&rec->post_dump, placed, rec->switch_why ? rec->switch_why : "exit");
	record__write_state(rec, 1);
}

/* A file is in place: say so (and that a full disk left its features
 * out), and remember it for --switch-max-files (room was reserved before
 * the file was written, so none escapes). */
static void record__placed(struct record *rec, const char *placed, int no_features,
			   int announce)
{
	char *name = rec->so.kind ? strdup(placed) : NULL;

	if (no_features)
		pr_err("perf record: %s: no room left for the header features: the file holds "
		       "the data without them\n", placed);
	rec->files++;
	if (!record__timestamped(rec) && strcmp(placed, rec->opts.output))
		pr_err("perf record: %s could not be replaced or kept as %s.old: the data is "
		       "in %s\n", rec->opts.output, rec->opts.output, placed);
	if (announce && !rec->opts.quiet)
		pr_err("[ perf record: Dump %s ]\n", placed);
	/* what the commands this switch serves are answered with */
	snprintf(rec->placed, sizeof(rec->placed), "%s", placed);
	if (name)
		switch_output__created(&rec->so, name, removed_file, rec);
	else if (rec->so.kind)
		pr_err("perf record: %s: %s: it is not counted for --switch-max-files\n",
		       placed, strerror(ENOMEM));
	record__dump_placed(rec, placed);
}

void record__send_acks(struct record *rec, struct control_acks *acks, const char *why)
{
	if (rec->placed[0])
		control__answer_all(&rec->control, acks, rec->placed, NULL);
	else
		control__answer_all(&rec->control, acks, NULL, rec->why_none[0] ? rec->why_none : why);
}

/* A switch, a dump or the end begins: what it places, or why it places
 * nothing, is what the commands it serves are told. */
static void record__switch_begins(struct record *rec)
{
	rec->placed[0] = '\0';
	rec->why_none[0] = '\0';
}

/* Drains the rings to their heads for a dump, which must neither miss
 * the records before its trigger nor, at the end, leave any behind: when
 * the history is behind, the buffers queued for its compressor join their
 * slots as they are (the take moves them so anyway), which gives spares
 * at once. An unqueue may wait for the compression in hand, long at
 * zstd's top levels, and signals are not read here: no new round after a
 * second, and what is left waits in the rings for the next dump (at the
 * end, for none). */
static s64 record__drain_all(struct record *rec)
{
	u64 until = now_ns() + 1000000000ULL;
	s64 w = record__drain(rec), more;

	while (w >= 0 && rec->drain_behind && now_ns() < until) {
		int err = history__unqueue(rec->history);

		if (err)
			return err;
		more = record__drain(rec);
		w = more < 0 ? more : w + more;
	}
	return w;
}

/* -v: how long after the end of the span that fired it (a bpf-output
 * sample's time, CLOCK_MONOTONIC in a flight recorder as the cut's) this
 * dump was cut. */
static void record__when_latency(struct record *rec)
{
	u64 when = rec->when_ns, cut = rec->dump->captured_ns;

	rec->when_ns = 0;
	if (when && rec->opts.verbose && rec->dump_opts.monotonic && !rec->opts.use_clockid)
		pr_err("[ perf record: %s: dump cut %.3f ms after the span's end ]\n",
		       SWITCH_WHEN_EVENT, cut > when ? (cut - when) / 1e6 : 0.0);
}

/* Captures the rings into rec->dump, ready to be written. 0 or -errno,
 * reported (and kept in rec->why_none for the commands it answers) and
 * counted. */
static int record__capture(struct record *rec)
{
	struct header_info info = record__info(rec);
	char *path = record__next_path(rec), *why = rec->why_none;
	size_t whysz = sizeof(rec->why_none);
	int err = path ? switch_output__reserve(&rec->so) : -ENOMEM;
	s64 w;

	if (err) {
		snprintf(why, whysz, "%s", strerror(-err));
		goto fail;
	}
	/* tracking current up to the trigger */
	w = record__drain_all(rec);
	if (w < 0) {
		err = w;
		snprintf(why, whysz, "draining the tracking rings: %s", strerror(-err));
		goto fail;
	}
	/* the rings stand still from here, and the twins sample; a capture
	 * that fails after the switch loses the rings' new records, as a
	 * copying one does: a name that cannot be is refused before */
	if (strlen(path) >= PATH_MAX) {
		err = -ENAMETOOLONG;
		snprintf(why, whysz, "%s: %s", path, strerror(-err));
		goto fail;
	}
	if (evlist__twinned(rec->evlist) && !rec->dump->opts.last &&
	    (err = evlist__switch_twins(rec->evlist)) < 0) {
		snprintf(why, whysz, "switching to the twin events: %s", strerror(-err));
		goto fail;
	}
	err = dump__capture(rec->dump, &rec->tracking, &rec->pending, path, !rec->so.kind,
			    &info, rec->trigger_ns ? rec->trigger_ns : now_ns());
	rec->trigger_ns = 0;
	if (err) {
		snprintf(why, whysz, "%s", rec->dump->errbuf);
		goto fail;
	}
	record__when_latency(rec);
	/* the history's records so far go with this dump, and no later one */
	if (rec->history && (err = history__take(rec->history, &rec->dump->take))) {
		snprintf(why, whysz, "taking the history: %s", strerror(-err));
		goto fail;
	}
	free(path);
	return 0;
fail:
	pr_err("perf record: dump failed: %s\n", why);
	rec->dump_stats.failed++;
	free(path);
	return err;
}

/* record__dump_done(), the drain threads held: they feed the tracking
 * log it prunes */
static int record__dump_done_held(struct record *rec, struct dump *d)
{
	double ms = 1e-6;
	int err;

	if (d->err == -ENODATA) {
		snprintf(rec->why_none, sizeof(rec->why_none), "%s", rec->dump_stats.dumps ?
			 "no samples since the last dump" : "no samples recorded");
		if (!rec->opts.quiet)
			pr_err(rec->dump_stats.dumps ?
			       "[ perf record: No samples since the last dump: nothing written ]\n" :
			       "[ perf record: No samples recorded: nothing written ]\n");
	} else if (d->err) {
		snprintf(rec->why_none, sizeof(rec->why_none), "%s", d->errbuf);
		pr_err("perf record: dump failed: %s\n", d->errbuf);
	} else {
		record__placed(rec, d->placed, d->no_features, 1);
		dso_hits_cache_stats__report(&d->cache, d->placed, rec->opts.quiet,
					     rec->opts.verbose);
		if (rec->opts.verbose) {
			char ahead[96];

			if (d->opts.comp_level)
				snprintf(ahead, sizeof(ahead), "no pages made ahead with -z");
			else if (rec->opts.realtime_prio)
				snprintf(ahead, sizeof(ahead), "no pages made ahead at -r");
			else if (d->warm_err)
				snprintf(ahead, sizeof(ahead), "no pages made ahead: %s",
					 strerror(-d->warm_err));
			else
				snprintf(ahead, sizeof(ahead), "%.1f MB into pages made ahead",
					 d->warm_bytes / 1048576.0);
			pr_err("[ perf record: dump %s: capture %d rings, %.1f MB in %.3f ms; "
			       "prelude %llu of %llu tracking records (%llu KB); written in "
			       "%.3f ms, %s ]\n", d->placed, d->nr_rings,
			       d->captured_bytes / 1048576.0, d->capture_ns * ms,
			       (unsigned long long)d->prelude.records,
			       (unsigned long long)d->prelude.log_records,
			       (unsigned long long)d->prelude.bytes / 1024, d->write_ns * ms, ahead);
		}
	}
	/* the rings read, the set switched from gets events opened after the
	 * set now on, ready for its next turn */
	if (!d->opts.last && (err = evlist__reopen_twins(rec->evlist)))
		pr_err("perf record: twin events: opening anew: %s: a dump may hold a record "
		       "of the switch twice\n", strerror(-err));
	rec->prelude_max = MAX(rec->prelude_max, d->prelude.records);
	dump_stats__add(&rec->dump_stats, &d->st);
	if (d->take.slot)
		history__release(rec->history, &d->take);
	record__send_acks(rec, &rec->acks_in_flight, "the dump failed");
	/* no later dump can hold a sample older than this one's newest */
	if (d->last_sample_time && tracking__prune(&rec->tracking, d->last_sample_time))
		rec->dump_stats.prune_failed++;
	return d->err;
}

int record__dump_done(struct record *rec, struct dump *d)
{
	int err;

	drain_threads__quiesce(rec->threads);
	err = record__dump_done_held(rec, d);
	drain_threads__resume(rec->threads);
	return err;
}

int record__dump(struct record *rec)
{
	int err;

	record__switch_begins(rec);
	control_acks__move(&rec->control, &rec->acks_in_flight, &rec->acks_owed,
			   "too many commands wait for one dump");
	err = record__capture(rec);
	if (err) {
		record__send_acks(rec, &rec->acks_in_flight, "the dump failed");
		return err;
	}
	dump__write(rec->dump);
	return record__dump_done(rec, rec->dump);
}

/* Normal mode: finishes the current file under its final name. */
int record__finish_file(struct record *rec, int announce)
{
	struct header_info info = record__info(rec);
	char *path = record__next_path(rec);
	int err = path ? switch_output__reserve(&rec->so) : -ENOMEM, tail_err;

	/* a file that cannot take more keeps what it has */
	if (!err && rec->opts.tail_synthesize && !rec->write_failed &&
	    (tail_err = record__synthesize_tail(rec)))
		pr_err("perf record: --tail-synthesize: %s: %s: the file goes without the "
		       "records of what exists\n", rec->opts.output, strerror(-tail_err));
	if (!err && rec->threads)	/* a perf.data directory */
		err = drain_threads__commit(rec->threads, path, &info, !rec->so.kind);
	else if (!err)
		err = perf_data__rename(&rec->data, path);
	if (!err && !rec->threads)
		err = perf_data__commit(&rec->data, &info, !rec->so.kind, rec->err, sizeof(rec->err));
	else if (!rec->threads)
		snprintf(rec->err, sizeof(rec->err), "%s", strerror(-err));
	if (err) {
		pr_err("perf record: %s\n", rec->err);
		snprintf(rec->why_none, sizeof(rec->why_none), "%s", rec->err);
		perf_data__abort(&rec->data);
	} else {
		record__placed(rec, rec->data.placed, rec->data.no_features, announce);
		if (rec->data.hits && rec->dump_opts.buildid_dir[0]) {
			struct dso_hits_cache_stats cs = { 0 };

			dso_hits__fill_cache(rec->data.hits, rec->dump_opts.buildid_dir,
					     &rec->cache_budget, &cs);
			dso_hits_cache_stats__report(&cs, rec->data.placed, rec->opts.quiet,
					     rec->opts.verbose);
		}
	}
	dso_hits__delete(rec->data.hits);
	rec->data.hits = NULL;
	free(path);
	return err;
}

/* Normal mode, recording over: the last drain, then the file is finished
 * with whatever it holds, after a write error too (a full disk keeps what
 * was written; perf's promise). Returns the error that loses data: a file
 * that could not be finished. */
int record__end_file(struct record *rec, int err)
{
	drain_threads__stop(rec->threads);	/* what is left is drained here */
	post_dump__end(&rec->post_dump);
	rec->switch_why = "exit";
	record__switch_begins(rec);
	if (!err) {
		s64 w = record__drain(rec);

		err = w < 0 ? w : 0;
	}
	/* once every record is in: the sums go after the latest */
	if (!err)
		err = record__off_cpu_sums(rec);
	if (err) {
		rec->write_failed = 1;
		pr_err("perf record: writing %s: %s: recording stopped, what was written is "
		       "kept\n", rec->opts.output, strerror(-err));
	}
	if (rec->data.fd < 0)
		return 0;	/* rotation could not start a file: said already */
	/* a size or time rotation's empty tail is noise; a signal-style
	 * recorder ends with its last file however empty, as the stock perf
	 * does (one file per dump asked for, plus the closing one) */
	if (rec->so.kind > SWITCH_SIGNAL && rec->files && !rec->stats.samples &&
	    !rec->stats.lost) {
		perf_data__abort(&rec->data);	/* nothing since the last switch */
		return 0;
	}
	return record__finish_file(rec, record__timestamped(rec));
}

/* Overwrite mode, recording over: the dump in progress is finished, then
 * the last moments: one more dump, even after a failed one. */
int record__last_dump(struct record *rec, int err)
{
	struct dump *d;
	int dump_err;

	drain_threads__stop(rec->threads);	/* what is left is drained here */
	d = writer__wait(&rec->writer);
	if (d)
		record__dump_done(rec, d);
	post_dump__end(&rec->post_dump);
	rec->switch_why = "exit";
	rec->dump->opts.last = 1;
	/* where the exit dump takes them, stamped before its cut */
	dump_err = record__off_cpu_sums(rec);
	if (dump_err)
		pr_err("perf record: %s: the summed blocks: %s\n", OFF_CPU_OPTION,
		       strerror(-dump_err));
	dump_err = record__dump(rec);
	if (!err && dump_err != -ENODATA)
		err = dump_err;
	return err;
}

/* Starts a file: attrs, then what makes it stand alone (the synthesized
 * tasks, or with rotation the tracking prelude). A size trigger counts
 * from after that prelude, or a prelude bigger than the size would switch
 * for ever. */
int record__start_file(struct record *rec, const void *prelude, size_t len)
{
	struct header_info info = record__info(rec);
	char *dir_path = NULL;	/* --threads: the header file in its directory */
	int err = rec->threads ? drain_threads__open_files(rec->threads, rec->opts.output,
							   &dir_path) : 0;

	if (err) {
		pr_err("perf record: %s: making its directory: %s\n", rec->opts.output,
		       strerror(-err));
		return err;
	}
	err = rec->data.pipe ?
	      perf_data__create_pipe(&rec->data, &info, rec->err, sizeof(rec->err)) :
	      perf_data__create(&rec->data, dir_path ? dir_path : rec->opts.output, rec->evlist,
				rec->err, sizeof(rec->err));
	free(dir_path);

	if (!err && (err = perf_data__set_compression(&rec->data, rec->opts.comp_level,
						      rec->opts.comp_mmap_len))) {
		snprintf(rec->err, sizeof(rec->err), "-z: zstd level %d: %s", rec->opts.comp_level,
			 strerror(-err));
		perf_data__abort(&rec->data);
	}
	if (!err && !rec->data.pipe && rec->dump_opts.buildid &&
	    !(rec->data.hits = dso_hits__new(rec->evlist, rec->dump_opts.buildid_all))) {
		err = -errno;
		snprintf(rec->err, sizeof(rec->err), "build ids: %s", strerror(errno));
		perf_data__abort(&rec->data);
	}
	if (err) {
		pr_err("perf record: %s\n", rec->err);
		return err;
	}
	if (rec->data.pipe_dropped)
		pr_err("perf record: -o -: %d header feature%s too big for a pipe record (64K) "
		       "left out\n", rec->data.pipe_dropped, rec->data.pipe_dropped > 1 ? "s" : "");
	err = perf_data__write(&rec->data, prelude, len);
	if (err)
		pr_err("perf record: %s: %s\n", rec->opts.output, strerror(-err));
	rec->switch_base = rec->data.data_size;
	return err;
}

/* Normal mode with --switch-output: close this file, start the next one
 * with the tracking prelude so it stands alone. */
static int record__rotate(struct record *rec)
{
	s64 w = record__drain(rec);
	int err;

	if (w < 0)
		return w;
	/* a file that could not be finished was reported and removed: go on */
	record__finish_file(rec, 1);
	/* later files cannot hold samples of tasks that exited before this one ended */
	if (rec->stats.last_time && tracking__prune(&rec->tracking, rec->stats.last_time))
		pr_err("perf record: tracking: pruning: %s\n", strerror(ENOMEM));
	memset(&rec->stats, 0, sizeof(rec->stats));
	err = record__start_file(rec, rec->tracking.log.p, rec->tracking.log.len);
	return err ? -EIO : 0;	/* nowhere left to write: stop */
}

/* record__switch(), the drain threads held */
static int record__switch_held(struct record *rec)
{
	int err;

	writer__hurry(&rec->writer);
	rec->switch_why = trigger__due(&rec->trigger, now_ns()) ? rec->asked_why :
			  rec->so.kind == SWITCH_SIZE ? "size" : "time";
	rec->trigger_ns = rec->trigger.due_ns;
	trigger__served(&rec->trigger);
	if (rec->so.kind == SWITCH_TIME)
		rec->next_switch = now_ns() + MIN(rec->so.period_ns, UINT64_MAX - now_ns());
	record__switch_begins(rec);
	if (!rec->opts.overwrite) {
		err = record__rotate(rec);
		record__send_acks(rec, &rec->acks_owed, "no file was finished");
		return err;
	}
	control_acks__move(&rec->control, &rec->acks_in_flight, &rec->acks_owed,
			   "too many commands wait for one dump");
	/* a failed dump was reported and counted; the rings keep recording */
	if (record__capture(rec))
		record__send_acks(rec, &rec->acks_in_flight, "the dump failed");
	else
		writer__submit(&rec->writer, rec->dump);
	return 0;
}

int record__switch(struct record *rec)
{
	int err;

	drain_threads__quiesce(rec->threads);
	err = record__switch_held(rec);
	drain_threads__resume(rec->threads);
	return err;
}

/* Has a size trigger's worth of data come in since the last switch? */
int record__size_reached(struct record *rec)
{
	if (rec->so.kind != SWITCH_SIZE)
		return 0;
	/* a file of task records alone is one the stock perf refuses: with
	 * no sample yet, the file goes on */
	if (!rec->opts.overwrite)
		return (rec->stats.samples || rec->stats.lost) &&
		       rec->data.data_size - rec->switch_base +
		       drain_threads__bytes(rec->threads) >= rec->so.size;
	return dump__fresh_bytes(rec->dump) >= rec->so.size;
}
