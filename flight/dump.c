/* A flight-recorder dump from end to end: the capture of the rings (or the
 * history), then the trim to a common window, the prelude, the merge and
 * the file, made ahead and named only when complete. */
#include "flight/dump.h"
#include "perfdata/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "buildid/held-files.h"
#include "lib/memcpy-stream.h"
#include "flight/tracking.h"
#include "flight/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the staging buffer of the write: a few times the largest record, small
 * enough to stay in the last-level cache between the copy and the write,
 * and big enough that stages change hands seldom: each hand-over can wake
 * an idle CPU, which is slow in a VM */
#define STAGE_BYTES (1U << 20)
/* records published after a ring's copy but stamped before it (in flight
 * on another CPU) are microseconds old: leave this much to the next dump */
#define DEFER_SLACK_NS 1000000ULL

void dump_stats__add(struct dump_stats *sum, const struct dump_stats *one)
{
	u64 *s = (u64 *)sum;
	const u64 *o = (const u64 *)one;

	_Static_assert(sizeof(*sum) % sizeof(u64) == 0, "dump_stats holds u64 counts only");
	for (size_t i = 0; i < sizeof(*sum) / sizeof(u64); i++)
		s[i] += o[i];
}

u64 dump__memory(int nr, u64 data_bytes)
{
	return nr * ring_copy__bytes(data_bytes) + STAGE_PIPE_DEPTH * (u64)STAGE_BYTES +
	       merge__bytes(nr + 1);
}

struct dump *dump__new(const struct evlist *evlist, u64 id_sample_type,
		       const struct dump_opts *opts)
{
	struct dump *d = calloc(1, sizeof(*d));
	int err = -ENOMEM;

	if (!d)
		return NULL;
	d->ahead.fd = -1;
	d->evlist = evlist;
	d->id_sample_type = id_sample_type;
	d->opts = *opts;
	d->rc = calloc(evlist->nr_mmaps ? evlist->nr_mmaps : 1, sizeof(*d->rc));
	if (!d->rc)
		goto fail;
	for (int c = 0; c < evlist->nr_mmaps; c++) {
		struct ring_copy *rc = &d->rc[d->nr_rings];

		if (!evlist->bwd || !evlist->bwd[c].pc)
			continue;
		err = evlist__twinned(evlist) ?
		      ring_copy__init_twins(rc, &evlist->bwd[c], &evlist->bwd_twin[c]) :
		      ring_copy__init(rc, &evlist->bwd[c]);
		d->nr_rings++;
		if (err)
			goto fail;
		d->memory += rc->twin ? ring_copy__twins_bytes(rc->size) : ring_copy__bytes(rc->size);
	}
	if (d->nr_rings) {
		d->crew = capture_crew__new(d->rc, d->nr_rings,
					    (int)sysconf(_SC_NPROCESSORS_ONLN));
		if (!d->crew) {
			err = -errno;
			goto fail;
		}
	}
	if (opts->history_slots) {
		d->hist = calloc(opts->history_slots, sizeof(*d->hist));
		if (!d->hist)
			goto fail;
		for (int i = 0; i < opts->history_slots; i++) {
			err = history_stream__init(&d->hist[i]);
			if (err)
				goto fail;
		}
	}
	err = merge__reserve(&d->merge, d->nr_rings + opts->history_slots + 1);
	if (err)
		goto fail;
	d->memory += merge__bytes(d->nr_rings + opts->history_slots + 1);
	err = -ENOMEM;
	d->done = calloc(d->nr_rings + opts->history_slots + 1, sizeof(*d->done));
	if (!d->done)
		goto fail;
	err = stage_pipe__init(&d->pipe, STAGE_BYTES);
	if (!err) {
		d->memory += STAGE_PIPE_DEPTH * (u64)STAGE_BYTES;
		return d;
	}
fail:
	dump__delete(d);
	errno = -err;
	return NULL;
}

