/* perf script's work: a perf.data written by this tool, as text, in time order.
 * The file may be hostile: the reader checks every offset and size, and a
 * record that makes no sense ends the run with one line naming it. */
#include "script/script-internal.h"
#include "script/comm-map.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

/* perf's own record types (FINISHED_ROUND...) start here; the kernel's below */
#define USER_TYPE_START 64

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

/* One line per event whose samples print undecoded, before any output. */
static void warn_undecodable(struct script *s)
{
	const struct tp_formats *f = &s->reader.formats;

	if (f->left_out)
		fprintf(s->o->msg, "perf script: %s: %u of %u tracepoint formats left out: unsafe for libtraceevent\n",
			s->o->input, f->left_out, f->nr);
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (e->attr.type == PERF_TYPE_TRACEPOINT && !script__decodable(s, e))
			fprintf(s->o->msg, "perf script: %s: no usable format for event %s (id %llu): its fields are not decoded\n",
				s->o->input, e->name, (unsigned long long)e->attr.config);
	}
}

static void report_bad_record(struct script *s, const struct perf_event_header *h, int rc)
{
	unsigned long long off = reader__offset(&s->reader, h);

	if (rc == -ENOENT)
		fprintf(s->o->msg, "perf script: %s: %s record at offset %#llx has id %llu, which no event has\n",
			s->o->input, event__type_name(h->type), off, (unsigned long long)s->bad_id);
	else if (rc == -EINVAL)
		fprintf(s->o->msg, "perf script: %s: malformed %s record at offset %#llx: %s\n",
			s->o->input, event__type_name(h->type), off, s->bad ? s->bad : "bad layout");
	else
		fprintf(s->o->msg, "perf script: %s: %s\n", s->o->input, strerror(-rc));
}

/* The maps -F sym,dso look in, for the kernel the file's build id says. */
static int script__machine_init(struct script *s)
{
	u64 size = 0;
	const void *body = reader__feature(&s->reader, HEADER_BUILD_ID, &size);
	u8 bid[BUILD_ID_SIZE];
	int len = body ? build_id_feature__kernel(body, size, bid) : 0;
	int err = machine__init(&s->machine, s->dsos, bid, len);

	dsos__set_demangle(s->dsos, !s->o->no_demangle);

	s->machine.bid_feature = body;
	s->machine.bid_feature_size = size;
	return err;
}

/* Everything a run needs before the records: the file, -F's fields, the
 * task names and, for -F sym or dso, the maps. 0 or -errno, said. */
static int script__setup(struct script *s)
{
	const struct script_opts *o = s->o;
	char err[512];
	int rc = reader__open(&s->reader, o->input, err, sizeof(err));

	if (rc) {
		fprintf(o->msg, "perf script: %s\n", err);
		return rc;
	}
	rc = script__setup_fields(s);
	if (rc)
		return rc;
	s->comms = comm_map__new();
	s->raw = calloc(1, RAW_ROOM);
	if ((s->symbols &&
	     (!(s->dsos = dsos__new(o->buildid_dir)) || script__machine_init(s))) ||
	    !s->comms || !s->raw) {
		fprintf(o->msg, "perf script: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The file's records in time order (file order breaks ties), each
 * printed or taken in; the first bad one ends the run. 0 or -errno, said. */
static int script__process_all(struct script *s, struct collect *c)
{
	const struct script_opts *o = s->o;
	char err[512];
	int rc = reader__for_each(&s->reader, collect_record, c, err, sizeof(err));

	if (rc == -EBADMSG)
		snprintf(err, sizeof(err), "record at offset %#llx: unsupported type %u (this perf script reads the files of this perf record)",
			 (unsigned long long)c->bad_off, c->bad_type);
	if (rc) {
		fprintf(o->msg, "perf script: %s: %s\n", o->input,
			rc == -EINVAL || rc == -EBADMSG ? err : strerror(-rc));
		return rc;
	}
	warn_undecodable(s);
	if (c->nr)	/* qsort() must not see the NULL of an empty data section */
		qsort(c->refs, c->nr, sizeof(*c->refs), cmp_ref);
	for (size_t i = 0; i < c->nr; i++) {
		rc = script__process(s, c->refs[i].h);
		if (rc) {
			report_bad_record(s, c->refs[i].h, rc);
			return rc;
		}
	}
	return 0;
}

/* Frees what a run took, set up or not. */
static void script__exit(struct script *s)
{
	trace_seq_destroy(&s->seq);
	free(s->raw);
	comm_map__delete(s->comms);
	machine__exit(&s->machine);
	script__exit_filters(s);
	dsos__delete(s->dsos);
	id_hash__exit(&s->cgroups);
	for (size_t i = 0; i < s->read_prev.cap; i++)
		free(s->read_prev.owners[i]);
	id_hash__exit(&s->read_prev);
	reader__close(&s->reader);
}

int script__run(const struct script_opts *o)
{
	struct script s = { .o = o, .out = o->out };
	struct collect c = { 0 };
	int rc;

	trace_seq_init(&s.seq);
	rc = script__setup(&s);
	if (!rc)
		rc = script__process_all(&s, &c);
	free(c.refs);
	script__exit(&s);
	return rc;
}
