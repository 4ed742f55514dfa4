#include "util/record.h"
#include "util/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/header.h"
#include "util/parse-events.h"
#include "util/tracking.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ID_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

u64 record__id_sample_type(const struct evlist *evlist)
{
	(void)evlist;
	return ID_SAMPLE_TYPE | PERF_SAMPLE_IP;
}

static void config_tracking(struct perf_event_attr *a)
{
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->ksymbol = 1;
	a->bpf_event = 1;
	a->build_id = 1;
	a->cgroup = 1;
}

int record__config(struct evlist *evlist, const struct record_opts *opts,
		   char *errbuf, size_t errsz)
{
	struct perf_event_attr dummy = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
	};
	struct evsel *track;
	int i;

	track = evsel__new(&dummy, "dummy:HG");
	if (!track || evlist__add(evlist, track)) {
		snprintf(errbuf, errsz, "record: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	track->tracking = 1;
	track->overwrite = 0;
	for (i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		struct perf_event_attr *a = &e->attr;

		a->sample_type = ID_SAMPLE_TYPE | PERF_SAMPLE_IP;
		a->sample_id_all = 1;
		/* wake the reader when a forward ring is half full, not per record */
		a->watermark = !e->wake_each;
		a->wakeup_watermark = e->wake_each ? 1 :
				      opts->wakeup_bytes ? opts->wakeup_bytes : opts->mmap_bytes / 2;
		/* dumps compare sample times with the moment each ring was copied */
		if (opts->overwrite) {
			a->use_clockid = 1;
			a->clockid = CLOCK_MONOTONIC;
		}
		a->disabled = 1;
		a->enable_on_exec = opts->per_task;
		a->inherit = !opts->no_inherit;
		if (e->tracking) {
			config_tracking(a);
			continue;
		}
		a->sample_type |= PERF_SAMPLE_PERIOD;
		if (a->type == PERF_TYPE_TRACEPOINT)
			a->sample_type |= PERF_SAMPLE_RAW;
		if (opts->callgraph)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (!e->user_period && opts->count) {
			a->freq = 0;
			a->sample_period = opts->count;
		} else if (!e->user_period && opts->freq) {
			a->freq = 1;
			a->sample_freq = opts->freq;
		}
		if (e->overwrite < 0)
			e->overwrite = opts->overwrite;
		a->write_backward = e->overwrite;
		/* nobody waits on a backward ring: spare the traced CPU the wakeups */
		if (a->write_backward) {
			a->watermark = 1;
			a->wakeup_watermark = UINT32_MAX;
		}
	}
	return 0;
}

void record_stats__account(struct record_stats *st, const struct perf_event_header *h, u64 time)
{
	if (h->type == PERF_RECORD_SAMPLE) {
		st->samples++;
		if (!st->first_time || time < st->first_time)
			st->first_time = time;
		if (time > st->last_time)
			st->last_time = time;
	} else if (h->type == PERF_RECORD_LOST) {
		u64 lost;

		memcpy(&lost, (const char *)h + sizeof(*h) + 8, sizeof(lost));
		st->lost += lost;
	}
}

struct scan_arg {
	struct record_stats *st;
	struct drain_sink *sink;
	const struct evlist *evlist;
	int err;
};


/* Overwrite mode keeps forward-ring samples (/no-overwrite/ events) for the
 * next dump: over the cap, the oldest half goes, counted, as a flight
 * recorder keeps the newest. */
static int pending__add(struct drain_sink *sink, const struct perf_event_header *h)
{
	struct buf *b = sink->pending;

	if (sink->pending_max && b->len + h->size > sink->pending_max)
		sink->pending_dropped += event__cut_oldest(b, sink->pending_max / 2 -
							   MIN(h->size, sink->pending_max / 2));
	buf__add(b, h, h->size);
	return b->err;
}

/* Copies a record out of the ring where the sink wants it; one that wraps
 * around the end is made whole in the ring's scratch (records reach 64K). */
static int sink_record(struct scan_arg *a, const struct mmap *m, u64 pos,
		       const struct perf_event_header *h)
{
	struct drain_sink *sink = a->sink;
	const struct perf_event_header *rec = h;
	int tracking = tracking__wants(h->type);

	if (tracking ? !sink->tracking : !sink->pending && !sink->trigger)
		return 0;
	if ((pos & m->mask) + h->size > m->mask + 1) {
		mmap__copy(m, pos, m->scratch, h->size);
		rec = m->scratch;
	}
	if (h->type == PERF_RECORD_SAMPLE && sink->trigger) {
		u64 id;

		memcpy(&id, rec + 1, sizeof(id));	/* IDENTIFIER comes first */
		if (evlist__id2evsel(a->evlist, id) == sink->trigger) {
			sink->triggered = 1;
			return 0;
		}
	}
	if (tracking)
		return tracking__add(sink->tracking, rec);
	return sink->pending ? pending__add(sink, rec) : 0;
}

static int scan_record(const struct mmap *m, u64 pos, const struct perf_event_header *h,
		       void *arg)
{
	struct scan_arg *a = arg;
	u64 time = 0;
	int err = sink_record(a, m, pos, h);

	if (err)
		return a->err = err;
	if (h->type == PERF_RECORD_SAMPLE && h->size >= SAMPLE_TIME_OFFSET + 8)
		mmap__copy(m, pos + SAMPLE_TIME_OFFSET, &time, sizeof(time));
	if (h->type == PERF_RECORD_LOST && (pos & m->mask) + h->size > m->mask + 1) {
		/* a LOST record wrapped around the end: read it whole */
		u64 rec[4];

		mmap__copy(m, pos, rec, MIN(h->size, sizeof(rec)));
		record_stats__account(a->st, (void *)rec, 0);
		return 0;
	}
	record_stats__account(a->st, h, time);
	return 0;
}

s64 record__drain_forward(struct evlist *evlist, struct drain_sink *sink,
			  struct record_stats *st)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round)
	};
	struct scan_arg arg = { st, sink, evlist, 0 };
	struct perf_data *d = sink->data;
	s64 written = 0;
	int err;

	for (int c = 0; c < evlist->nr_mmaps; c++) {
		struct mmap *m = &evlist->fwd[c];
		struct record_stats before;
		struct iovec iov[2];
		u64 head, start;
		int n;

		if (!m->pc)
			continue;
		head = mmap__read_head(m);
		start = m->prev;
		if (head == start)
			continue;
		before = *st;
		/* the kernel never publishes a partial record, so a bad size
		 * here means a corrupt ring: stop before it rather than write it */
		if (mmap__for_each(m, start, head, scan_record, &arg))
			return arg.err ? arg.err : -EIO;
		if (d) {
			n = mmap__span_iov(m, start, head, iov);
			err = perf_data__writev(d, iov, n);
			if (err) {
				/* what did not reach the file is not counted in it */
				*st = before;
				return err;
			}
		}
		mmap__write_tail(m, head);
		m->prev = head;
		written += head - start;
	}
	if (written && d) {
		err = perf_data__write(d, &round, sizeof(round));
		if (err)
			return err;
	}
	return written;
}
