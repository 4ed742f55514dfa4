/* CPU hotplug in a recording: a CPU that went offline and came back is
 * recorded again, its events opened anew in the rings it had. */
#ifndef PERF_RECORD_HOTPLUG_H
#define PERF_RECORD_HOTPLUG_H

struct record;

/* Says in -v when CPU hotplug is not watched for events of whole CPUs,
 * and why: a CPU that goes offline then is not recorded when it is back. */
void record__hotplug_start(struct record *rec);

/* Reads the hotplug watch's uevents when readable, then, unless a dump
 * being written reads the events (the writer wakes the loop once done),
 * opens anew the events of every CPU of the session that came back, and
 * says in -v which went and which came back. A CPU whose events could not
 * be opened anew is named, and tried again when it comes back next. */
void record__hotplug(struct record *rec, int readable);

#endif
