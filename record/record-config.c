/* perf record's options -> every event's perf_event_attr, and the
 * sample_id layout that follows. */
#include "record/record-config.h"
#include "record/record-options.h"
#include "util/cpumap.h"
#include "util/evlist.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* Normal mode sets what the stock perf sets for the same command line (its
 * attr tests, tests/attr/ in linux-perf, are the spec): the tracking bits
 * ride on the first event when recording tasks, a separate dummy carries
 * them when recording CPUs, and ID or IDENTIFIER is added only when there
 * is more than one event. Overwrite mode keeps one layout whatever the
 * options: IDENTIFIER, IP, TID, TIME first and CPU in every sample_id, as
 * dumps find any record's event, time and CPU without decoding it. */

/* the sample_id fields, and IP: what the leading fields of a sample are */
#define ID_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)
#define FLIGHT_ID_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

u64 record__id_sample_type(const struct evlist *evlist)
{
	/* the tracking records' trailers; every sample starts with the same
	 * IDENTIFIER, IP, TID and TIME fields whichever event it is from */
	for (int i = 0; i < evlist->nr_entries; i++)
		if (evlist->entries[i]->tracking)
			return evlist->entries[i]->attr.sample_type & ID_FIELDS;
	return 0;	/* not configured yet */
}

static enum callchain_mode callchain_mode(const struct record_opts *opts)
{
	if (opts->call_graph.mode)
		return opts->call_graph.mode;
	return opts->callgraph ? CALLCHAIN_FP : CALLCHAIN_NONE;
}

/* An event's callchain: its /call-graph=/ or /max-stack=/ terms win over
 * -g and --call-graph, as in perf. */
static struct callchain_param evsel_callchain(const struct evsel *e,
					      const struct record_opts *opts)
{
	if (e->has_callchain)
		return e->callchain;
	return (struct callchain_param){ .mode = callchain_mode(opts),
					 .dump_size = opts->call_graph.dump_size };
}

static void config_tracking(struct evsel *e, const struct record_opts *opts)
{
	struct perf_event_attr *a = &e->attr;

	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->ksymbol = !opts->no_bpf_event;
	a->bpf_event = !opts->no_bpf_event;
	/* not by default, as the stock: while any event asks for build ids,
	 * the kernel (6.18 here) marks other sessions' MMAP2 records as
	 * holding one too, and their perf reads device numbers as a build id
	 * and aborts (tests/shell/record_coexist.sh) */
	a->build_id = opts->buildid_mmap && !opts->no_buildid;
	a->cgroup = 1;
	a->context_switch = opts->switch_events;
	a->namespaces = opts->namespaces;
	/* the stock records data mmaps where sample addresses are asked for */
	a->mmap_data = opts->sample_address || evsel_callchain(e, opts).mode == CALLCHAIN_DWARF;
}

/* What the options that add one field each ask for, on every event as
 * perf does: the tracking dummy too, though it never samples, except for
 * registers. */
static void config_extras(struct perf_event_attr *a, const struct record_opts *opts,
			  int dummy_event)
{
	u64 t = 0;

	if (opts->sample_weight)
#if defined(__x86_64__) || defined(__i386__)
		t |= PERF_SAMPLE_WEIGHT_STRUCT;	/* as perf on x86: latencies in two halves */
#else
		t |= PERF_SAMPLE_WEIGHT;
#endif
	if (opts->sample_phys_addr)
		t |= PERF_SAMPLE_PHYS_ADDR;
	if (opts->sample_data_page_size)
		t |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (opts->sample_code_page_size)
		t |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (opts->sample_intr_regs && !dummy_event)
		t |= PERF_SAMPLE_REGS_INTR;
	if (opts->sample_user_regs && !dummy_event)
		t |= PERF_SAMPLE_REGS_USER;
	if (opts->sample_identifier)
		t |= PERF_SAMPLE_IDENTIFIER;
	a->sample_type |= t;
	if (!dummy_event) {
		a->sample_regs_intr |= opts->sample_intr_regs;
		a->sample_regs_user |= opts->sample_user_regs;
	}
	if (opts->inherit_stat || opts->running_time)
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (opts->inherit_stat) {
		/* READ records at a child's exit say whose counts they are */
		a->read_format |= PERF_FORMAT_ID;
		a->inherit_stat = 1;
	}
}

/* What a callchain mode adds to sample_type. */
static u64 callchain_bits(enum callchain_mode cc)
{
	switch (cc) {
	case CALLCHAIN_DWARF:
		/* the stock perf asks dwarf callchains for data addresses too */
		return PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_REGS_USER |
		       PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN;
	case CALLCHAIN_FP:
		return PERF_SAMPLE_CALLCHAIN;
	case CALLCHAIN_NONE:
		break;
	}
	return 0;
}

/* A sampling event's sample_type, without ID/IDENTIFIER (decided once every
 * event's is known). */
