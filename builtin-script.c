/* perf script: a perf.data written by this tool, as text, in time order. */
#include "builtin.h"
#include "util/comm-map.h"
#include "util/event.h"
#include "util/parse-options.h"
#include "util/reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <traceevent/event-parse.h>

static const char *const script_usage[] = {
	"perf script [<options>]",
	NULL
};

struct script {
	const char *input;
	int show_task, show_mmap;
	struct perf_reader reader;
	struct comm_map *comms;
	struct trace_seq seq;
};

struct rec_ref {
	const struct perf_event_header *h;
	u64 time;
	u64 seq;	/* file order breaks ties: the sort is stable */
};

struct collect {
	struct rec_ref *refs;
	size_t nr, cap;
};

static int collect_record(struct perf_reader *r, const struct perf_event_header *h,
			  u64 off, void *arg)
{
	struct collect *c = arg;

	(void)off;
	if (h->type == PERF_RECORD_FINISHED_ROUND || h->type == PERF_RECORD_FINISHED_INIT)
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

/* The body of a non-sample record without its sample_id trailer, and a
 * check that a string at str_off ends inside it. */
static int body_ok(const struct perf_reader *r, const struct perf_event_header *h,
		   size_t fixed, size_t str_off)
{
	size_t trailer = 0, len;

	for (u64 t = r->id_sample_type; t; t &= t - 1)
		trailer += 8;
	if (h->size < sizeof(*h) + fixed + trailer)
		return 0;
	len = h->size - trailer;
	return !str_off || (len > str_off && memchr((const char *)h + str_off, 0, len - str_off));
}

static void print_prefix(const char *comm, u32 tid, u32 cpu, u64 time)
{
	char unknown[16];

	if (!comm) {
		snprintf(unknown, sizeof(unknown), tid ? ":%u" : "swapper", tid);
		comm = unknown;
	}
	printf("%16s %5u [%03u] %5llu.%06llu: ", comm, tid, cpu,
	       (unsigned long long)(time / 1000000000ULL),
	       (unsigned long long)(time % 1000000000ULL / 1000));
}

static void print_sample(struct script *s, const struct sample *smp)
{
	const struct reader_evsel *e = smp->evsel;
	const char *comm = comm_map__get(s->comms, smp->tid);

	print_prefix(comm, smp->tid, smp->cpu, smp->time);
	if (e->attr.type == PERF_TYPE_TRACEPOINT && s->reader.tep && smp->raw) {
		struct tep_record rec = {
			.ts = smp->time, .cpu = smp->cpu, .size = smp->raw_size,
			.data = (void *)smp->raw,
		};

		trace_seq_reset(&s->seq);
		tep_print_event(s->reader.tep, &s->seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s->seq);
		printf("%30s: %s\n", e->name, s->seq.buffer);
		return;
	}
	printf("%10llu %s: %16llx\n", (unsigned long long)smp->period, e->name,
	       (unsigned long long)smp->ip);
	for (u64 i = 0; i < smp->nr_callchain; i++)
		if (smp->callchain[i] < PERF_CONTEXT_MAX)
			printf("\t%16llx\n", (unsigned long long)smp->callchain[i]);
}

static void print_mmap(struct script *s, const struct perf_event_header *h, struct sample_id *sid)
{
	const char *b = (const char *)(h + 1);
	u32 pid, tid;
	u64 start, len, pgoff;

	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	print_prefix(comm_map__get(s->comms, tid), tid, sid->cpu, sid->time);
	if (h->type == PERF_RECORD_MMAP) {
		printf("PERF_RECORD_MMAP %d/%d: [%#llx(%#llx) @ %#llx]: %c %s\n", (int)pid, (int)tid,
		       (unsigned long long)start, (unsigned long long)len,
		       (unsigned long long)pgoff, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
		       b + 32);
		return;
	}
	u32 prot, flags;

	memcpy(&prot, b + 56, 4);
	memcpy(&flags, b + 60, 4);
	printf("PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx", (int)pid, (int)tid,
	       (unsigned long long)start, (unsigned long long)len, (unsigned long long)pgoff);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		u8 n = MIN((u8)b[32], BUILD_ID_SIZE);

		printf(" <");
		for (int i = 0; i < n; i++)
			printf("%02x", (u8)b[36 + i]);
		printf(">");
	} else {
		u32 maj, min;
		u64 ino, gen;

		memcpy(&maj, b + 32, 4);
		memcpy(&min, b + 36, 4);
		memcpy(&ino, b + 40, 8);
		memcpy(&gen, b + 48, 8);
		printf(" %02x:%02x %llu %llu", maj, min, (unsigned long long)ino,
		       (unsigned long long)gen);
	}
	printf("]: %c%c%c%c %s\n", prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
	       prot & PROT_EXEC ? 'x' : '-', flags & MAP_SHARED ? 's' : 'p', b + 64);
}

