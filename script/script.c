/* perf script's work: a perf.data written by this tool, as text, in time order.
 * The file may be hostile: the reader checks every offset and size, and a
 * record that makes no sense ends the run with one line naming it. */
#include "script/script-internal.h"
#include "script/comm-map.h"
#include "script/header-print.h"
#include "util/event.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

/* Records wait here until they can be printed in time order: the stock
 * perf's rule, so that its output and ours are the same. A record
 * without a time is printed at once; the others are held until a
 * FINISHED_ROUND says that every record up to the previous round's
 * newest time has been read (each ring's records come in time order,
 * one pass over the rings a round), and those are printed; the rest at
 * the end. A file without rounds is held whole. With --show-round-events
 * the stock holds nothing: records are printed in file order. */
struct queued {
	u64 time, seq, off;	/* off: where (see where()) */
	struct qblock *blk;
	const struct perf_event_header *h;	/* a copy in blk */
};

/* Copies of records, filled in turn; a block goes when its last record
 * is printed and new ones go into another. */
struct qblock {
	size_t used, live;
	char data[];
};
#define QBLOCK_SIZE (1U << 20)

struct queue {
	struct script *s;
	struct queued *q, *tmp;	/* tmp: room to merge into, tmp_cap long */
	size_t nr, cap, tmp_cap;
	u64 seq;
	u64 max_time;	/* the newest time read */
	u64 next_flush;	/* what the next FINISHED_ROUND lets go */
	struct qblock *cur;
	int failed;	/* a record was refused and said */
	u64 bad_off;	/* of a record of a type no perf knows */
	u32 bad_type;
	u64 skipped[READER_USER_TYPE_END];	/* records read but not decoded, by type */
	u64 aux_bytes;	/* AUXTRACE's data, skipped */
};

/* Where a record is, for messages: its offset and, of a directory, the
 * file's part number above any offset a file has, so that what is held
 * stays small. */
#define WHERE_PART_SHIFT 48
#define WHERE_OFF_MASK ((1ULL << WHERE_PART_SHIFT) - 1)

static u64 where(const struct perf_reader *r, u64 off)
{
	return (off & WHERE_OFF_MASK) | (u64)r->part << WHERE_PART_SHIFT;
}

/* The file a where is in: -i's, or of a directory "DIR: data.N". */
static const char *where_file(const struct script *s, u64 w, char *buf, size_t size)
{
	if (s->reader.dfd < 0)
		return s->o->input;
	snprintf(buf, size, "%s: %s", s->o->input,
		 reader__part_name(&s->reader, (int)(w >> WHERE_PART_SHIFT)));
	return buf;
}

