/* perf daemon --json and perf daemon ping --json: the daemon and its
 * sessions as one JSON object, for a fleet agent to scrape. */
#ifndef PERF_DAEMON_JSON_H
#define PERF_DAEMON_JSON_H

#include <stdio.h>

struct daemon_status;

/* The object Documentation/perf-daemon.txt describes, onto f: the daemon
 * of ST on BASE, and each session with what its status line, its
 * recorder's state file (BASE/session-NAME/state) and, where PINGS is
 * given, its ping's answer (PINGS[i] for ST's i-th session: "ok", or
 * why not) say. */
void daemon_json__print(FILE *f, const struct daemon_status *st, const char *base,
			const char *const *pings);

#endif
