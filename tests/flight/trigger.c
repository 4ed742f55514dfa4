/* The trigger policy (flight/trigger.c): --switch-output-delay and
 * --switch-output-max-rate, their values, then what becomes of triggers
 * at given times. */
#include "tests/tests.h"
#include "flight/trigger.h"
#include "lib/util.h"

#include <errno.h>

#define MS 1000000ULL

/* --switch-output-delay and --switch-output-max-rate: the values, then
 * what becomes of triggers at given times */
static int test_trigger(struct test_ctx *ctx)
{
	struct trigger t = { 0 };
	u64 ns = 42;

	(void)ctx;

	TEST_ASSERT(!parse_duration("500ms", 0, UINT64_MAX, &ns) && ns == 500 * MS, "500ms");
	TEST_ASSERT(!parse_duration("2d", 0, UINT64_MAX, &ns) && ns == 172800000 * MS, "2d");
	TEST_ASSERT(parse_duration("5", 0, UINT64_MAX, &ns) == -EINVAL, "no unit");
	TEST_ASSERT(parse_duration("5ns", 0, UINT64_MAX, &ns) == -EINVAL, "ns");
	TEST_ASSERT(parse_duration("5 ms", 0, UINT64_MAX, &ns) == -EINVAL, "blank");
	TEST_ASSERT(parse_duration("0s", 1, UINT64_MAX, &ns) == -ERANGE, "below");
	TEST_ASSERT(parse_duration("18446744074s", 0, UINT64_MAX, &ns) == -ERANGE, "u64 overflow");
	TEST_ASSERT(ns == 172800000 * MS, "a failed parse left the value");

	TEST_ASSERT(!trigger__parse_delay(&t, "1d") && t.delay_ns == 86400000 * MS, "delay 1d");
	TEST_ASSERT(trigger__parse_delay(&t, "0ms") == -ERANGE &&
		    trigger__parse_delay(&t, "25h") == -ERANGE, "delay range");
	TEST_ASSERT(trigger__parse_rate(&t, "3") == -EINVAL && trigger__parse_rate(&t, "3/") == -EINVAL &&
		    trigger__parse_rate(&t, "/1h") == -EINVAL && trigger__parse_rate(&t, "x/1h") == -EINVAL &&
		    trigger__parse_rate(&t, "3/1x") == -EINVAL, "rate junk");
	TEST_ASSERT(trigger__parse_rate(&t, "0/1h") == -ERANGE &&
		    trigger__parse_rate(&t, "1000001/1h") == -ERANGE &&
		    trigger__parse_rate(&t, "3/0s") == -ERANGE, "rate range");
	TEST_ASSERT(!trigger__parse_rate(&t, "2/s") && t.rate_n == 2 && t.rate_period_ns == 1000 * MS,
		    "2/s is 2 per 1s");

	/* delay 100 ms, 2 per second: times in ms */
	t.delay_ns = 100 * MS;
	TEST_ASSERT(trigger__ask(&t, 1000 * MS) == TRIGGER_ACCEPTED && t.due_ns == 1100 * MS,
		    "due after the delay");
	TEST_ASSERT(!trigger__due(&t, 1099 * MS) && trigger__due(&t, 1100 * MS), "due time");
	TEST_ASSERT(trigger__ask(&t, 1050 * MS) == TRIGGER_MERGED && t.due_ns == 1100 * MS,
		    "a trigger during the delay joins the window, which keeps its end");
	trigger__served(&t);
	TEST_ASSERT(trigger__ask(&t, 1200 * MS) == TRIGGER_ACCEPTED, "second in the second");
	trigger__served(&t);
	TEST_ASSERT(trigger__ask(&t, 1999 * MS) == TRIGGER_LIMITED && t.limited == 1 && !t.due_ns,
		    "third within a second of the first: dropped");
	TEST_ASSERT(trigger__ask(&t, 2000 * MS) == TRIGGER_ACCEPTED, "a second after the first");
	trigger__served(&t);
	TEST_ASSERT(trigger__ask(&t, 2199 * MS) == TRIGGER_LIMITED && t.limited == 2,
		    "within a second of the second");
	TEST_ASSERT(trigger__ask(&t, 2200 * MS) == TRIGGER_ACCEPTED, "a second after the second");
	trigger__exit(&t);
	TEST_ASSERT(!t.rate_n && !t.accepted, "exit");
	return TEST_OK;
}

const struct test_suite suite_flight_trigger = {
	"flight/trigger", "Trigger policy: durations, --switch-output-delay and --switch-output-max-rate "
	"values, a delay that merges triggers, a rate that drops them",
	test_trigger,
};