static inline int before(const struct queued *x, const struct queued *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Where the run of records in order from i ends. */
static size_t run_end(const struct queued *a, size_t i, size_t n)
{
	while (i + 1 < n && !before(&a[i + 1], &a[i]))
		i++;
	return i + 1;
}

static void merge(const struct queued *x, size_t nx, const struct queued *y, size_t ny,
		  struct queued *out)
{
	while (nx && ny) {
		if (before(y, x)) {
			*out++ = *y++;
			ny--;
		} else {
			*out++ = *x++;
			nx--;
		}
	}
	memcpy(out, nx ? x : y, (nx ? nx : ny) * sizeof(*out));
}

/* The held records in time order, file order breaking ties. They are a
 * few runs in order already (each ring's records come in time order;
 * what the last flush left is in order), so runs are merged pairwise:
 * time in the number of records times the log of the number of runs.
 * 0 or -ENOMEM. */
static int queue__sort(struct queue *qu)
{
	size_t n = qu->nr;

	if (n < 2 || run_end(qu->q, 0, n) == n)
		return 0;
	if (qu->tmp_cap < qu->cap) {
		struct queued *t = realloc(qu->tmp, qu->cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		qu->tmp = t;
		qu->tmp_cap = qu->cap;
	}
	for (size_t runs = 0; runs != 1;) {
		struct queued *a = qu->q, *t = qu->tmp;
		size_t cap = qu->cap;

		runs = 0;
		for (size_t i = 0, mid, end; i < n; i = end, runs++) {
			mid = run_end(a, i, n);
			end = mid < n ? run_end(a, mid, n) : n;
			merge(a + i, mid - i, a + mid, end - mid, t + i);
		}
		qu->q = t;
		qu->tmp = a;
		qu->cap = qu->tmp_cap;
		qu->tmp_cap = cap;
	}
	return 0;
}

static void report_bad_record(struct script *s, const struct perf_event_header *h, u64 off,
			      int rc);

static int queue__print(struct queue *qu, const struct perf_event_header *h, u64 off)
{
	int rc = script__process(qu->s, h);

	if (rc) {
		report_bad_record(qu->s, h, off, rc);
		qu->failed = 1;
	}
	return rc;
}

static void queue__release(struct queue *qu, struct qblock *blk)
{
	if (!--blk->live && blk != qu->cur)
		free(blk);
}

/* Prints the held records up to time limit, in time order (file order
 * breaks ties), and lets them go. */
static int queue__flush(struct queue *qu, u64 limit)
{
	size_t n = 0, i;
	int rc = queue__sort(qu);

	if (rc)
		return rc;
	while (n < qu->nr && qu->q[n].time <= limit)
		n++;
	for (i = 0; i < n && !rc; i++)
		rc = queue__print(qu, qu->q[i].h, qu->q[i].off);
	for (i = 0; i < n; i++)
		queue__release(qu, qu->q[i].blk);
	if (n && n < qu->nr)
		memmove(qu->q, qu->q + n, (qu->nr - n) * sizeof(*qu->q));
	qu->nr -= n;
	return rc;
}

/* A copy of h, held until it is printed. */
static int queue__add(struct queue *qu, const struct perf_event_header *h, u64 off, u64 time)
{
	struct qblock *b = qu->cur;

	if (!b || QBLOCK_SIZE - b->used < h->size) {
		if (b && !b->live)
			free(b);
		b = qu->cur = malloc(sizeof(*b) + QBLOCK_SIZE);
		if (!b)
			return -ENOMEM;
		b->used = b->live = 0;
	}
	if (qu->nr == qu->cap) {
		size_t cap = qu->cap ? qu->cap * 2 : 4096;
		struct queued *n = realloc(qu->q, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		qu->q = n;
		qu->cap = cap;
	}
	memcpy(b->data + b->used, h, h->size);
	qu->q[qu->nr++] = (struct queued){ time, qu->seq++, off, b,
					   (const void *)(b->data + b->used) };
	b->used += ALIGN_UP((size_t)h->size, 8);
	b->live++;
	qu->max_time = MAX(qu->max_time, time);
	return 0;
}

static void queue__exit(struct queue *qu)
{
	for (size_t i = 0; i < qu->nr; i++)
		queue__release(qu, qu->q[i].blk);
	free(qu->cur);
	free(qu->q);
	free(qu->tmp);
}

/* What perf 6.1 knows: the kernel's types to AUX_OUTPUT_HW_ID and its own
 * to FINISHED_INIT. It refuses a file with any other (for the kernel's,
 * when it comes to deliver the record), and so do we. */
static int known_type(u32 type)
{
	return (type && type <= PERF_RECORD_AUX_OUTPUT_HW_ID) ||
	       (type >= READER_USER_TYPE_START && type < READER_USER_TYPE_END);
}

/* Records read that nothing here decodes: AUX area tracing, perf stat's. */
static int skipped_type(u32 type)
{
	return type == PERF_RECORD_AUX || type == PERF_RECORD_AUXTRACE_INFO ||
	       type == PERF_RECORD_AUXTRACE || type == PERF_RECORD_AUXTRACE_ERROR ||
	       type == PERF_RECORD_STAT_CONFIG || type == PERF_RECORD_STAT ||
	       type == PERF_RECORD_STAT_ROUND;
}

static int collect_record(struct perf_reader *r, const struct perf_event_header *h,
			  u64 off, void *arg)
{
	struct queue *qu = arg;
	u64 time;

	off = where(r, off);
	if (!known_type(h->type)) {
		qu->bad_off = off;
		qu->bad_type = h->type;
		return -EBADMSG;
	}
	if (skipped_type(h->type)) {
		qu->skipped[h->type]++;
		if (h->type == PERF_RECORD_AUXTRACE)
			qu->aux_bytes += *(const u64 *)(h + 1);
	}
	if (h->type == PERF_RECORD_FINISHED_ROUND && qu->s->o->show_round) {
		fputs("PERF_RECORD_FINISHED_ROUND\n", qu->s->out);
		return 0;
	}
	if (h->type == PERF_RECORD_FINISHED_ROUND) {
		int rc = queue__flush(qu, qu->next_flush);

		qu->next_flush = qu->max_time;
		return rc;
	}
	if (h->type >= READER_USER_TYPE_START)	/* taken in by the reader */
		return 0;
	time = reader__record_time(r, h);
	if (!time || time == ~0ULL || qu->s->o->show_round)
		return queue__print(qu, h, off);
	return queue__add(qu, h, off, time);
}

/* One line, at the end, counting what was read and not decoded. */
static void queue__say_skipped(const struct queue *qu, const struct script *s)
{
	char line[512];
	size_t len = 0;

	for (u32 t = 0; t < READER_USER_TYPE_END; t++) {
		if (!qu->skipped[t] || len >= sizeof(line))
			continue;
		len += snprintf(line + len, sizeof(line) - len, "%s%llu %s", len ? ", " : "",
				(unsigned long long)qu->skipped[t], event__type_name(t));
		if (t == PERF_RECORD_AUXTRACE && len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, " (%llu bytes of trace)",
					(unsigned long long)qu->aux_bytes);
	}
	if (len)
		fprintf(s->o->msg, "%s: %s: records not decoded, skipped: %s\n", s->who,
			s->o->input, line);
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

static void report_bad_record(struct script *s, const struct perf_event_header *h, u64 at,
			      int rc)
{
	unsigned long long off = at & WHERE_OFF_MASK;
	char buf[PATH_MAX + 64];
	const char *file = where_file(s, at, buf, sizeof(buf));

	if (rc == -ENOENT)
		fprintf(s->o->msg, "%s: %s: %s record at offset %#llx has id %llu, which no event has\n",
			s->who, file, event__type_name(h->type), off, (unsigned long long)s->bad_id);
	else if (rc == -EINVAL)
		fprintf(s->o->msg, "%s: %s: malformed %s record at offset %#llx: %s\n",
			s->who, file, event__type_name(h->type), off, s->bad ? s->bad : "bad layout");
	else
		fprintf(s->o->msg, "%s: %s: %s\n", s->who, file, strerror(-rc));
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
		fprintf(o->msg, "%s: %s\n", s->who, err);
		return rc;
	}
	/* a conversion resolves every address and prints no field */
	rc = s->conv ? 0 : script__setup_fields(s);
	if (rc)
		return rc;
	s->symbols |= !!s->conv;
	s->comms = comm_map__new();
	s->raw = calloc(1, RAW_ROOM);
	if ((s->symbols &&
	     (!(s->dsos = dsos__new(o->buildid_dir)) || script__machine_init(s))) ||
	    !s->comms || !s->raw) {
		fprintf(o->msg, "%s: %s\n", s->who, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The file's records in time order (file order breaks ties), each
 * printed or taken in; the first bad one ends the run. 0 or -errno, said. */
static int script__process_all(struct script *s, struct queue *qu)
{
	const struct script_opts *o = s->o;
	char err[512];
	int rc;

	if (!s->conv)	/* no trace field is converted */
		warn_undecodable(s);
	rc = reader__for_each(&s->reader, collect_record, qu, err, sizeof(err));
	if (!rc)
		rc = queue__flush(qu, ~0ULL);
	queue__say_skipped(qu, s);
	if (rc == -EBADMSG)
		snprintf(err, sizeof(err), "%s%srecord at offset %#llx: unsupported type %u (perf "
			 "6.1 knows none such and refuses it too)", s->reader.dfd < 0 ? "" :
			 reader__part_name(&s->reader, (int)(qu->bad_off >> WHERE_PART_SHIFT)),
			 s->reader.dfd < 0 ? "" : ": ", qu->bad_off & WHERE_OFF_MASK, qu->bad_type);
	if (rc && !qu->failed)
		fprintf(o->msg, "%s: %s: %s\n", s->who, o->input,
			rc == -EINVAL || rc == -EBADMSG ? err : strerror(-rc));
	return rc;
}

void script__exit(struct script *s)
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

/* No -i: standard input when it is a pipe (perf record -o - | perf
 * script), as the stock perf reads, else perf.data. */
const char *script__default_input(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
}

int script__read(struct script *s)
{
	struct queue qu = { .s = s };
	int rc;

	trace_seq_init(&s->seq);
	rc = script__setup(s);
	if (!rc && (s->conv || !header_print__script(&s->reader, s->o)))
		rc = script__process_all(s, &qu);
	queue__exit(&qu);
	return rc;
}

int script__run(const struct script_opts *opts)
{
	struct script_opts o = *opts;
	struct script s = { .o = &o, .out = o.out, .who = "perf script" };
	int rc;

	if (!o.input)
		o.input = script__default_input();
	rc = script__read(&s);
	script__exit(&s);
	return rc;
}