void dump__delete(struct dump *d)
{
	if (!d)
		return;
	capture_crew__delete(d->crew);
	perf_data__abort(&d->ahead);
	for (int i = 0; i < d->nr_rings; i++)
		ring_copy__exit(&d->rc[i]);
	free(d->rc);
	for (int i = 0; d->hist && i < d->opts.history_slots; i++)
		history_stream__exit(&d->hist[i]);
	free(d->hist);
	history_scan__exit(&d->scan);
	free(d->done);
	buf__release(&d->fwd);
	buf__release(&d->bpf_prog_info);
	buf__release(&d->bpf_btf);
	header_ahead__release(&d->feats_ahead);
	prelude__exit(&d->prelude);
	merge__exit(&d->merge);
	stage_pipe__exit(&d->pipe);
	free(d);
}

u64 dump__fresh_bytes(const struct dump *d)
{
	u64 bytes = 0;

	for (int i = 0; i < d->nr_rings; i++)
		bytes += ring_copy__fresh_in(&d->rc[i], d->evlist->twin_active);
	return bytes;
}

int dump__capture(struct dump *d, const struct tracking *trk, struct buf *pending,
		  const char *path, int keep_old, const struct header_info *info,
		  u64 trigger_ns)
{
	memset(&d->st, 0, sizeof(d->st));
	d->err = 0;
	d->placed[0] = d->errbuf[0] = 0;
	d->captured_bytes = 0;
	d->no_features = 0;
	if (evlist__twinned(d->evlist)) {
		/* the set switched from, or at the end the one that was on */
		int set = d->opts.last ? d->evlist->twin_active : !d->evlist->twin_active;

		for (int i = 0; i < d->nr_rings; i++) {
			ring_copy__freeze(&d->rc[i], set, d->opts.margin, d->id_sample_type);
			d->captured_bytes += d->rc[i].len - d->rc[i].start;
		}
		d->captured_ns = now_ns();
	} else {
		/* the rings first, all at once: they run on while we copy */
		if (d->crew)
			capture_crew__run(d->crew, d->opts.margin);
		d->captured_ns = now_ns();
		/* the last dump comes after the events are disabled: every ring
		 * is complete, and there is no next dump to leave records to */
		if (d->opts.monotonic && !d->opts.last)
			d->st.deferred = ring_copy__defer_newest(d->rc, d->nr_rings,
								 DEFER_SLACK_NS, d->id_sample_type);
		for (int i = 0; i < d->nr_rings; i++)
			d->captured_bytes += d->rc[i].len;
	}
	d->capture_ns = d->captured_ns - trigger_ns;
	d->fwd.len = 0;
	buf__add(&d->fwd, trk->log.p, trk->log.len);
	d->log_len = trk->log.len;
	d->held = trk->held;
	d->nr_held = trk->held ? trk->held->nr : 0;
	buf__add(&d->fwd, pending->p, pending->len);
	pending->len = 0;
	if (d->fwd.err) {
		d->fwd.err = 0;
		snprintf(d->errbuf, sizeof(d->errbuf), "dump: copying the tracking log: %s",
			 strerror(ENOMEM));
		return d->err = -ENOMEM;
	}
	if (strlen(path) >= sizeof(d->path)) {
		snprintf(d->errbuf, sizeof(d->errbuf), "dump: %s", strerror(ENAMETOOLONG));
		return d->err = -ENAMETOOLONG;
	}
	strcpy(d->path, path);
	d->keep_old = keep_old;
	d->info = *info;
	d->info.clock_implied = d->opts.monotonic && !d->opts.clockid_asked;
	/* the recorder adds programs as they load: the writer gets a copy */
	if (info->bpf_prog_info && info->bpf_btf) {
		d->bpf_prog_info.len = d->bpf_btf.len = 0;
		buf__add(&d->bpf_prog_info, info->bpf_prog_info->p, info->bpf_prog_info->len);
		buf__add(&d->bpf_btf, info->bpf_btf->p, info->bpf_btf->len);
		if (d->bpf_prog_info.err || d->bpf_btf.err) {
			d->bpf_prog_info.err = d->bpf_btf.err = 0;
			snprintf(d->errbuf, sizeof(d->errbuf), "dump: copying the BPF programs' "
				 "info: %s", strerror(ENOMEM));
			return d->err = -ENOMEM;
		}
		d->info.bpf_prog_info = &d->bpf_prog_info;
		d->info.bpf_btf = &d->bpf_btf;
	}
	return 0;
}

