/* perf script's work: a perf.data written by this tool, as text, in time order.
 * The file may be hostile: the reader checks every offset and size, and a
 * record that makes no sense ends the run with one line naming it. */
#include "util/script.h"
#include "util/comm-map.h"
#include "util/event.h"
#include "util/reader.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <traceevent/event-parse.h>

/* libtraceevent reads a tracepoint's fields where the format says, and a
 * dynamic field where its u16 offset and length in the record say: the raw
 * data is copied into this much zeroed room so that no field of a hostile
 * record reaches past it (formats with fields beyond 64 KiB are refused). */
#define RAW_ROOM (4 * 65536)

/* perf's own record types (FINISHED_ROUND...) start here; the kernel's below */
#define USER_TYPE_START 64

struct script {
	const struct script_opts *o;
	FILE *out;
	struct perf_reader reader;
	struct comm_map *comms;
	struct trace_seq seq;
	unsigned char *raw;	/* RAW_ROOM bytes, zero beyond what is in use */
	u64 bad_id;		/* of the sample whose id no event has */
	const char *bad;	/* what is wrong with a malformed record */
};

struct rec_ref {
	const struct perf_event_header *h;
	u64 time;
	u64 seq;	/* file order breaks ties: the sort is stable */
};

struct collect {
	struct rec_ref *refs;
	size_t nr, cap;
	u64 bad_off;	/* of a record of a type no perf knows */
	u32 bad_type;
};

