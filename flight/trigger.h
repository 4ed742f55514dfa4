/* What stands between a trigger and its switch: --switch-output-delay and
 * --switch-output-max-rate. */
#ifndef PERF_TRIGGER_H
#define PERF_TRIGGER_H

#include "lib/util.h"

/* What stands between a trigger somebody asks for (SIGUSR2, a control
 * snapshot, a --switch-output-event) and its switch:
 * --switch-output-delay postpones the switch, so that a dump covers what
 * followed the trigger as well as what led up to it, and
 * --switch-output-max-rate drops triggers beyond N in any window of the
 * period, so that a storm of alerts cannot fill the disk with dumps.
 * Size and time triggers are schedules the user set: they pass neither. */
struct trigger {
	u64 delay_ns;		/* --switch-output-delay (0: none) */
	u32 rate_n;		/* --switch-output-max-rate N/PERIOD (0: no limit) */
	u64 rate_period_ns;
	u64 *accepted;		/* the times of the last rate_n accepted triggers, */
	u32 oldest;		/* a ring: the slot of the oldest */
	u64 due_ns;		/* the pending switch is due then (0: none pending) */
	u64 limited;		/* triggers dropped by the rate limit */
};

enum trigger_verdict {
	TRIGGER_ACCEPTED,	/* a switch is now due at due_ns */
	TRIGGER_MERGED,		/* a switch was pending already: this one joins it */
	TRIGGER_LIMITED,	/* over the rate limit: dropped and counted */
};

#define TRIGGER_DELAY_MAX_NS (86400ULL * 1000000000)	/* a day */
#define TRIGGER_RATE_MAX 1000000
/* The recorder's line for each trigger over the rate, then the running
 * count and " ignored so far) ]"; `perf daemon -v` reads the count back. */
#define TRIGGER_IGNORED_MSG "[ perf record: trigger ignored: over --switch-output-max-rate ("

/* --switch-output-delay=TIME ("500ms", "10s", "1m"). 0, -EINVAL for junk,
 * -ERANGE outside 1ms..1d. */
int trigger__parse_delay(struct trigger *t, const char *arg);
/* --switch-output-max-rate=N/PERIOD ("6/1h", "1/30s"); the ring of
 * accepted times is allocated here and freed by trigger__exit(). 0,
 * -EINVAL for junk, -ERANGE for N outside 1..1000000 or a period outside
 * 1ms..1d, -ENOMEM. */
int trigger__parse_rate(struct trigger *t, const char *arg);
void trigger__exit(struct trigger *t);

/* A trigger at now (ns, CLOCK_MONOTONIC): what becomes of it. */
enum trigger_verdict trigger__ask(struct trigger *t, u64 now);
/* Is the pending switch due at now? */
static inline int trigger__due(const struct trigger *t, u64 now)
{
	return t->due_ns && now >= t->due_ns;
}
/* The switch was done (or recording ended): nothing is pending. */
static inline void trigger__served(struct trigger *t)
{
	t->due_ns = 0;
}

#endif