/* What the ring overwrote before the copy, and what the kernel dropped. */
static void dump__account_ring(struct dump *d, const struct ring_copy *rc)
{
	u64 bytes = rc->len - rc->start;

	d->st.kernel_lost += rc->idx.lost;
	d->st.overlap += rc->overlap;
	d->st.deferred += rc->cut;
	if (rc->wrapped && rc->new_bytes > bytes) {
		u64 gone = rc->new_bytes - bytes;

		d->st.overwritten_bytes += gone;
		if (rc->idx.nr)
			d->st.overwritten_est += gone / MAX(bytes / rc->idx.nr, 1);
	}
}

/* The tasks the samples refer to (those the window trims out too: their
 * tracking records are few, and knowing would take another walk over
 * every record); returns the samples and LOST records, or -ENOMEM. */
/* Uncompressed history records: their tasks into the prelude; returns
 * their samples and LOST records, or -ENOMEM. */
static s64 dump__raw_tasks(struct dump *d, const char *recs, u32 len)
{
	if (history_scan__records(&d->scan, recs, len))
		return -ENOMEM;
	for (u32 i = 0; i < d->scan.nr_pids; i++)
		if (prelude__add_pid(&d->prelude, d->scan.pids[i]))
			return -ENOMEM;
	d->st.kernel_lost += d->scan.lost;
	return d->scan.samples + d->scan.lost_records;
}

static s64 dump__ring_tasks(struct dump *d)
{
	s64 data = 0;

	for (int r = 0; r < d->nr_rings; r++) {
		const struct ring_copy *rc = &d->rc[r];

		for (u64 i = 0; i < rc->idx.nr_pids; i++)
			if (prelude__add_pid(&d->prelude, rc->idx.pids[i]))
				return -ENOMEM;
		data += rc->idx.samples + rc->idx.lost_records;
	}
	for (int s = 0; s < d->take.nr_slots; s++) {
		const struct history_take_slot *ts = &d->take.slot[s];
		s64 got;

		/* the chunks say what they hold; only what was not compressed
		 * yet (the raw buffer, chunks taken before) is walked */
		for (const struct history_chunk *c = ts->oldest; c; c = c->next) {
			got = c->raw ? dump__raw_tasks(d, c->raw, c->raw_len) : 0;
			if (got < 0)
				return got;
			data += got;
			for (u32 i = 0; !c->raw && i < c->nr_pids; i++)
				if (prelude__add_pid(&d->prelude, history_chunk__pids(c)[i]))
					return -ENOMEM;
			data += c->samples + c->lost_records;
			d->st.kernel_lost += c->lost;
		}
		got = dump__raw_tasks(d, ts->raw, ts->raw_len);
		if (got < 0)
			return got;
		data += got;
	}
	return data;
}

/* The most bytes of records the dump can write: every record captured,
 * of the history too, as if none were trimmed. */
static u64 dump__data_bound(const struct dump *d)
{
	u64 bytes = d->prelude.bytes + (d->fwd.len - d->log_len);

	for (int r = 0; r < d->nr_rings; r++)
		bytes += d->rc[r].len - d->rc[r].start;
	for (int s = 0; s < d->take.nr_slots; s++) {
		const struct history_take_slot *ts = &d->take.slot[s];

		for (const struct history_chunk *c = ts->oldest; c; c = c->next)
			bytes += c->raw_len;
		bytes += ts->raw_len;
	}
	return bytes;
}

