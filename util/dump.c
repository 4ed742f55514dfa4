#include "util/dump.h"
#include "util/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/tracking.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the staging buffer of the write: a few times the largest record, and
 * small enough to stay in the cache between the copy and the write */
#define STAGE_BYTES (128U << 10)
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
	return nr * ring_copy__bytes(data_bytes);
}

struct dump *dump__new(const struct evlist *evlist, u64 id_sample_type,
		       const struct dump_opts *opts)
{
	struct dump *d = calloc(1, sizeof(*d));
	int err = -ENOMEM;

	if (!d)
		return NULL;
	d->evlist = evlist;
	d->id_sample_type = id_sample_type;
	d->opts = *opts;
	d->rc = calloc(evlist->nr_mmaps ? evlist->nr_mmaps : 1, sizeof(*d->rc));
	if (!d->rc)
		goto fail;
	for (int c = 0; c < evlist->nr_mmaps; c++) {
		if (!evlist->bwd || !evlist->bwd[c].pc)
			continue;
		err = ring_copy__init(&d->rc[d->nr_rings], &evlist->bwd[c]);
		d->nr_rings++;
		if (err)
			goto fail;
		d->memory += ring_copy__bytes(d->rc[d->nr_rings - 1].size);
	}
	err = merge__reserve(&d->merge, d->nr_rings + 1);
	if (err)
		goto fail;
	d->stage = malloc(STAGE_BYTES);
	if (d->stage) {
		memset(d->stage, 0, STAGE_BYTES);	/* no fault during a dump */
		return d;
	}
	err = -ENOMEM;
fail:
	dump__delete(d);
	errno = -err;
	return NULL;
}

void dump__delete(struct dump *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nr_rings; i++)
		ring_copy__exit(&d->rc[i]);
	free(d->rc);
	buf__release(&d->fwd);
	buf__release(&d->bpf_prog_info);
	buf__release(&d->bpf_btf);
	prelude__exit(&d->prelude);
	merge__exit(&d->merge);
	free(d->stage);
	free(d);
}

u64 dump__fresh_bytes(const struct dump *d)
{
	u64 bytes = 0;

	for (int i = 0; i < d->nr_rings; i++)
		bytes += ring_copy__fresh(&d->rc[i]);
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
	/* the rings first, back to back: they run on while we copy */
	for (int i = 0; i < d->nr_rings; i++)
		ring_copy__capture(&d->rc[i], MIN(d->opts.margin, d->rc[i].size / 4));
	d->captured_ns = now_ns();
	/* the last dump comes after the events are disabled: every ring is
	 * complete, and there is no next dump to leave records to */
	if (d->opts.monotonic && !d->opts.last) {
		u64 end = UINT64_MAX;

		for (int i = 0; i < d->nr_rings; i++)
			end = MIN(end, d->rc[i].clock);
		end = end > DEFER_SLACK_NS ? end - DEFER_SLACK_NS : 0;
		for (int i = 0; i < d->nr_rings; i++)
			d->st.deferred += ring_copy__defer_after(&d->rc[i], end, d->id_sample_type);
	}
	for (int i = 0; i < d->nr_rings; i++)
		d->captured_bytes += d->rc[i].len;
	d->capture_ns = d->captured_ns - trigger_ns;
	d->fwd.len = 0;
	buf__add(&d->fwd, trk->log.p, trk->log.len);
	d->log_len = trk->log.len;
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

	d->st.kernel_lost += rc->lost;
	if (rc->wrapped && rc->new_bytes > bytes) {
		u64 gone = rc->new_bytes - bytes;

		d->st.overwritten_bytes += gone;
		if (rc->nr)
			d->st.overwritten_est += gone / MAX(bytes / rc->nr, 1);
	}
}

/* The tasks the samples refer to (those the window trims out too: their
 * tracking records are few, and knowing would take another walk over
 * every record); returns the samples and LOST records, or -ENOMEM. */
static s64 dump__ring_tasks(struct dump *d)
{
	s64 data = 0;

	for (int r = 0; r < d->nr_rings; r++) {
		const struct ring_copy *rc = &d->rc[r];

		for (u64 i = 0; i < rc->nr_pids; i++)
			if (prelude__add_pid(&d->prelude, rc->pids[i]))
				return -ENOMEM;
		data += rc->samples + rc->lost_records;
	}
	return data;
}