static u64 sample_type(const struct evsel *e, const struct record_opts *opts)
{
	const struct perf_event_attr *a = &e->attr;
	enum callchain_mode cc = evsel_callchain(e, opts).mode;
	int tracepoint = a->type == PERF_TYPE_TRACEPOINT;
	/* a bpf-output event's samples are what a program wrote, as in perf */
	int bpf_output = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT;
	u64 t = PERF_SAMPLE_IP | PERF_SAMPLE_TID;

	/* per-thread rings hold one task's samples in order: the stock perf
	 * leaves their time out unless -T asks for it */
	if (!opts->target.per_thread || opts->sample_time)
		t |= PERF_SAMPLE_TIME;
	if (opts->all_cgroups)
		t |= PERF_SAMPLE_CGROUP;

	/* a period fixed by -c (or a term) is in the attr, not each sample */
	if (opts->period || !(e->user_period || opts->count))
		t |= PERF_SAMPLE_PERIOD;
	if (opts->target.system_wide || opts->target.cpu_list || opts->sample_cpu ||
	    opts->raw_samples || tracepoint)
		t |= PERF_SAMPLE_CPU;
	if (opts->raw_samples || tracepoint || bpf_output)
		t |= PERF_SAMPLE_RAW;
	if (opts->sample_address)
		t |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	return t | callchain_bits(cc);
}

static void config_callchain(struct evsel *e, const struct record_opts *opts)
{
	struct perf_event_attr *a = &e->attr;
	struct callchain_param cc = evsel_callchain(e, opts);

	/* as perf: each drops the other side's frames (both: no frames) */
	if (cc.mode != CALLCHAIN_NONE) {
		a->sample_max_stack = e->max_stack;
		a->exclude_callchain_kernel = opts->user_callchains;
		a->exclude_callchain_user = opts->kernel_callchains;
	}
	if (cc.mode != CALLCHAIN_DWARF)
		return;
	a->sample_regs_user |= callchain__user_regs();
	a->sample_stack_user = cc.dump_size;
	/* the user part is unwound from the stack dump, not walked in the kernel */
	a->exclude_callchain_user = 1;
}

static void config_period(struct evsel *e, const struct record_opts *opts)
{
	struct perf_event_attr *a = &e->attr;

	if (!e->user_period && opts->count) {
		a->freq = 0;
		a->sample_period = opts->count;
	} else if (!e->user_period && opts->freq) {
		a->freq = 1;
		a->sample_freq = opts->freq;
	}
	if (opts->no_samples)
		a->sample_period = 0;	/* counting only: -n */
}

/* Wakeups: the kernel's default (half a ring) unless asked otherwise. */
static void config_wakeup(struct evsel *e, const struct record_opts *opts)
{
	struct perf_event_attr *a = &e->attr;

	if (e->wake_each || opts->no_buffering) {
		a->watermark = 0;
		a->wakeup_events = 1;
	} else if (opts->wakeup_bytes) {
		a->watermark = 1;
		a->wakeup_watermark = opts->wakeup_bytes;
	}
	/* nobody waits on a backward ring: spare the traced CPU the wakeups */
	if (a->write_backward) {
		a->watermark = 1;
		a->wakeup_events = 0;
		a->wakeup_watermark = UINT32_MAX;
	}
}

/* More than one event: samples must say whose they are, by ID when every
 * sample has the same layout, by IDENTIFIER (first and last) when not. */
static void config_ids(struct evlist *evlist)
{
	u64 first = evlist->entries[0]->attr.sample_type, add = PERF_SAMPLE_ID;

	if (first & PERF_SAMPLE_IDENTIFIER)
		add = PERF_SAMPLE_IDENTIFIER;	/* --sample-identifier */
	if (evlist->nr_entries < 2)
		return;
	/* a --switch-output-event is found by the drain at the sample's start */
	for (int i = 0; i < evlist->nr_entries; i++)
		if (evlist->entries[i]->attr.sample_type != first || evlist->entries[i]->wake_each)
			add = PERF_SAMPLE_IDENTIFIER;
	for (int i = 0; i < evlist->nr_entries; i++) {
		evlist->entries[i]->attr.sample_type |= add;
		evlist->entries[i]->attr.read_format |= PERF_FORMAT_ID;
	}
}

/* The event's own terms and the options that reach every event, dummy
 * included, as in perf. */
static void config_selection(struct evsel *e, const struct record_opts *opts)
{
	struct perf_event_attr *a = &e->attr;

	if (e->inherit >= 0)
		a->inherit = e->inherit;
	if (opts->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	}
	if (opts->all_kernel) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
}

/* Groups: the leader enables its members. With :S only the leader
 * samples, and each of its samples reads the whole group (the members
 * take its layout, so a reader finds their ids in it). */
static void config_groups(struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i], *l = e->leader;
		struct perf_event_attr *a = &e->attr;

		if (e == l && e->sample_read) {
			a->sample_type |= PERF_SAMPLE_READ;
			a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_LOST;
			if (e->nr_members > 1) {
				a->read_format |= PERF_FORMAT_GROUP;
				/* the kernel cannot sum a group over inherited tasks */
				if (e->inherit < 0)
					a->inherit = 0;
			}
		}
		if (e == l)
			continue;
		a->disabled = 0;
		a->enable_on_exec = 0;
		if (!l->sample_read)
			continue;
		a->sample_type = l->attr.sample_type;
		a->read_format = l->attr.read_format;
		a->freq = 0;
		a->sample_period = 0;
		if (e->inherit < 0)
			a->inherit = 0;
	}
}

