/* perf record's options -> every event's perf_event_attr. */
#include "util/record.h"
#include "util/evlist.h"

#include <errno.h>
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
