/* The delay and the rate limit between a trigger and its switch, and the
 * parsing of their options. */
#include "flight/trigger.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int trigger__parse_delay(struct trigger *t, const char *arg)
{
	return parse_duration(arg, 1000000ULL, TRIGGER_DELAY_MAX_NS, &t->delay_ns);
}

int trigger__parse_rate(struct trigger *t, const char *arg)
{
	const char *slash = arg ? strchr(arg, '/') : NULL;
	char *num, period[32];
	u64 n, ns;
	int err;

	if (!slash || !slash[1] || strlen(slash + 1) >= sizeof(period) - 1)
		return -EINVAL;
	num = strndup(arg, slash - arg);
	if (!num)
		return -ENOMEM;
	err = parse_u64_range(num, 1, TRIGGER_RATE_MAX, &n);
	free(num);
	if (err)
		return err;
	/* "6/h" reads as "6/1h" */
	snprintf(period, sizeof(period), "%s%s", isdigit((unsigned char)slash[1]) ? "" : "1", slash + 1);
	err = parse_duration(period, 1000000ULL, TRIGGER_DELAY_MAX_NS, &ns);
	if (err)
		return err;
	free(t->accepted);
	t->accepted = calloc(n, sizeof(*t->accepted));
	if (!t->accepted)
		return -ENOMEM;
	t->rate_n = n;
	t->rate_period_ns = ns;
	t->oldest = 0;
	return 0;
}

void trigger__exit(struct trigger *t)
{
	free(t->accepted);
	memset(t, 0, sizeof(*t));
}

enum trigger_verdict trigger__ask(struct trigger *t, u64 now)
{
	if (t->due_ns)
		return TRIGGER_MERGED;
	if (t->rate_n) {
		/* the oldest of the last N accepted: still inside the period,
		 * then N were accepted within it already */
		u64 oldest = t->accepted[t->oldest];

		if (oldest && now - oldest < t->rate_period_ns) {
			t->limited++;
			return TRIGGER_LIMITED;
		}
		t->accepted[t->oldest] = now;
		t->oldest = (t->oldest + 1) % t->rate_n;
	}
	t->due_ns = now + t->delay_ns;
	return TRIGGER_ACCEPTED;
}