/* How many of the first n times (in order) are at most end. */
static u64 count_until(const u64 *times, u64 n, u64 end)
{
	u64 lo = 0, hi = n;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (times[mid] <= end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Stream i of the next round of the merge: its records from where the
 * last round stopped, up to end. */
static void dump__round_stream(struct dump *d, int i, const char *base, const u32 *offs,
			       const u64 *times, u64 nr, int trim, u64 end)
{
	u64 from = d->done[i];

	d->merge.streams[i] = (struct merge_stream){
		.base = base, .offs = offs + from, .times = times + from,
		.nr = count_until(times + from, nr - from, end), .trim = trim,
	};
}

/* Sets up the next round of the merge: every stream's records up to the
 * time every history ring has been read to (all of them without a
 * history), so that the merge never waits for a record not yet read.
 * Returns that time, UINT64_MAX for the last round, or 0 after an error
 * (with -errno in *err). */
static u64 dump__round(struct dump *d, int *err)
{
	u64 end = UINT64_MAX;
	int n = 1 + d->nr_rings;

	for (int s = 0; s < d->take.nr_slots; s++) {
		*err = history_stream__fill(&d->hist[s], &d->take, s, d->id_sample_type);
		if (*err)
			return 0;
		end = MIN(end, history_stream__horizon(&d->hist[s]));
	}
	/* stream 0: tracking goes first at equal times, as it was logged first */
	dump__round_stream(d, 0, d->fwd.p, d->prelude.offs, d->prelude.times, d->prelude.nr, 0,
			   end);
	for (int i = 0; i < d->nr_rings; i++)
		dump__round_stream(d, i + 1, d->rc[i].buf, d->rc[i].idx.offs, d->rc[i].idx.times,
				   d->rc[i].idx.nr, 1, end);
	/* the stream the round ends at goes whole: a CPU's records are not
	 * quite in time order, and a search up to its last record's time
	 * could stop before it, leave it unread, and so end every next
	 * round at the same time with nothing merged */
	for (int s = 0; s < d->take.nr_slots; s++) {
		struct history_stream *hs = &d->hist[s];

		d->done[n] = hs->done;
		dump__round_stream(d, n++, hs->raw.p, hs->idx.offs, hs->idx.times, hs->idx.nr, 1,
				   history_stream__horizon(hs) == end ? UINT64_MAX : end);
	}
	d->merge.nr_streams = n;
	merge__start(&d->merge, d->window);
	return end;
}

/* What the round merged is done with. */
static void dump__round_done(struct dump *d)
{
	for (int i = 0; i < d->merge.nr_streams; i++)
		d->done[i] += d->merge.streams[i].nr;
	for (int s = 0; s < d->take.nr_slots; s++)
		d->hist[s].done = d->done[1 + d->nr_rings + s];
	d->st.trimmed += d->merge.trimmed;
}

/* The records in time order, copied into stages the pipe writes while the
 * merge goes on: with many rings, consecutive records come from as many
 * places, and one copy here, where the merge has asked for them early, is
 * cheaper than the kernel gathering one small piece per record. With -z
 * each stage is a flushed part of the file's zstd stream (FINISHED_ROUND
 * stays as it is, as the stock perf writes it). The merge goes in rounds
 * when a history is read piece by piece. */
/* hits: the build ids' model, when it is fed on this side (see
 * dump__emit()). */
static int dump__put_stage(struct dump *d, struct dso_hits *hits, char *stage, size_t used)
{
	memcpy_stream_fence();
	if (hits)
		dso_hits__feed(hits, &(struct iovec){ stage, used }, 1);
	return stage_pipe__put(&d->pipe, used);
}

static int dump__merge(struct dump *d, struct dso_hits *hits, u64 head)
{
	const struct perf_event_header *h;
	char *stage = stage_pipe__stage(&d->pipe);
	size_t used = 0;
	int err = 0;
	u64 t, end;

	memset(d->done, 0, (1 + d->nr_rings + d->take.nr_slots) * sizeof(*d->done));
	d->done[0] = head;
	d->st.records += head;
	for (int s = 0; s < d->take.nr_slots; s++)
		history_stream__start(&d->hist[s], &d->take, s);
	d->st.trimmed = 0;
	do {
		end = dump__round(d, &err);
		if (err)
			return err;
		while ((h = merge__next(&d->merge, &t))) {
			d->st.records++;
			if (h->type == PERF_RECORD_SAMPLE) {
				d->st.samples++;
				if (!d->info.first_sample_time)
					d->info.first_sample_time = t;
				d->info.last_sample_time = t;
			}
			if (used + h->size > STAGE_BYTES) {
				err = dump__put_stage(d, hits, stage, used);
				if (err)
					return err;
				stage = stage_pipe__stage(&d->pipe);
				used = 0;
			}
			/* the pipe's thread reads the stage on another CPU:
			 * stores that skip the caches take no line back from
			 * it, and so cost the same whichever CPUs the two
			 * threads are on */
			memcpy_stream_record(stage + used, h, h->size);
			used += h->size;
		}
		dump__round_done(d);
	} while (end != UINT64_MAX);
	return used ? dump__put_stage(d, hits, stage, used) : 0;
}

/* The prelude's records of no time, those synthesized in user space (the
 * kernel's carry one), go first and as they are, compressed or not: the
 * stock perf compresses only what it reads from the rings, and a reader
 * that cannot decompress (hotspot's perfparser built without zstd) still
 * gets the kernel's map and the tasks named from /proc. Returns how many,
 * or -errno. */
static s64 dump__write_head(struct dump *d, struct perf_data *out)
{
	struct iovec iov[64];
	u64 head = count_until(d->prelude.times, d->prelude.nr, 0);
	int n = 0, err = 0;

	for (u64 i = 0; !err && i < head; i++) {
		const struct perf_event_header *h = (const void *)(d->fwd.p + d->prelude.offs[i]);

		iov[n++] = (struct iovec){ (void *)h, h->size };
		if (n == (int)ARRAY_SIZE(iov) || i + 1 == head) {
			err = perf_data__writev(out, iov, n);
			n = 0;
		}
	}
	return err ? err : (s64)head;
}

static int dump__emit(struct dump *d, struct perf_data *out)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round)
	};
	s64 head = dump__write_head(d, out);
	int err, werr;

	if (head < 0)
		return head;

	/* The build ids' model reads every stage once more, on whichever
	 * side has less to do: writing into the page cache, the pipe
	 * (the merge's side is the busier one); compressing with -z, the
	 * merge. */
	int pipe_feeds = !d->opts.comp_level;

	stage_pipe__start(&d->pipe, out, pipe_feeds);
	err = dump__merge(d, pipe_feeds ? NULL : out->hits, head);
	/* out is ours again only once the pipe is empty, failed or not */
	werr = stage_pipe__finish(&d->pipe);
	err = err ? err : werr;
	return err ? err : perf_data__write(out, &round, sizeof(round));
}

