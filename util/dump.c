#include "util/dump.h"
#include "util/buf.h"
#include "util/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/snapshot.h"
#include "util/tracking.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IOV_BATCH 512
/* records published after a ring's copy but stamped before it (in flight
 * on another CPU) are microseconds old: leave this much to the next dump */
#define DEFER_SLACK_NS 1000000ULL

struct dump {
	struct ring_copy *rc;
	int nr_rings;
	struct merge_ref *refs;
	u64 nr_refs;
	u64 id_sample_type;
};

static u64 record_time(const struct perf_event_header *h, void *arg)
{
	struct dump *d = arg;
	struct sample_id sid;

	if (h->type == PERF_RECORD_SAMPLE)
		return snapshot__sample_time(h);
	return event__parse_id(h, d->id_sample_type, &sid) ? 0 : sid.time;
}

static void dump__release(struct dump *d)
{
	for (int i = 0; i < d->nr_rings; i++)
		ring_copy__release(&d->rc[i]);
	free(d->rc);
	free(d->refs);
}

/* Copies every backward ring, back to back, before any parsing. */
static int dump__capture(struct dump *d, struct evlist *evlist, u64 margin)
{
	d->rc = calloc(evlist->nr_mmaps, sizeof(*d->rc));
	if (!d->rc)
		return -ENOMEM;
	for (int c = 0; c < evlist->nr_mmaps; c++) {
		if (!evlist->bwd || !evlist->bwd[c].pc)
			continue;
		int err = ring_copy__capture(&d->rc[d->nr_rings], &evlist->bwd[c],
					     MIN(margin, (evlist->bwd[c].mask + 1) / 4));
		if (err)
			return err;
		d->nr_rings++;
	}
	return 0;
}

static void account_ring(struct ring_copy *rc, struct dump_stats *st)
{
	u64 bytes = 0;

	for (u64 i = 0; i < rc->nr; i++) {
		const struct perf_event_header *h = (const void *)(rc->buf + rc->offs[i]);

		bytes += h->size;
		if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
			u64 lost;

			memcpy(&lost, (const char *)h + sizeof(*h) + 8, 8);
			st->kernel_lost += lost;
		}
	}
	if (rc->wrapped && rc->new_bytes > bytes) {
		u64 gone = rc->new_bytes - bytes;

		st->overwritten_bytes += gone;
		if (rc->nr)
			st->overwritten_est += gone / (bytes / rc->nr);
	}
}

/* Every record of the dump, in the order they are to be written. */
static int dump__merge(struct dump *d, struct tracking *trk, const struct buf *pending,
		       u64 window, struct dump_stats *st)
{
	u64 n = trk->nr_records, seq = 0;

	for (size_t off = 0; off < pending->len; off += ((struct perf_event_header *)(pending->p + off))->size)
		n++;
	for (int i = 0; i < d->nr_rings; i++)
		n += d->rc[i].nr;
	d->refs = malloc((n ? n : 1) * sizeof(*d->refs));
	if (!d->refs)
		return -ENOMEM;
	/* tracking first, so equal times keep the log's order ahead of samples */
	tracking__for_each(trk, h)
		d->refs[d->nr_refs++] = (struct merge_ref){ h, tracking__time(trk, h), seq++ };
	for (size_t off = 0; off < pending->len;) {
		const struct perf_event_header *h = (const void *)(pending->p + off);

		d->refs[d->nr_refs++] = (struct merge_ref){ h, record_time(h, d), seq++ };
		off += h->size;
	}
	for (int i = 0; i < d->nr_rings; i++) {
		for (u64 k = 0; k < d->rc[i].nr; k++) {
			const struct perf_event_header *h = (const void *)(d->rc[i].buf + d->rc[i].offs[k]);
			u64 t = record_time(h, d);

			if (h->type == PERF_RECORD_SAMPLE && t < window) {
				st->trimmed++;
				continue;
			}
			d->refs[d->nr_refs++] = (struct merge_ref){ h, t, seq++ };
		}
	}
	snapshot__sort(d->refs, d->nr_refs);
	return 0;
}

