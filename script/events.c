/* perf script's handling of each record in time order: samples printed,
 * the kernel's task, map and cgroup records taken in (and shown with
 * --show-task-events and --show-mmap-events). */
#include "script/script-internal.h"
#include "script/comm-map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* An MMAP or MMAP2 (body checked) into the maps -F sym,dso look in. */
static int script__mmap(struct script *s, const struct perf_event_header *h, size_t fixed)
{
	const char *b = (const char *)(h + 1);
	u64 start, len, pgoff;
	u32 pid;
	u8 bid_len = 0;

	memcpy(&pid, b, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		bid_len = MIN((u8)b[32], BUILD_ID_SIZE);
	return machine__mmap(&s->machine, pid, start, len, pgoff, b + fixed,
			     (const u8 *)b + 36, bid_len);
}

static int script__sample(struct script *s, const struct perf_event_header *h)
{
	struct sample smp;
	int ret = reader__parse_sample(&s->reader, h, &smp);

	s->bad_id = smp.id;
	s->bad = smp.bad;
	if (ret)
		return ret;
	if (smp.evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    smp.evsel->attr.config == PERF_COUNT_SW_DUMMY)
		return 0;
	if (smp.evsel->attr.sample_type & PERF_SAMPLE_READ)
		return script__print_read_sample(s, &smp);
	script__print_sample(s, &smp);
	return 0;
}

/* A kernel record other than a sample, its sample_id trailer parsed. */
struct kernel_record {
	const struct perf_event_header *h;
	const u32 *ids;		/* the body, as u32s */
	const struct reader_evsel *e;	/* the event the trailer names */
	struct sample_id sid;
	size_t trailer;		/* the trailer's bytes */
};

static int script__comm(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 8, sizeof(*h) + 8))
		return -EINVAL;
	if (comm_map__set(s->comms, ids[0], ids[1], (const char *)(ids + 2)))
		return -ENOMEM;
	if (s->o->show_task) {
		script__print_prefix(s, k->e, (const char *)(ids + 2), ids[1], k->sid.cpu, k->sid.time);
		fprintf(s->out, "PERF_RECORD_COMM%s: %s:%d/%d\n",
		       (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
		       (const char *)(ids + 2), (int)ids[0], (int)ids[1]);
	}
	return 0;
}

/* FORK and EXIT */
static int script__task(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 24, 0))
		return -EINVAL;
	/* a new thread starts with its parent's name; the children of
	 * the idle task (kthreadd, init) with "swapper" */
	if (h->type == PERF_RECORD_FORK && s->dsos && machine__fork(&s->machine, ids[0], ids[1]))
		return -ENOMEM;
	if (h->type == PERF_RECORD_FORK && !comm_map__get(s->comms, ids[2]) &&
	    (comm_map__get(s->comms, ids[3]) || !ids[3]) &&
	    comm_map__set(s->comms, ids[0], ids[2],
			  ids[3] ? comm_map__get(s->comms, ids[3]) : "swapper"))
		return -ENOMEM;
	if (s->o->show_task) {
		/* as the stock perf: under the thread of the sample id
		 * (the parent, for a fork the kernel reports) */
		u32 tid = k->e->id_type & PERF_SAMPLE_TID ? k->sid.tid : ids[2];

		script__print_prefix(s, k->e, comm_map__get(s->comms, tid), tid, k->sid.cpu, k->sid.time);
		fprintf(s->out, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
		       h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
		       (int)ids[0], (int)ids[2], (int)ids[1], (int)ids[3]);
	}
	return 0;
}

/* u64 id, then the path: the name -F cgroup prints */
static int script__cgroup(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;

	if (!body_ok(h, k->trailer, 8 + 1, sizeof(*h) + 8))
		return -EINVAL;
	if (id_hash__add(&s->cgroups, *(const u64 *)(h + 1), (void *)(k->ids + 2)))
		return -ENOMEM;
	return 0;
}

/* MMAP and MMAP2 */
static int script__map(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	/* the filename follows 32 (MMAP) or 64 (MMAP2) bytes of fields */
	size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 64;

	if (!body_ok(h, k->trailer, fixed + 1, sizeof(*h) + fixed))
		return -EINVAL;
	if (s->o->show_mmap)
		script__print_mmap(s, h, k->e, &k->sid);
	return s->dsos ? script__mmap(s, h, fixed) : 0;
}

/* What is done with each kernel record type; the others are only checked. */
static int (*const kernel_records[])(struct script *s, const struct kernel_record *k) = {
	[PERF_RECORD_COMM] = script__comm,
	[PERF_RECORD_FORK] = script__task,
	[PERF_RECORD_EXIT] = script__task,
	[PERF_RECORD_CGROUP] = script__cgroup,
	[PERF_RECORD_MMAP] = script__map,
	[PERF_RECORD_MMAP2] = script__map,
};

int script__process(struct script *s, const struct perf_event_header *h)
{
	struct kernel_record k = { .h = h, .ids = (const u32 *)(h + 1) };
	int ret;

	if (h->type == PERF_RECORD_SAMPLE)
		return script__sample(s, h);
	/* as the stock perf: every kernel record's sample_id must fit and name
	 * an event, whether or not we print the record */
	ret = reader__parse_id(&s->reader, h, &k.sid, &k.e);
	s->bad_id = k.sid.id;
	s->bad = "shorter than its sample_id trailer";
	if (ret < 0)
		return ret;
	k.trailer = ret;
	s->bad = "body shorter than its fields";
	if (h->type < ARRAY_SIZE(kernel_records) && kernel_records[h->type])
		return kernel_records[h->type](s, &k);
	return 0;
}