static int dump__fail(struct dump *d, int err, const char *what)
{
	snprintf(d->errbuf, sizeof(d->errbuf), "dump: %s: %s", what, strerror(-err));
	return err;
}

/* The decompressed history goes once written: between dumps the history
 * takes its size and no more. */
static void dump__drop_history(struct dump *d)
{
	for (int s = 0; s < d->take.nr_slots; s++)
		history_stream__release(&d->hist[s]);
}

/* Everything after the capture; 0, -ENODATA or -errno with d->errbuf. */
static int dump__run(struct dump *d)
{
	struct perf_data out;
	s64 data;
	u64 window;
	int err;

	d->warm_bytes = 0;
	d->warm_err = 0;
	err = d->crew ? capture_crew__index(d->crew, d->id_sample_type) : 0;
	if (err)
		return dump__fail(d, err, "indexing the ring copies");
	for (int i = 0; i < d->nr_rings; i++)
		dump__account_ring(d, &d->rc[i]);
	window = ring_copy__window_start(d->rc, d->nr_rings);
	/* a history ring that lost records (to the size, or to a chunk it
	 * had no memory for) is whole only after the newest it lost */
	for (int s = 0; s < d->take.nr_slots; s++)
		if (d->take.slot[s].dropped)
			window = MAX(window, d->take.slot[s].dropped_last + 1);
	d->window = d->opts.keep_all ? 0 : window;
	prelude__reset(&d->prelude);
	data = dump__ring_tasks(d);
	if (data < 0 || prelude__select(&d->prelude, d->fwd.p, d->fwd.len, d->log_len,
					d->id_sample_type))
		return dump__fail(d, -ENOMEM, "selecting the tracking prelude");
	data += d->prelude.pending_data;
	d->prepare_ns = now_ns() - d->captured_ns;
	if (!data) {
		/* a file without samples is one stock perf report refuses */
		d->st.empty++;
		return -ENODATA;
	}
	err = perf_data__create_ahead(&out, &d->ahead, d->path, d->evlist, d->errbuf,
				      sizeof(d->errbuf));
	if (err)
		return err;
	d->warm_bytes = out.warm;
	d->warm_err = d->ahead_err;
	err = perf_data__set_compression(&out, d->opts.comp_level, d->opts.comp_mmap_len);
	if (err) {
		perf_data__abort(&out);
		return dump__fail(d, err, "-z: zstd");
	}
	/* compressed, the bytes are not known, and far fewer */
	if (!d->opts.comp_level)
		perf_data__reserve(&out, dump__data_bound(d));
	if (d->opts.buildid && !(out.hits = dso_hits__new(d->evlist, d->opts.buildid_all))) {
		perf_data__abort(&out);
		return dump__fail(d, -ENOMEM, "build ids");
	}
	d->info.first_sample_time = d->info.last_sample_time = 0;
	d->info.ahead = d->feats_ready ? &d->feats_ahead : NULL;
	err = dump__emit(d, &out);
	if (err) {
		snprintf(d->errbuf, sizeof(d->errbuf), "%s: write: %s", d->path, strerror(-err));
		perf_data__abort(&out);
		dso_hits__delete(out.hits);
		return err;
	}
	/* before the features: a build id the MMAP2s lack is read from the
	 * held file when the path is gone */
	if (d->held && out.hits)
		held_files__lend(d->held, d->nr_held, out.hits);
	err = perf_data__commit(&out, &d->info, d->keep_old, d->errbuf, sizeof(d->errbuf));
	/* the file is in place: the cache can only add to it */
	memset(&d->cache, 0, sizeof(d->cache));
	if (!err && d->opts.buildid_dir[0])
		dso_hits__fill_cache(out.hits, d->opts.buildid_dir, d->opts.cache_budget, &d->cache);
	dso_hits__delete(out.hits);
	if (err)
		return err;
	memcpy(d->placed, out.placed, PATH_MAX);
	d->no_features = out.no_features;
	d->file_bytes = out.data_offset + out.data_size;
	d->warm_bytes = MIN(d->warm_bytes, d->file_bytes);
	return 0;
}

