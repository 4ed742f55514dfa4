/* The forward rings, emptied into the file, the tracking log and the
 * records pending for the next dump. */
#include "record/drain.h"
#include "util/bpf-event.h"
#include "perfdata/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "flight/history.h"
#include "flight/tracking.h"
#include "record/synthetic.h"
#include "util/cpumap.h"
#include "buildid/dso-hits.h"
#include "bpf/off-cpu.h"

#include <errno.h>
#include <string.h>

void record_stats__account(struct record_stats *st, const struct perf_event_header *h, u64 time)
{
	u64 lost;

	if (time > st->end_time)
		st->end_time = time;
	if (h->type == PERF_RECORD_SAMPLE) {
		st->samples++;
		if (!st->first_time || time < st->first_time)
			st->first_time = time;
		if (time > st->last_time)
			st->last_time = time;
	} else if (event__lost(h, &lost)) {
		st->lost += lost;
	}
}

struct scan_arg {
	struct record_stats *st;
	struct drain_sink *sink;
	const struct evlist *evlist;
	int ring;		/* the index of the ring being drained */
	int err;
	u64 stop_pos;		/* -EAGAIN: the record the sink could not take yet */
	u64 rewritten[OFF_CPU_RECORD_MAX / 8];	/* --off-cpu: the record rewritten */
	struct buf cuts;	/* the ring's records the file gets another form of
				 * (trimmed, rewritten): each a struct cut then the copy */
};

/* A record the file gets in another form: where it is in the ring, its
 * size there. */