static int collect_record(struct perf_reader *r, const struct perf_event_header *h,
			  u64 off, void *arg)
{
	struct collect *c = arg;

	/* the kernel's types up to AUX_OUTPUT_HW_ID (21), and of perf's own
	 * those this perf record writes (FINISHED_ROUND, FINISHED_INIT):
	 * anything else is refused. The stock perf checks the bodies of its
	 * other user types (HEADER_ATTR, ID_INDEX, EVENT_UPDATE...) and
	 * refuses a file with a lie in one; this reader decodes none of them. */
	if (h->type == 0 || (h->type >= PERF_RECORD_MAX && h->type != PERF_RECORD_FINISHED_ROUND &&
			     h->type != PERF_RECORD_FINISHED_INIT)) {
		c->bad_off = off;
		c->bad_type = h->type;
		return -EBADMSG;
	}
	if (h->type >= USER_TYPE_START)	/* FINISHED_ROUND...: nothing to show */
		return 0;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct rec_ref *n = realloc(c->refs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->refs = n;
		c->cap = cap;
	}
	c->refs[c->nr] = (struct rec_ref){ h, reader__record_time(r, h), c->nr };
	c->nr++;
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The body of a non-sample record without its sample_id trailer (trailer
 * bytes), and a check that a string at str_off ends inside it. */
static int body_ok(const struct perf_event_header *h, size_t trailer, size_t fixed,
		   size_t str_off)
{
	size_t len;

	if (h->size < sizeof(*h) + fixed + trailer)
		return 0;
	len = h->size - trailer;
	return !str_off || (len > str_off && memchr((const char *)h + str_off, 0, len - str_off));
}

/* The stock perf's output types: one per PERF_TYPE_*, the rest together. */
static u32 output_type(const struct perf_event_attr *a)
{
	return a->type < PERF_TYPE_MAX ? a->type : PERF_TYPE_MAX;
}

/* The first event of e's output type: as the stock perf, it decides what
 * every event of the type shows. */
static const struct reader_evsel *type_leader(const struct script *s, const struct reader_evsel *e)
{
	for (int i = 0; i < s->reader.nr_evsels; i++)
		if (output_type(&s->reader.evsels[i].attr) == output_type(&e->attr))
			return &s->reader.evsels[i];
	return e;
}

static void print_prefix(struct script *s, const struct reader_evsel *e, const char *comm,
			 u32 tid, u32 cpu, u64 time)
{
	char unknown[16];

	if (!comm) {
		snprintf(unknown, sizeof(unknown), tid ? ":%u" : "swapper", tid);
		comm = unknown;
	}
	fprintf(s->out, "%16s %5u ", comm, tid);
	/* the CPU column only where the samples say which CPU, as perf does */
	if (type_leader(s, e)->attr.sample_type & PERF_SAMPLE_CPU)
		fprintf(s->out, "[%03u] ", cpu);
	fprintf(s->out, "%5llu.%06llu: ",
	       (unsigned long long)(time / 1000000000ULL),
	       (unsigned long long)(time % 1000000000ULL / 1000));
}

/* A tracepoint whose format the file holds and libtraceevent parsed. */
static int decodable(const struct script *s, const struct reader_evsel *e)
{
	return e->attr.type == PERF_TYPE_TRACEPOINT && s->reader.tep &&
	       e->attr.config <= INT_MAX && tep_find_event(s->reader.tep, e->attr.config);
}

/* A tracepoint's fields as its format prints them (valid until the next
 * call). */
static const char *trace_info(struct script *s, const struct sample *smp)
{
	struct tep_record rec = {
		.ts = smp->time, .cpu = smp->cpu, .size = smp->raw_size, .data = s->raw,
	};

	memcpy(s->raw, smp->raw, smp->raw_size);	/* < 64 KiB: in a record */
	trace_seq_reset(&s->seq);
	tep_print_event(s->reader.tep, &s->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s->seq);
	memset(s->raw, 0, smp->raw_size);
	return s->seq.buffer;
}

static void print_sample(struct script *s, const struct sample *smp)
{
	const struct reader_evsel *e = smp->evsel;
	const char *comm = comm_map__get(s->comms, smp->tid);

	print_prefix(s, e, comm, smp->tid, smp->cpu, smp->time);
	if (decodable(s, e) && smp->raw) {
		fprintf(s->out, "%30s: %s\n", e->name, trace_info(s, smp));
		return;
	}
	fprintf(s->out, "%10llu %s: %16llx\n", (unsigned long long)smp->period, e->name,
	       (unsigned long long)smp->ip);
	for (u64 i = 0; i < smp->nr_callchain; i++)
		if (smp->callchain[i] < PERF_CONTEXT_MAX)
			fprintf(s->out, "\t%16llx\n", (unsigned long long)smp->callchain[i]);
}

static void print_mmap(struct script *s, const struct perf_event_header *h,
		       const struct reader_evsel *e, struct sample_id *sid)
{
	const char *b = (const char *)(h + 1);
	u32 pid, tid;
	u64 start, len, pgoff;

	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	print_prefix(s, e, comm_map__get(s->comms, tid), tid, sid->cpu, sid->time);
	if (h->type == PERF_RECORD_MMAP) {
		fprintf(s->out, "PERF_RECORD_MMAP %d/%d: [%#llx(%#llx) @ %#llx]: %c %s\n", (int)pid, (int)tid,
		       (unsigned long long)start, (unsigned long long)len,
		       (unsigned long long)pgoff, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
		       b + 32);
		return;
	}
	u32 prot, flags;

	memcpy(&prot, b + 56, 4);
	memcpy(&flags, b + 60, 4);
	fprintf(s->out, "PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx", (int)pid, (int)tid,
	       (unsigned long long)start, (unsigned long long)len, (unsigned long long)pgoff);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		u8 n = MIN((u8)b[32], BUILD_ID_SIZE);

		fprintf(s->out, " <");
		for (int i = 0; i < n; i++)
			fprintf(s->out, "%02x", (u8)b[36 + i]);
		fprintf(s->out, ">");
	} else {
		u32 maj, min;
		u64 ino, gen;

		memcpy(&maj, b + 32, 4);
		memcpy(&min, b + 36, 4);
		memcpy(&ino, b + 40, 8);
		memcpy(&gen, b + 48, 8);
		fprintf(s->out, " %02x:%02x %llu %llu", maj, min, (unsigned long long)ino,
		       (unsigned long long)gen);
	}
	fprintf(s->out, "]: %c%c%c%c %s\n", prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
	       prot & PROT_EXEC ? 'x' : '-', flags & MAP_SHARED ? 's' : 'p', b + 64);
}