/* The staged records to the file: with -z as COMPRESSED records, each
 * stage a flushed part of the file's zstd stream (FINISHED_ROUND stays
 * as it is, as the stock perf writes it). */
static int dump__flush_stage(struct perf_data *out, char *stage, size_t used)
{
	struct iovec iov = { stage, used };

	return perf_data__write_ring(out, &iov, 1);
}

/* The records in time order, copied into the staging buffer and written
 * a buffer at a time: with many rings, consecutive records come from as
 * many places, and one copy here, where the merge has asked for them early,
 * is cheaper than the kernel gathering one small piece per record. */
static int dump__emit(struct dump *d, struct perf_data *out)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round)
	};
	const struct perf_event_header *h;
	char *stage = d->stage;
	size_t used = 0;
	int err = 0;
	u64 t;

	while ((h = merge__next(&d->merge, &t))) {
		d->st.records++;
		if (h->type == PERF_RECORD_SAMPLE) {
			d->st.samples++;
			if (!d->info.first_sample_time)
				d->info.first_sample_time = t;
			d->info.last_sample_time = t;
		}
		if (used + h->size > STAGE_BYTES) {
			err = dump__flush_stage(out, stage, used);
			if (err)
				return err;
			used = 0;
		}
		memcpy(stage + used, h, h->size);
		used += h->size;
	}
	err = used ? dump__flush_stage(out, stage, used) : 0;
	return err ? err : perf_data__write(out, &round, sizeof(round));
}

static int dump__fail(struct dump *d, int err, const char *what)
{
	snprintf(d->errbuf, sizeof(d->errbuf), "dump: %s: %s", what, strerror(-err));
	return err;
}

/* Everything after the capture; 0, -ENODATA or -errno with d->errbuf. */
static int dump__run(struct dump *d)
{
	struct perf_data out;
	s64 data;
	u64 window;
	int err;

	for (int i = 0; i < d->nr_rings; i++) {
		err = ring_copy__index(&d->rc[i], d->id_sample_type);
		if (err)
			return dump__fail(d, err, "indexing the ring copies");
		dump__account_ring(d, &d->rc[i]);
	}
	window = d->opts.keep_all ? 0 : ring_copy__window_start(d->rc, d->nr_rings);
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
	d->merge.nr_streams = d->nr_rings + 1;
	/* stream 0: tracking goes first at equal times, as it was logged first */
	d->merge.streams[0] = (struct merge_stream){
		.base = d->fwd.p, .offs = d->prelude.offs, .times = d->prelude.times,
		.nr = d->prelude.nr
	};
	for (int i = 0; i < d->nr_rings; i++)
		d->merge.streams[i + 1] = (struct merge_stream){
			.base = d->rc[i].buf, .offs = d->rc[i].offs, .times = d->rc[i].times,
			.nr = d->rc[i].nr, .trim = 1
		};
	merge__start(&d->merge, window);
	err = perf_data__create(&out, d->path, d->evlist, d->errbuf, sizeof(d->errbuf));
	if (err)
		return err;
	err = perf_data__set_compression(&out, d->opts.comp_level, d->opts.comp_mmap_len);
	if (err) {
		perf_data__abort(&out);
		return dump__fail(d, err, "-z: zstd");
	}
	d->info.first_sample_time = d->info.last_sample_time = 0;
	err = dump__emit(d, &out);
	d->st.trimmed = d->merge.trimmed;
	if (err) {
		snprintf(d->errbuf, sizeof(d->errbuf), "%s: write: %s", d->path, strerror(-err));
		perf_data__abort(&out);
		return err;
	}
	err = perf_data__commit(&out, &d->info, d->keep_old, d->errbuf, sizeof(d->errbuf));
	if (err)
		return err;
	memcpy(d->placed, out.placed, PATH_MAX);
	d->no_features = out.no_features;
	d->file_bytes = out.data_offset + out.data_size;
	return 0;
}

int dump__write(struct dump *d)
{
	if (d->err)		/* the capture failed: nothing to write */
		goto out;
	d->err = dump__run(d);
	d->last_sample_time = d->info.last_sample_time;
	if (!d->err)
		d->st.dumps++;
out:
	d->st.failed += d->err && d->err != -ENODATA;
	d->write_ns = now_ns() - d->captured_ns;
	return d->err;
}
