#include "tests/tests.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "util/tp.h"

#include <string.h>

static struct evlist *parse(const char *s, char *err, size_t errsz)
{
	struct evlist *evlist = evlist__new();

	err[0] = '\0';
	if (evlist && parse_events(evlist, s, err, errsz)) {
		evlist__delete(evlist);
		return NULL;
	}
	return evlist;
}

static int test_symbols(struct test_ctx *ctx)
{
	char err[512];
	struct evlist *l;
	struct evsel *e;

	(void)ctx;
	l = parse("cpu-clock", err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 1, "%s", err);
	e = l->entries[0];
	TEST_ASSERT(e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_CPU_CLOCK,
		    "type %u config %llu", e->attr.type, (unsigned long long)e->attr.config);
	TEST_ASSERT(e->attr.freq == 1 && e->attr.sample_freq == 4000, "default 4000 Hz");
	TEST_ASSERT(!strcmp(e->name, "cpu-clock") && !e->user_period && e->overwrite == -1, "%s", e->name);
	evlist__delete(l);

	l = parse("cs:u,cycles:k,faults", err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 3, "%s", err);
	e = l->entries[0];
	TEST_ASSERT(e->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES && e->attr.exclude_kernel &&
		    !e->attr.exclude_user && !strcmp(e->name, "cs:u"), "cs:u -> %s", e->name);
	e = l->entries[1];
	TEST_ASSERT(e->attr.type == PERF_TYPE_HARDWARE && e->attr.exclude_user &&
		    !e->attr.exclude_kernel, "cycles:k");
	TEST_ASSERT(l->entries[2]->attr.config == PERF_COUNT_SW_PAGE_FAULTS, "faults alias");
	evlist__delete(l);

	l = parse("cycles:ppp", err, sizeof(err));
	TEST_ASSERT(l && l->entries[0]->attr.precise_ip == 3, "ppp -> precise_ip 3");
	evlist__delete(l);
	return TEST_OK;
}

static int test_terms(struct test_ctx *ctx)
{
	char err[512];
	struct evlist *l;
	struct evsel *e;

	(void)ctx;
	l = parse("cpu-clock/period=1000/,task-clock/freq=99,overwrite/u,dummy/no-overwrite/",
		  err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 3, "%s", err);
	e = l->entries[0];
	TEST_ASSERT(!e->attr.freq && e->attr.sample_period == 1000 && e->user_period, "period=1000");
	e = l->entries[1];
	TEST_ASSERT(e->attr.freq && e->attr.sample_freq == 99 && e->overwrite == 1 &&
		    e->attr.exclude_kernel, "freq=99,overwrite + u");
	TEST_ASSERT(l->entries[2]->overwrite == 0, "no-overwrite");
	evlist__delete(l);

	l = parse("cpu-clock/name=ticks/", err, sizeof(err));
	TEST_ASSERT(l && !strcmp(l->entries[0]->name, "ticks"), "name= term");
	evlist__delete(l);
	return TEST_OK;
}

static int test_errors(struct test_ctx *ctx)
{
	static const char *const bad[] = {
		"foo", "cpu-clock:x", "cpu-clock/period=0/", "cpu-clock/bogus/", "",
		"cpu-clock/period=1", "cpu-clock,", "a:b:c:d", "cpu-clock/freq=abc/",
		"cycles:pppp", "cpu-clock/period=1/:u:k",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512];
		struct evlist *l = parse(bad[i], err, sizeof(err));

		TEST_LOG(ctx, "  '%s' -> %s\n", bad[i], err);
		TEST_ASSERT(!l, "'%s' was accepted", bad[i]);
		TEST_ASSERT(!strncmp(err, "event syntax error: '", 21) && strstr(err, bad[i]),
			    "'%s' -> '%s'", bad[i], err);
	}
	return TEST_OK;
}

static int test_tracepoints(struct test_ctx *ctx)
{
	char err[512];
	struct evlist *l;
	int id;

	if (!tp__dir())
		TEST_SKIP_BECAUSE(ctx, "no tracefs");
	id = tp__id("sched", "sched_switch");
	if (id < 0)
		TEST_SKIP_BECAUSE(ctx, "no sched:sched_switch");
	l = parse("sched:sched_switch", err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 1, "%s", err);
	TEST_ASSERT(l->entries[0]->attr.type == PERF_TYPE_TRACEPOINT &&
		    l->entries[0]->attr.config == (unsigned)id &&
		    l->entries[0]->attr.sample_period == 1, "config %llu id %d",
		    (unsigned long long)l->entries[0]->attr.config, id);
	TEST_ASSERT(!strcmp(l->entries[0]->tp_sys, "sched") &&
		    !strcmp(l->entries[0]->tp_name, "sched_switch"), "sys/name kept");
	evlist__delete(l);

	l = parse("sched:sched_switch:u", err, sizeof(err));
	TEST_ASSERT(l && l->entries[0]->attr.exclude_kernel, "tracepoint modifier");
	evlist__delete(l);

	if (tp__id("syscalls", "sys_enter_close") > 0) {
		l = parse("syscalls:sys_enter_clos*", err, sizeof(err));
		TEST_ASSERT(l && l->nr_entries >= 1, "%s", err);
		int found = 0;

		for (int i = 0; i < l->nr_entries; i++) {
			TEST_ASSERT(!strncmp(l->entries[i]->tp_name, "sys_enter_clos", 14), "%s",
				    l->entries[i]->name);
			found |= !strcmp(l->entries[i]->name, "syscalls:sys_enter_close");
		}
		TEST_ASSERT(found, "glob matched sys_enter_close");
		evlist__delete(l);
	}
	l = parse("sched:no_such_tracepoint", err, sizeof(err));
	TEST_ASSERT(!l && strstr(err, "unknown tracepoint"), "%s", err);
	l = parse("nosuchsys*:x*", err, sizeof(err));
	TEST_ASSERT(!l && strstr(err, "unknown tracepoint"), "%s", err);
	return TEST_OK;
}

static int test_parse_events(struct test_ctx *ctx)
{
	int ret = test_symbols(ctx);

	if (!ret)
		ret = test_terms(ctx);
	if (!ret)
		ret = test_errors(ctx);
	if (!ret)
		ret = test_tracepoints(ctx);
	return ret;
}

const struct test_suite suite_parse_events = {
	"parse-events", "Parse event definition strings", test_parse_events,
};