int dump__ready_next(struct dump *d, const char *path)
{
	if (d->ahead.fd < 0)
		d->ahead_err = perf_data__open_ahead(&d->ahead, path);
	d->feats_ready = !header_ahead__make(&d->feats_ahead, &d->info);
	return d->ahead_err;
}

int dump__warm(struct dump *d, const int *stop)
{
	u64 bytes = 0;

	if (d->opts.comp_level || d->ahead.fd < 0)
		return 0;
	for (int r = 0; r < d->nr_rings; r++)
		bytes += d->rc[r].size;
	d->ahead_err = perf_data__warm(&d->ahead, bytes, stop);
	return d->ahead_err;
}

int dump__ahead_made(const struct dump *d)
{
	return perf_data__warmed(&d->ahead);
}

int dump__write(struct dump *d)
{
	if (d->err)		/* the capture failed: nothing to write */
		goto out;
	d->err = dump__run(d);
	dump__drop_history(d);
	d->last_sample_time = d->info.last_sample_time;
	if (!d->err)
		d->st.dumps++;
out:
	d->st.failed += d->err && d->err != -ENODATA;
	d->write_ns = now_ns() - d->captured_ns;
	return d->err;
}

/* The writer's operations: the writer runs a dump, readies the next one's
 * file and makes it ahead, knowing nothing of dumps. */
static void dump__writer_run(void *job)
{
	dump__write(job);	/* the outcome is in the dump: d->err */
}

/* After a dump the next file is opened before the dump is done: a session
 * holds as many fds after a dump as before. */
static void dump__writer_ready(void *job, const void *path)
{
	(void)dump__ready_next(job, path);	/* the dump reports d->ahead_err */
}

/* A failure costs the next dump its speed; the dump says so. */
static void dump__writer_ahead(void *job, const int *stop)
{
	(void)dump__warm(job, stop);
}

/* Only a file made ahead is worth reading again: not with -z, -r or a
 * making refused. */
static int dump__writer_ahead_again(const void *job)
{
	return dump__ahead_made(job);
}

const struct writer_ops dump__writer_ops = {
	.run = dump__writer_run,
	.ready = dump__writer_ready,
	.ahead = dump__writer_ahead,
	.ahead_again = dump__writer_ahead_again,
};