static int dump__emit(struct dump *d, struct perf_data *out, struct header_info *info,
		      u64 *samples)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round)
	};
	struct iovec iov[IOV_BATCH];
	int n = 0, err = 0;

	for (u64 i = 0; i < d->nr_refs && !err; i++) {
		const struct merge_ref *r = &d->refs[i];

		if (r->h->type == PERF_RECORD_SAMPLE) {
			(*samples)++;
			if (!info->first_sample_time)
				info->first_sample_time = r->time;
			info->last_sample_time = r->time;
		}
		iov[n++] = (struct iovec){ (void *)r->h, r->h->size };
		if (n == IOV_BATCH || i + 1 == d->nr_refs) {
			err = perf_data__writev(out, iov, n);
			n = 0;
		}
	}
	return err ? err : perf_data__write(out, &round, sizeof(round));
}

int dump__write(struct evlist *evlist, struct tracking *trk, const struct buf *pending,
		const char *path, int keep_old,
		const struct dump_opts *opts, const struct header_info *info_tmpl,
		struct dump_stats *st, char placed[PATH_MAX], char *errbuf, size_t errsz)
{
	struct dump d = { .id_sample_type = trk->id_sample_type };
	struct header_info info = *info_tmpl;
	struct perf_data out;
	u64 window, samples = 0;
	int err;

	err = dump__capture(&d, evlist, opts->margin);
	if (err) {
		snprintf(errbuf, errsz, "dump: capture: %s", strerror(-err));
		goto out;
	}
	for (int i = 0; i < d.nr_rings && !err; i++)
		err = ring_copy__index(&d.rc[i]);
	if (err) {
		snprintf(errbuf, errsz, "dump: indexing the ring copies: %s", strerror(-err));
		goto out;
	}
	/* the last dump comes after the events are disabled: every ring is
	 * complete, and there is no next dump to leave records to */
	if (opts->monotonic && !opts->last) {
		u64 end = UINT64_MAX;

		for (int i = 0; i < d.nr_rings; i++)
			end = MIN(end, d.rc[i].clock);
		end = end > DEFER_SLACK_NS ? end - DEFER_SLACK_NS : 0;
		for (int i = 0; i < d.nr_rings; i++)
			st->deferred += ring_copy__defer_after(&d.rc[i], end, record_time, &d);
	}
	for (int i = 0; i < d.nr_rings; i++)
		account_ring(&d.rc[i], st);
	window = opts->keep_all ? 0 : snapshot__window_start(d.rc, d.nr_rings, record_time, &d);
	err = dump__merge(&d, trk, pending, window, st);
	if (err) {
		snprintf(errbuf, errsz, "dump: %s", strerror(-err));
		goto out;
	}
	for (u64 i = 0; i < d.nr_refs && !samples; i++)
		samples += d.refs[i].h->type == PERF_RECORD_SAMPLE || d.refs[i].h->type == PERF_RECORD_LOST;
	if (!samples) {
		/* a file without samples is one stock perf report refuses */
		st->empty++;
		err = -ENODATA;
		goto out_nofail;
	}
	samples = 0;
	err = perf_data__create(&out, path, evlist, errbuf, errsz);
	if (err)
		goto out;
	info.first_sample_time = info.last_sample_time = 0;
	err = dump__emit(&d, &out, &info, &samples);
	if (err) {
		snprintf(errbuf, errsz, "%s: write: %s", path, strerror(-err));
		perf_data__abort(&out);
		goto out;
	}
	err = perf_data__commit(&out, &info, keep_old, errbuf, errsz);
	if (err)
		goto out;
	memcpy(placed, out.placed, PATH_MAX);
	st->dumps++;
	st->records += d.nr_refs;
	st->samples += samples;
	/* no later dump can hold a sample older than this one's newest */
	if (info.last_sample_time && tracking__prune(trk, info.last_sample_time))
		st->prune_failed++;
out:
	if (err)
		st->failed++;
out_nofail:
	dump__release(&d);
	return err;
}