static int process(struct script *s, const struct perf_event_header *h)
{
	struct perf_reader *r = &s->reader;
	const u32 *ids = (const u32 *)(h + 1);
	struct sample_id sid = { 0 };
	struct sample smp;

	if (h->type != PERF_RECORD_SAMPLE && r->id_sample_type)
		event__parse_id(h, r->id_sample_type, &sid);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (reader__parse_sample(r, h, &smp))
			return -EINVAL;
		if (smp.evsel->attr.type == PERF_TYPE_SOFTWARE &&
		    smp.evsel->attr.config == PERF_COUNT_SW_DUMMY)
			return 0;
		print_sample(s, &smp);
		return 0;
	case PERF_RECORD_COMM:
		if (!body_ok(r, h, 8, sizeof(*h) + 8))
			return -EINVAL;
		if (comm_map__set(s->comms, ids[0], ids[1], (const char *)(ids + 2)))
			return -ENOMEM;
		if (s->show_task) {
			print_prefix((const char *)(ids + 2), ids[1], sid.cpu, sid.time);
			printf("PERF_RECORD_COMM%s: %s:%d/%d\n",
			       (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
			       (const char *)(ids + 2), (int)ids[0], (int)ids[1]);
		}
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!body_ok(r, h, 24, 0))
			return -EINVAL;
		/* a new thread starts with its parent's name */
		if (h->type == PERF_RECORD_FORK && !comm_map__get(s->comms, ids[2]) &&
		    comm_map__get(s->comms, ids[3]) &&
		    comm_map__set(s->comms, ids[0], ids[2], comm_map__get(s->comms, ids[3])))
			return -ENOMEM;
		if (s->show_task) {
			print_prefix(comm_map__get(s->comms, ids[2]), ids[2], sid.cpu, sid.time);
			printf("PERF_RECORD_%s(%d:%d):(%d:%d)\n",
			       h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
			       (int)ids[0], (int)ids[2], (int)ids[1], (int)ids[3]);
		}
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		/* the filename follows 32 (MMAP) or 64 (MMAP2) bytes of fields */
		size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 64;

		if (!body_ok(r, h, fixed + 1, sizeof(*h) + fixed))
			return -EINVAL;
		if (s->show_mmap)
			print_mmap(s, h, &sid);
		return 0;
	}
	}
	return 0;
}

int cmd_script(int argc, const char **argv)
{
	struct script s = { .input = "perf.data" };
	const struct option options[] = {
		OPT_STR('i', "input", &s.input, "file", "input file name"),
		OPT_BOOL(0, "show-task-events", &s.show_task, "show the fork/comm/exit events"),
		OPT_BOOL(0, "show-mmap-events", &s.show_mmap, "show the mmap events"),
		OPT_TERMINATOR
	};
	struct collect c = { 0 };
	char err[512];
	int ret = 1, rc;

	argc = parse_options(argc, argv, options, script_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (argc > 0) {
		pr_err("perf script: unexpected argument '%s'\n", argv[0]);
		return 129;
	}
	s.reader.fd = -1;
	if (reader__open(&s.reader, s.input, err, sizeof(err))) {
		pr_err("perf script: %s\n", err);
		goto out;
	}
	s.comms = comm_map__new();
	if (!s.comms)
		goto out;
	trace_seq_init(&s.seq);
	rc = reader__for_each(&s.reader, collect_record, &c, err, sizeof(err));
	if (rc) {
		pr_err("perf script: %s: %s\n", s.input, rc == -EINVAL ? err : strerror(-rc));
		goto out_seq;
	}
	qsort(c.refs, c.nr, sizeof(*c.refs), cmp_ref);
	for (size_t i = 0; i < c.nr; i++) {
		rc = process(&s, c.refs[i].h);
		if (rc) {
			pr_err("perf script: %s: malformed %s record at offset %#llx\n", s.input,
			       event__type_name(c.refs[i].h->type),
			       (unsigned long long)((const char *)c.refs[i].h - s.reader.map));
			goto out_seq;
		}
	}
	ret = 0;
out_seq:
	trace_seq_destroy(&s.seq);
out:
	free(c.refs);
	comm_map__delete(s.comms);
	reader__close(&s.reader);
	return ret;
}
