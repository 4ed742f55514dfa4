/* --switch-output-when=COND: conditions a BPF program evaluates in the
 * kernel; the record of each that holds is a sample of the recorder's
 * "switch-output-when" event, which triggers a switch as a SIGUSR2 does
 * and goes into the dump it asks for. */
#ifndef PERF_RECORD_SWITCH_OUTPUT_WHEN_H
#define PERF_RECORD_SWITCH_OUTPUT_WHEN_H

#include <stddef.h>
#include "bpf/trigger-cond.h"

struct evlist;
struct evsel;
struct record_opts;
struct trigger_bpf;

/* The event's name, as the dumps' readers show it. */
#define SWITCH_WHEN_EVENT "switch-output-when"

struct switch_when {
	struct trigger_conds conds;
	struct evsel *evsel;		/* a bpf-output event on every CPU */
	struct trigger_bpf *bpf;	/* the programs, once started */
};

/* Set up or not: any condition given? */
static inline int switch_when__on(const struct switch_when *sw)
{
	return sw->conds.nr > 0;
}

/* Checks what the conditions need before anything is opened: a flight
 * recorder or --switch-output (have_switch), events of CPUs (no
 * --per-thread), no --threads, BPF that can run here, their cgroups; in a
 * recording of tasks, the conditions that name no task get own_tasks.
 * 0 or 129 after saying why in one line. */
int switch_when__check(struct switch_when *sw, const struct record_opts *opts, int have_switch);
/* Adds the bpf-output event the programs write to, a forward event that
 * wakes the loop at each sample. 0 or -errno with err set. */
int switch_when__add_event(struct switch_when *sw, struct evlist *evlist, char *err,
			   size_t errsz);
/* After record__config(): its event's attr, on from the open. */
void switch_when__config(struct switch_when *sw);
/* Loads the programs once the events are open, writing into the event's
 * fds, watching the recording's own tasks where a condition names none
 * (-p, -t, -u, a workload). 0 or -errno with err set. */
int switch_when__start(struct switch_when *sw, struct evlist *evlist,
		       const struct record_opts *opts, char *err, size_t errsz);
/* CPU index c's events were opened anew (it came back online): the
 * programs emit into its new event. 0 or -errno. */
int switch_when__cpu_changed(struct switch_when *sw, const struct evlist *evlist, int c);
/* The programs unloaded, the conditions freed (the event is the evlist's). */
void switch_when__exit(struct switch_when *sw);

#endif
