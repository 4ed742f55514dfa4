#include "tests/tests.h"
#include "util/tp.h"

#include <string.h>
#include <traceevent/event-parse.h>

static int test_tracing_data(struct test_ctx *ctx)
{
	const char *events[] = { "sched:sched_switch", "sched:sched_wakeup", "irq:irq_handler_entry" };
	struct buf b = { 0 };
	struct tep_handle *tep;
	struct tep_event *ev;
	int id = tp__dir() ? tp__id("sched", "sched_switch") : -1;
	int nr = tp__id("irq", "irq_handler_entry") > 0 ? 3 : 2;

	if (id < 0)
		TEST_SKIP_BECAUSE(ctx, "no tracefs or no sched:sched_switch");
	TEST_ASSERT(!tp__tracing_data(&b, events, nr) && !b.err, "build");
	TEST_ASSERT(b.len > 100 && !memcmp(b.p, "\027\010\104tracing0.6", 14), "magic+version");
	tep = tp__parse_tracing_data(b.p, b.len, NULL);
	TEST_ASSERT(tep, "parse back");
	ev = tep_find_event(tep, id);
	TEST_ASSERT(ev && !strcmp(ev->name, "sched_switch") && !strcmp(ev->system, "sched"),
		    "event by id");
	TEST_ASSERT(tep_find_field(ev, "prev_pid") && tep_find_field(ev, "next_comm"), "fields");
	tep_free(tep);
	/* every truncation is refused, never read past */
	for (size_t cut = 0; cut < b.len; cut += 13) {
		tep = tp__parse_tracing_data(b.p, cut, NULL);
		TEST_ASSERT(!tep || cut > b.len - 64, "truncated at %zu accepted", cut);
		if (tep)
			tep_free(tep);
	}
	buf__release(&b);
	return TEST_OK;
}

const struct test_suite suite_tracing_data = {
	"tracing-data", "TRACING_DATA feature: build and parse back", test_tracing_data,
};