struct cut {
	u64 pos;
	u64 size;
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

/* The file gets rec in the place of the ring's record at pos (size bytes
 * there): noted in a->cuts for drain__write(). 0 or -ENOMEM. */
static int drain__cut(struct scan_arg *a, u64 pos, u64 size, const struct perf_event_header *rec)
{
	struct cut cut = { pos, size };

	if (!a->sink->data)
		return 0;
	buf__add(&a->cuts, &cut, sizeof(cut));
	buf__add(&a->cuts, rec, rec->size);
	return a->cuts.err ? -ENOMEM : 0;
}

/* A KSYMBOL or BPF_EVENT record, made whole in the ring's scratch and
 * trimmed to its true size (util/event.h): every copy of it is taken from
 * there, and the file gets it in its place when it was over-sized. NULL
 * without memory for that. */
static const struct perf_event_header *drain__trim(struct scan_arg *a, const struct mmap *m,
						   u64 pos, const struct perf_event_header *h)
{
	struct perf_event_header *rec = m->scratch;

	mmap__copy(m, pos, rec, h->size);
	if (!event__trim(rec, a->sink->id_sample_type))
		return rec;
	return drain__cut(a, pos, h->size, rec) ? NULL : rec;
}

/* --off-cpu: a sample of its bpf-output event (e: the sample's event),
 * rewritten into a->rewritten (bpf/off-cpu.h), which every copy of it is
 * taken from and the file gets in its place; h for any other record. NULL
 * without memory. */
static const struct perf_event_header *drain__off_cpu(struct scan_arg *a, const struct mmap *m,
						      u64 pos, const struct perf_event_header *h,
						      const struct evsel *e)
{
	const struct evsel *off_cpu = a->sink->off_cpu;
	const struct perf_event_header *rec = h;
	ssize_t len;

	if (!off_cpu || e != off_cpu)
		return h;
	if ((pos & m->mask) + h->size > m->mask + 1) {
		mmap__copy(m, pos, m->scratch, h->size);
		rec = m->scratch;
	}
	len = off_cpu__rewrite(off_cpu->attr.sample_type, off_cpu->file_sample_type, rec,
			       a->rewritten, sizeof(a->rewritten));
	if (len < 0)
		return h;	/* not an off-CPU record: kept as it is */
	rec = (const void *)a->rewritten;
	return drain__cut(a, pos, h->size, rec) ? NULL : rec;
}

/* Copies a record out of the ring where the sink wants it; one that wraps
 * around the end is made whole in the ring's scratch (records reach 64K).
 * rec: h, or the copy the file gets instead (drain__trim(),
 * drain__off_cpu()). time: the record's, e: a sample's event, both read
 * once by the caller. */
static int sink_record(struct scan_arg *a, const struct mmap *m, u64 pos,
		       const struct perf_event_header *h, const struct perf_event_header *rec,
		       u64 time, const struct evsel *e)
{
	struct drain_sink *sink = a->sink;
	int tracking = tracking__wants(h->type);
	int bpf = h->type == PERF_RECORD_BPF_EVENT && sink->bpf;

	if (tracking ? !sink->tracking && !bpf :
	    !sink->pending && !sink->history && !sink->trigger && !sink->when)
		return 0;
	if (rec == h && (pos & m->mask) + h->size > m->mask + 1) {
		mmap__copy(m, pos, m->scratch, h->size);
		rec = m->scratch;
	}
	if (bpf && sink->bpf_lock)
		pthread_mutex_lock(sink->bpf_lock);
	if (bpf)
		bpf_progs__saw(sink->bpf, rec);
	if (bpf && sink->bpf_lock)
		pthread_mutex_unlock(sink->bpf_lock);
	if (tracking && !sink->tracking)
		return 0;
	if (e && e == sink->trigger) {
		sink->triggered = 1;
		return 0;
	}
	/* kept: the dump it asks for says what fired it */
	if (e && e == sink->when) {
		sink->triggered = 1;
		sink->when_time = sink->when_time ? sink->when_time : time;
	}
	if (tracking)
		return tracking__add(sink->tracking, rec);
	if (sink->history)
		return history__add(sink->history, a->ring, rec, time);
	return sink->pending ? pending__add(sink, rec) : 0;
}

/* The event of a sample, for the sinks that tell some apart (--off-cpu,
 * --switch-output-event, --switch-output-when): looked up once a record.
 * NULL for any other record, or when none does. */
static const struct evsel *scan__evsel(const struct scan_arg *a, const struct mmap *m, u64 pos,
				       const struct perf_event_header *h)
{
	const struct drain_sink *sink = a->sink;
	u64 id;

	if (h->type != PERF_RECORD_SAMPLE || (!sink->off_cpu && !sink->trigger && !sink->when) ||
	    h->size < sizeof(*h) + sizeof(id))
		return NULL;
	mmap__copy(m, pos + sizeof(*h), &id, sizeof(id));	/* IDENTIFIER comes first */
	return evlist__id2evsel(a->evlist, id);
}

/* The time of the record at pos, read from the ring: a sample's TIME is
 * near its start, any other record's in its sample_id trailer. 0 when the
 * records carry none. */
static u64 scan__time(const struct scan_arg *a, const struct mmap *m, u64 pos,
		      const struct perf_event_header *h)
{
	u64 t = a->sink->id_sample_type, time = 0;
	size_t off;

	if (!(t & PERF_SAMPLE_TIME))
		return 0;
	off = h->type == PERF_RECORD_SAMPLE ? sample__time_offset(t) :
	      h->size - MIN(h->size, sample_id__time_back(t));
	if (off >= sizeof(*h) && h->size >= off + sizeof(time))
		mmap__copy(m, pos + off, &time, sizeof(time));
	return time;
}

static int scan_record(const struct mmap *m, u64 pos, const struct perf_event_header *h,
		       void *arg)
{
	struct scan_arg *a = arg;
	const struct perf_event_header *rec;
	const struct evsel *e = NULL;
	u64 time = 0;
	int err = 0;

	if (h->type == PERF_RECORD_KSYMBOL || h->type == PERF_RECORD_BPF_EVENT) {
		/* the trailer of one the kernel over-sized is not at its end */
		rec = drain__trim(a, m, pos, h);
		if (rec)
			time = event__time(rec, a->sink->id_sample_type);
	} else {
		time = scan__time(a, m, pos, h);
		e = scan__evsel(a, m, pos, h);
		rec = drain__off_cpu(a, m, pos, h, e);
	}
	err = rec ? sink_record(a, m, pos, h, rec, time, e) : -ENOMEM;
	if (err) {
		a->stop_pos = pos;
		return a->err = err;
	}
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

/* The least time between two namings of every live task from /proc */
#define RENAME_GAP_NS 1000000000ULL
/* The most a tracking record takes (an MMAP2 of a PATH_MAX name, its
 * trailer): a ring with less room than this left may have dropped one. */
#define RING_FULL_MARGIN 8192

/* Whether the forward rings carry only tracking records for a flight
 * recorder of whole CPUs: what they lose, the live tasks' names in
 * /proc can make up for. */
static int drain__names_lost(const struct evlist *evlist, const struct drain_sink *sink)
{
	return sink->tracking && sink->pending && !sink->history && evlist__whole_cpus(evlist);
}

/* The kernel dropped tracking records: the samples the backward rings
 * keep are the newest, and the records lost the newest too, so every
 * task started while the loop could not drain would have no name. Those
 * still alive get it from /proc. An error only costs names. */
static void drain__rename(struct drain_sink *sink)
{
	struct tracking *t = sink->tracking;
	struct buf names = { 0 };
	u64 now = now_ns();

	if (!tracking__rename_due(t, now, RENAME_GAP_NS))
		return;
	if (synthesize__names(&names, t->id_sample_type) >= 0 && !names.err)
		tracking__rename(t, &names, now);
	buf__release(&names);
}

/* --mmap-flush: does any ring hold enough to be written out? */
static int drain__due(struct evlist *evlist, u64 flush, int lo, int hi)
{
	for (int c = lo; flush > 1 && c < hi; c++) {
		struct mmap *m = &evlist->fwd[c];

		if (m->pc && mmap__read_head(m) - m->tail >= flush)
			return 1;
	}
	return flush <= 1;
}

/* A drain thread's records, into the build-id model all threads share */
static void drain__feed_hits(struct drain_sink *sink, struct iovec *iov, int n)
{
	if (!sink->hits)
		return;
	pthread_mutex_lock(sink->hits_lock);
	dso_hits__feed(sink->hits, iov, n);
	pthread_mutex_unlock(sink->hits_lock);
}

/* Writes the ring's records [start, end) to the file straight from the
 * ring pages, but for those cuts lists (over-sized, rewritten): their
 * copies take their place. Each write holds whole records, as the
 * build-id model reads them. 0 or -errno. */
static int drain__write(struct drain_sink *sink, const struct mmap *m, u64 start, u64 end,
			const struct buf *cuts)
{
	for (size_t off = 0;;) {
		const struct cut *c = (const void *)(cuts->p + off);
		const struct perf_event_header *rec = (const void *)(c + 1);
		struct iovec iov[3];
		int n, err;

		/* cuts past end: records the history could not take yet */
		if (off >= cuts->len || c->pos >= end)
			c = NULL;
		n = mmap__span_iov(m, start, c ? c->pos : end, iov);
		if (c)
			iov[n++] = (struct iovec){ (void *)rec, rec->size };
		err = n ? perf_data__write_ring(sink->data, iov, n) : 0;
		if (err)
			return err;
		drain__feed_hits(sink, iov, n);
		if (!c)
			return 0;
		start = c->pos + c->size;
		off += sizeof(*c) + rec->size;
	}
}

s64 drain__forward(struct evlist *evlist, struct drain_sink *sink,
			  struct record_stats *st)
{
	static const struct perf_event_header round = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(round)
	};
	struct scan_arg arg = { .st = st, .sink = sink, .evlist = evlist };
	struct perf_data *d = sink->data;
	/* the same for the whole run, asked once a drain, not twice a ring */
	int names_lost = drain__names_lost(evlist, sink);
	s64 written = 0;
	int err, lo = sink->ring ? sink->ring - 1 : 0, hi = sink->ring ? sink->ring : evlist->nr_mmaps;

	/* once one ring is due, all are written: a ring left behind would
	 * hold records older than the FINISHED_ROUND after this pass, which
	 * readers then find out of order */
	if (!sink->behind && !drain__due(evlist, sink->flush, lo, hi))
		return 0;
	sink->behind = 0;
	for (int k = 0; k < hi - lo; k++) {
		int c = lo + (((sink->first_ring - lo) % (hi - lo)) + (hi - lo) + k) % (hi - lo);
		struct mmap *m = &evlist->fwd[c];
		struct record_stats before;
		u64 head, start;

		if (!m->pc)
			continue;
		head = mmap__read_head(m);
		start = m->tail;
		if (head == start)
			continue;
		if (names_lost && m->mask + 1 - (head - start) < RING_FULL_MARGIN)
			tracking__ring_full(sink->tracking);
		before = *st;
		arg.ring = c;
		arg.cuts.len = 0;
		/* the kernel never publishes a partial record, so a bad size
		 * here means a corrupt ring: stop before it rather than write it */
		if (mmap__for_each(m, start, head, scan_record, &arg)) {
			if (arg.err != -EAGAIN) {
				buf__release(&arg.cuts);
				return arg.err ? arg.err : -EIO;
			}
			/* the history is behind: the rest waits in the ring */
			head = arg.stop_pos;
			sink->behind = 1;
			sink->first_ring = c;
		}
		if (names_lost)
			tracking__lost(sink->tracking, st->lost - before.lost);
		err = d ? drain__write(sink, m, start, head, &arg.cuts) : 0;
		if (err) {
			/* what did not reach the file is not counted in it */
			*st = before;
			buf__release(&arg.cuts);
			return err;
		}
		mmap__write_tail(m, head);
		m->tail = head;
		written += head - start;
		if (sink->behind)
			break;
	}
	buf__release(&arg.cuts);
	if (names_lost)
		drain__rename(sink);
	if (written && d && !sink->no_round) {
		err = perf_data__write(d, &round, sizeof(round));
		if (err)
			return err;
	}
	return written;
}