/* PERF_SAMPLE_READ says whose counts by id, even for a lone event. */
static void config_read_ids(struct evlist *evlist)
{
	const u64 ids = PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER;

	for (int i = 0; i < evlist->nr_entries; i++) {
		struct perf_event_attr *a = &evlist->entries[i]->attr;

		if ((a->sample_type & PERF_SAMPLE_READ) && !(a->sample_type & ids))
			a->sample_type |= PERF_SAMPLE_ID;
	}
}

/* --group: the -e events (not a --switch-output-event) in one group. */
static int config_group_option(struct evlist *evlist, const struct record_opts *opts,
			       char *errbuf, size_t errsz)
{
	int n = 0;

	while (n < evlist->nr_entries && !evlist->entries[n]->wake_each)
		n++;
	if (!opts->group || n < 2 || !evlist__set_leader(evlist, 0, n, NULL))
		return 0;
	snprintf(errbuf, errsz, "record: --group: %s", strerror(ENOMEM));
	return -ENOMEM;
}

static int add_tracking_dummy(struct evlist *evlist, char *errbuf, size_t errsz)
{
	struct perf_event_attr dummy = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
	};
	struct evsel *track = evsel__new(&dummy, "dummy:HG");

	if (!track || evlist__add(evlist, track)) {
		evsel__delete(track);
		snprintf(errbuf, errsz, "record: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	track->tracking = 1;
	track->overwrite = 0;
	return 0;
}

int record__config(struct evlist *evlist, const struct record_opts *opts,
		   char *errbuf, size_t errsz)
{
	/* a flight recorder's tracking never shares a ring with samples; the
	 * stock perf adds a dummy for CPUs, as tasks start and exit unseen */
	int dummy = opts->overwrite || opts->target.system_wide || opts->target.cpu_list ||
		    opts->delay_ms;
	int err = config_group_option(evlist, opts, errbuf, errsz);

	if (err)
		return err;
	if (dummy) {
		err = add_tracking_dummy(evlist, errbuf, errsz);
		if (err)
			return err;
	} else {
		evlist->entries[0]->tracking = 1;
	}
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];
		struct perf_event_attr *a = &e->attr;
		int dummy_event = dummy && e->tracking;

		a->sample_id_all = 1;
		/* the kernel maps no ring of an inherited event on any CPU */
		a->inherit = !opts->no_inherit && !opts->target.per_thread;
		a->disabled = 1;
		/* -D: only tracking starts with the workload, samples come later */
		a->enable_on_exec = opts->per_task && (!opts->delay_ms || e->tracking);
		config_selection(e, opts);
		if (e->tracking)
			config_tracking(e, opts);
		if (dummy_event) {
			a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
			if (opts->target.system_wide || opts->target.cpu_list)
				a->sample_type |= PERF_SAMPLE_CPU;
			if (opts->all_cgroups)
				a->sample_type |= PERF_SAMPLE_CGROUP;
			/* as the stock's, flight recorder or not: readers
			 * such as perf sched timehist want every event to say
			 * it has callchains (a dummy never samples: the bits
			 * cost nothing, and the sample_id trailer keeps its
			 * layout) */
			a->sample_type |= callchain_bits(evsel_callchain(e, opts).mode);
			config_callchain(e, opts);
		} else {
			a->sample_type = sample_type(e, opts);
			config_period(e, opts);
			config_callchain(e, opts);
			if (e->overwrite < 0)
				e->overwrite = opts->overwrite && !opts->history_size;
			a->write_backward = e->overwrite;
		}
		config_extras(a, opts, dummy_event);
		if (opts->use_clockid) {
			a->use_clockid = 1;
			a->clockid = opts->clockid;
		}
		if (opts->overwrite) {
			a->sample_type |= FLIGHT_ID_SAMPLE_TYPE;
			/* dumps compare sample times with the moment each ring was copied */
			a->use_clockid = 1;
			a->clockid = CLOCK_MONOTONIC;
		}
		config_wakeup(e, opts);
	}
	config_groups(evlist);
	if (!opts->overwrite)
		config_ids(evlist);
	config_read_ids(evlist);
	return 0;
}

struct bpf_tasks record__bpf_tasks(const struct evlist *evlist, const struct record_opts *opts)
{
	const struct thread_map *threads = evlist->threads;
	struct bpf_tasks tk = { 0 };

	if (opts->target.system_wide || opts->target.cpu_list || !threads ||
	    threads->map[0] < 0)
		return tk;
	if (opts->target.tid) {
		tk.tids = threads->map;
		tk.nr_tids = threads->nr;
	} else {
		tk.pids = threads->map;
		tk.nr_pids = threads->nr;
		tk.follow = !opts->no_inherit;
	}
	return tk;
}
