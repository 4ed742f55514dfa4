/* --switch-output-when's part in a recording: what it needs checked, the
 * bpf-output event its program writes into, the program's start and end. */
#include "record/switch-output-when.h"
#include "bpf/trigger.h"
#include "record/record-config.h"
#include "record/record-options.h"
#include "util/cpumap.h"
#include "util/evlist.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int switch_when__check(struct switch_when *sw, const struct record_opts *opts, int have_switch)
{
	char err[PATH_MAX + 512];

	if (!switch_when__on(sw))
		return 0;
	if (!opts->overwrite && !have_switch) {
		pr_err("perf record: --switch-output-when needs --switch-output or --overwrite\n");
		return 129;
	}
	/* a program writes into the event of the CPU it runs on, and a task's
	 * span may end on any CPU: its event is on every CPU, never "any" */
	if (opts->target.per_thread) {
		pr_err("perf record: --switch-output-when and --per-thread exclude each other: "
		       "its events watch every CPU\n");
		return 129;
	}
	if (!opts->target.system_wide && !opts->target.cpu_list)
		trigger_conds__own(&sw->conds);
	if (opts->threads_spec) {
		pr_err("perf record: --switch-output-when is not available with --threads\n");
		return 129;
	}
	if (trigger_bpf__check(&sw->conds, err, sizeof(err)) ||
	    trigger_conds__resolve(&sw->conds, err, sizeof(err))) {
		pr_err("perf record: %s\n", err);
		return 129;
	}
	return 0;
}

int switch_when__add_event(struct switch_when *sw, struct evlist *evlist, char *err,
			   size_t errsz)
{
	struct evsel *e;

	if (!switch_when__on(sw))
		return 0;
	e = evsel__new_bpf_output(SWITCH_WHEN_EVENT);
	if (!e || evlist__add(evlist, e)) {
		evsel__delete(e);
		snprintf(err, errsz, "%s: %s", TRIGGER_BPF_WHO, strerror(ENOMEM));
		return -ENOMEM;
	}
	e->wake_each = 1;	/* its sample wakes the loop */
	sw->evsel = e;
	return 0;
}

void switch_when__config(struct switch_when *sw)
{
	struct evsel *e = sw->evsel;

	if (!e)
		return;
	/* on from the open: only the programs write into it, once started;
	 * of any task, no exec of the workload would enable it */
	e->attr.disabled = 0;
	e->attr.enable_on_exec = 0;
	e->attr.inherit = 0;
}

int switch_when__start(struct switch_when *sw, struct evlist *evlist,
		       const struct record_opts *opts, char *err, size_t errsz)
{
	struct bpf_tasks tk = record__bpf_tasks(evlist, opts);
	struct evsel *e = sw->evsel;
	int *cpus, *fds, nr = 0, ret;

	if (!e)
		return 0;
	cpus = calloc(e->nr_cpus, sizeof(*cpus));
	fds = calloc(e->nr_cpus, sizeof(*fds));
	if (!cpus || !fds) {
		free(cpus);
		free(fds);
		snprintf(err, errsz, "%s: %s", TRIGGER_BPF_WHO, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int c = 0; c < e->nr_cpus; c++) {
		if (*evsel__fd(e, c, 0) < 0)
			continue;	/* an offline CPU */
		cpus[nr] = evlist->cpus->map[c];
		fds[nr++] = *evsel__fd(e, c, 0);
	}
	ret = trigger_bpf__start(&sw->bpf, &sw->conds, &tk, cpus, fds, nr, opts->verbose, err,
				 errsz);
	free(cpus);
	free(fds);
	return ret;
}

int switch_when__cpu_changed(struct switch_when *sw, const struct evlist *evlist, int c)
{
	struct evsel *e = sw->evsel;
	int fd;

	if (!sw->bpf || c >= e->nr_cpus || (fd = *evsel__fd(e, c, 0)) < 0)
		return 0;
	return trigger_bpf__set_event(sw->bpf, evlist->cpus->map[c], fd);
}

void switch_when__exit(struct switch_when *sw)
{
	trigger_bpf__stop(sw->bpf);
	sw->bpf = NULL;
	trigger_conds__exit(&sw->conds);
}
