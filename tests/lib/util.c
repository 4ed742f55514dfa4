#include "tests/tests.h"
#include "util/cpumap.h"
#include "record/switch-output.h"
#include "flight/trigger.h"
#include "lib/util.h"

#include <errno.h>

/* --switch-output values: the kind and amount, or the error */
static int test_switch_output(void)
{
	static const struct {
		const char *spec;
		int err;
		enum switch_kind kind;
		u64 amount;	/* bytes or ns */
	} cases[] = {
		{ NULL, 0, SWITCH_SIGNAL, 0 },
		{ "signal", 0, SWITCH_SIGNAL, 0 },
		{ "100M", 0, SWITCH_SIZE, 100ULL << 20 },
		{ "1B", 0, SWITCH_SIZE, 1 },
		{ "2KB", 0, SWITCH_SIZE, 2048 },
		{ "17179869183G", 0, SWITCH_SIZE, 17179869183ULL << 30 },
		{ "30s", 0, SWITCH_TIME, 30000000000ULL },
		{ "5m", 0, SWITCH_TIME, 300000000000ULL },
		{ "2h", 0, SWITCH_TIME, 7200000000000ULL },
		{ "365d", 0, SWITCH_TIME, SWITCH_OUTPUT_MAX_NS },
		{ "31536000s", 0, SWITCH_TIME, SWITCH_OUTPUT_MAX_NS },
		{ "31536001s", -ERANGE, 0, 0 },
		{ "366d", -ERANGE, 0, 0 },
		{ "18446744073s", -ERANGE, 0, 0 },	/* the ns fit a u64, now + period does not */
		{ "18446744074s", -ERANGE, 0, 0 },	/* the ns do not fit a u64 */
		{ "99999999999999999999999999999999999999999999d", -ERANGE, 0, 0 },
		{ "17179869184G", -ERANGE, 0, 0 },
		{ "0s", -ERANGE, 0, 0 },
		{ "0M", -ERANGE, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "s", -EINVAL, 0, 0 },
		{ "M", -EINVAL, 0, 0 },
		{ "5", -EINVAL, 0, 0 },
		{ "5k", -EINVAL, 0, 0 },
		{ "5x", -EINVAL, 0, 0 },
		{ "-5s", -EINVAL, 0, 0 },
		{ "5 s", -EINVAL, 0, 0 },
		{ "1.5s", -EINVAL, 0, 0 },
		{ "5BB", -EINVAL, 0, 0 },
		{ "signals", -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct switch_output so = { .kind = SWITCH_NONE };
		int err = switch_output__parse(&so, cases[i].spec);
		u64 amount = so.kind == SWITCH_SIZE ? so.size : so.period_ns;

		TEST_ASSERT(err == cases[i].err, "'%s': %d", cases[i].spec, err);
		if (err) {
			TEST_ASSERT(so.kind == SWITCH_NONE, "'%s' set a kind", cases[i].spec);
			continue;
		}
		TEST_ASSERT(so.kind == cases[i].kind && amount == cases[i].amount,
			    "'%s': kind %d amount %llu", cases[i].spec, so.kind,
			    (unsigned long long)amount);
	}
	return TEST_OK;
}

#define MS 1000000ULL

/* --switch-output-delay and --switch-output-max-rate: the values, then
 * what becomes of triggers at given times */
static int test_trigger(void)
{
	struct trigger t = { 0 };
	u64 ns = 42;

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

static int test_util(struct test_ctx *ctx)
{
	u64 v;
	struct cpu_map *m;

	(void)ctx;
	TEST_ASSERT(!parse_size("16M", &v) && v == 16ULL << 20, "16M");
	TEST_ASSERT(!parse_size("512K", &v) && v == 512 << 10, "512K");
	TEST_ASSERT(!parse_size("1G", &v) && v == 1ULL << 30, "1G");
	TEST_ASSERT(!parse_size("100B", &v) && v == 100, "100B");
	TEST_ASSERT(!parse_size("4kb", &v) && v == 4096, "4kb");
	TEST_ASSERT(parse_size("16X", &v) == -EINVAL, "16X");
	TEST_ASSERT(parse_size("-1", &v) == -EINVAL, "-1");
	TEST_ASSERT(parse_size("99999999999999999999G", &v) == -ERANGE, "overflow");
	TEST_ASSERT(parse_size("16BB", &v) == -EINVAL && parse_size("K", &v) == -EINVAL &&
		    parse_size("", &v) == -EINVAL && parse_size(NULL, &v) == -EINVAL, "junk sizes");
	TEST_ASSERT(!parse_size("17179869183G", &v) && v == 17179869183ULL << 30, "largest G");
	TEST_ASSERT(parse_size("17179869184G", &v) == -ERANGE, "2^64 bytes");
	TEST_ASSERT(!parse_size("18446744073709551615", &v) && v == UINT64_MAX, "u64 max bytes");
	TEST_ASSERT(parse_size("18446744073709551616B", &v) == -ERANGE, "2^64 B");
	TEST_ASSERT(!parse_size("0", &v) && v == 0, "0 bytes parses, callers judge it");
	TEST_ASSERT(parse_u64("12a", &v) == -EINVAL && parse_u64("", &v) == -EINVAL, "junk");
	TEST_ASSERT(parse_u64("-1", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL &&
		    parse_u64(" 1", &v) == -EINVAL && parse_u64("1 ", &v) == -EINVAL &&
		    parse_u64("0x10", &v) == -EINVAL && parse_u64(NULL, &v) == -EINVAL, "signs, blanks, hex");
	TEST_ASSERT(!parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "u64 max");
	TEST_ASSERT(parse_u64("18446744073709551616", &v) == -ERANGE, "2^64");
	TEST_ASSERT(parse_u64("99999999999999999999999999999", &v) == -ERANGE, "way past 2^64");
	v = 42;
	TEST_ASSERT(parse_u64_range("0", 1, 10, &v) == -ERANGE && v == 42, "below the range");
	TEST_ASSERT(parse_u64_range("11", 1, 10, &v) == -ERANGE && v == 42, "above the range");
	TEST_ASSERT(parse_u64_range("x", 1, 10, &v) == -EINVAL, "junk in a range");
	TEST_ASSERT(!parse_u64_range("10", 1, 10, &v) && v == 10, "the top of the range");
	TEST_ASSERT(!parse_u64_range("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX,
		    "the whole u64 range");
	TEST_ASSERT(roundup_pow2(3) == 4 && roundup_pow2(4) == 4 && roundup_pow2(1) == 1, "pow2");
	if (test_switch_output() || test_trigger())
		return TEST_FAIL;

	m = cpu_map__new("0");
	TEST_ASSERT(m && m->nr == 1 && m->map[0] == 0, "cpu 0");
	cpu_map__put(m);
	m = cpu_map__new(NULL);
	TEST_ASSERT(m && m->nr >= 1, "online cpus");
	cpu_map__put(m);
	TEST_ASSERT(!cpu_map__new("x") && errno == EINVAL, "bad syntax");
	TEST_ASSERT(!cpu_map__new("1-0") && errno == EINVAL, "reversed range");
	TEST_ASSERT(!cpu_map__new("0,") && errno == EINVAL, "trailing comma");
	TEST_ASSERT(!cpu_map__new("4000") && errno == ENODEV, "absent cpu");
	return TEST_OK;
}

const struct test_suite suite_util = {
	"util", "Size, number, time, --switch-output, trigger policy and CPU list parsers", test_util,
};