static int process(struct script *s, const struct perf_event_header *h)
{
	struct perf_reader *r = &s->reader;
	const u32 *ids = (const u32 *)(h + 1);
	const struct reader_evsel *e = NULL;
	struct sample_id sid = { 0 };
	struct sample smp;
	size_t trailer = 0;
	int ret;

	/* as the stock perf: every kernel record's sample_id must fit and name
	 * an event, whether or not we print the record */
	if (h->type != PERF_RECORD_SAMPLE) {
		ret = reader__parse_id(r, h, &sid, &e);
		s->bad_id = sid.id;
		s->bad = "shorter than its sample_id trailer";
		if (ret < 0)
			return ret;
		trailer = ret;
		s->bad = "body shorter than its fields";
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		ret = reader__parse_sample(r, h, &smp);
		s->bad_id = smp.id;
		s->bad = smp.bad;
		if (ret)
			return ret;
		if (smp.evsel->attr.type == PERF_TYPE_SOFTWARE &&
		    smp.evsel->attr.config == PERF_COUNT_SW_DUMMY)
			return 0;
		print_sample(s, &smp);
		return 0;
	case PERF_RECORD_COMM:
		if (!body_ok(h, trailer, 8, sizeof(*h) + 8))
			return -EINVAL;
		if (comm_map__set(s->comms, ids[0], ids[1], (const char *)(ids + 2)))
			return -ENOMEM;
		if (s->o->show_task) {
			print_prefix(s, e, (const char *)(ids + 2), ids[1], sid.cpu, sid.time);
			fprintf(s->out, "PERF_RECORD_COMM%s: %s:%d/%d\n",
			       (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
			       (const char *)(ids + 2), (int)ids[0], (int)ids[1]);
		}
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!body_ok(h, trailer, 24, 0))
			return -EINVAL;
		/* a new thread starts with its parent's name; the children of
		 * the idle task (kthreadd, init) with "swapper" */
		if (h->type == PERF_RECORD_FORK && !comm_map__get(s->comms, ids[2]) &&
		    (comm_map__get(s->comms, ids[3]) || !ids[3]) &&
		    comm_map__set(s->comms, ids[0], ids[2],
				  ids[3] ? comm_map__get(s->comms, ids[3]) : "swapper"))
			return -ENOMEM;
		if (s->o->show_task) {
			/* as the stock perf: under the thread of the sample id
			 * (the parent, for a fork the kernel reports) */
			u32 tid = e->id_type & PERF_SAMPLE_TID ? sid.tid : ids[2];

			print_prefix(s, e, comm_map__get(s->comms, tid), tid, sid.cpu, sid.time);
			fprintf(s->out, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
			       h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			       (int)ids[0], (int)ids[2], (int)ids[1], (int)ids[3]);
		}
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		/* the filename follows 32 (MMAP) or 64 (MMAP2) bytes of fields */
		size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 64;

		if (!body_ok(h, trailer, fixed + 1, sizeof(*h) + fixed))
			return -EINVAL;
		if (s->o->show_mmap)
			print_mmap(s, h, e, &sid);
		return 0;
	}
	}
	return 0;
}

/* One line per event whose samples print undecoded, before any output. */
static void warn_undecodable(struct script *s)
{
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (e->attr.type == PERF_TYPE_TRACEPOINT && !decodable(s, e))
			fprintf(s->o->msg, "perf script: %s: no usable format for event %s (id %llu): its fields are not decoded\n",
				s->o->input, e->name, (unsigned long long)e->attr.config);
	}
}

static void report_bad_record(struct script *s, const struct perf_event_header *h, int rc)
{
	unsigned long long off = (const char *)h - s->reader.map;

	if (rc == -ENOENT)
		fprintf(s->o->msg, "perf script: %s: %s record at offset %#llx has id %llu, which no event has\n",
			s->o->input, event__type_name(h->type), off, (unsigned long long)s->bad_id);
	else if (rc == -EINVAL)
		fprintf(s->o->msg, "perf script: %s: malformed %s record at offset %#llx: %s\n",
			s->o->input, event__type_name(h->type), off, s->bad ? s->bad : "bad layout");
	else
		fprintf(s->o->msg, "perf script: %s: %s\n", s->o->input, strerror(-rc));
}

int script__run(const struct script_opts *o)
{
	struct script s = { .o = o, .out = o->out };
	struct collect c = { 0 };
	char err[512];
	int rc;

	s.reader.fd = -1;
	rc = reader__open(&s.reader, o->input, err, sizeof(err));
	if (rc) {
		fprintf(o->msg, "perf script: %s\n", err);
		goto out;
	}
	s.comms = comm_map__new();
	s.raw = calloc(1, RAW_ROOM);
	if (!s.comms || !s.raw) {
		rc = -ENOMEM;
		fprintf(o->msg, "perf script: %s\n", strerror(ENOMEM));
		goto out;
	}
	trace_seq_init(&s.seq);
	rc = reader__for_each(&s.reader, collect_record, &c, err, sizeof(err));
	if (rc == -EBADMSG)
		snprintf(err, sizeof(err), "record at offset %#llx: unsupported type %u (this perf script reads the files of this perf record)",
			 (unsigned long long)c.bad_off, c.bad_type);
	if (rc) {
		fprintf(o->msg, "perf script: %s: %s\n", o->input,
			rc == -EINVAL || rc == -EBADMSG ? err : strerror(-rc));
		goto out_seq;
	}
	warn_undecodable(&s);
	if (c.nr)	/* qsort() must not see the NULL of an empty data section */
		qsort(c.refs, c.nr, sizeof(*c.refs), cmp_ref);
	for (size_t i = 0; i < c.nr; i++) {
		rc = process(&s, c.refs[i].h);
		if (rc) {
			report_bad_record(&s, c.refs[i].h, rc);
			goto out_seq;
		}
	}
out_seq:
	trace_seq_destroy(&s.seq);
out:
	free(c.refs);
	free(s.raw);
	comm_map__delete(s.comms);
	reader__close(&s.reader);
	return rc;
}
