/* Event definition strings (util/parse-events.c): symbolic events, terms,
 * groups, filters, tracepoints, and the errors each mistake gets. */
#include "tests/tests.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "util/tp.h"

#include <string.h>
#include <unistd.h>

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

/* Callchain and inherit terms: what record-config.c is told per event. */
static int test_callchain_terms(struct test_ctx *ctx)
{
	char err[512];
	struct evlist *l;
	struct evsel *e;

	(void)ctx;
	l = parse("cpu-clock/max-stack=5/,cpu-clock/call-graph=dwarf,stack-size=4096/,"
		  "cpu-clock/call-graph=no,no-inherit/,cpu-clock/inherit,call-graph=fp/,cpu-clock",
		  err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 5, "%s", err);
	e = l->entries[0];
	TEST_ASSERT(e->has_callchain && e->callchain.mode == CALLCHAIN_FP && e->max_stack == 5,
		    "max-stack alone: fp, 5 (mode %d max %u)", e->callchain.mode, e->max_stack);
	e = l->entries[1];
	TEST_ASSERT(e->has_callchain && e->callchain.mode == CALLCHAIN_DWARF &&
		    e->callchain.dump_size == 4096, "dwarf,4096 (mode %d size %u)",
		    e->callchain.mode, e->callchain.dump_size);
	e = l->entries[2];
	TEST_ASSERT(e->has_callchain && e->callchain.mode == CALLCHAIN_NONE && e->inherit == 0,
		    "call-graph=no, no-inherit");
	e = l->entries[3];
	TEST_ASSERT(e->has_callchain && e->callchain.mode == CALLCHAIN_FP && e->inherit == 1 &&
		    !e->max_stack, "inherit, call-graph=fp");
	e = l->entries[4];
	TEST_ASSERT(!e->has_callchain && e->inherit == -1, "no terms: -g and -i decide");
	evlist__delete(l);
	return TEST_OK;
}

/* {groups}: leaders, sizes, names and modifiers on every member. */
static int test_groups(struct test_ctx *ctx)
{
	char err[512];
	struct evlist *l;
	struct evsel **e;

	(void)ctx;
	l = parse("cs,{cpu-clock,page-faults:k,task-clock/period=7/}:u,grp{dummy,cs}:S,faults",
		  err, sizeof(err));
	TEST_ASSERT(l && l->nr_entries == 7, "%s", err);
	e = l->entries;
	TEST_ASSERT(evsel__is_leader(e[0]) && e[0]->nr_members == 1, "cs alone");
	TEST_ASSERT(evsel__is_leader(e[1]) && e[1]->nr_members == 3 && !e[1]->group_name,
		    "anonymous group of 3 (%d)", e[1]->nr_members);
	TEST_ASSERT(e[2]->leader == e[1] && e[3]->leader == e[1], "members led by cpu-clock");
	/* :u on the group; page-faults' own :k stays, user space is added */
	TEST_ASSERT(e[1]->attr.exclude_kernel && e[1]->attr.exclude_hv && !e[1]->attr.exclude_user,
		    "cpu-clock takes the group's :u");
	TEST_ASSERT(!e[2]->attr.exclude_kernel && !e[2]->attr.exclude_user && e[2]->attr.exclude_hv,
		    "page-faults:k + group :u = user and kernel");
	TEST_ASSERT(!strcmp(e[1]->name, "cpu-clock") && !strcmp(e[2]->name, "page-faults:k"),
		    "the group's modifiers do not rename (%s, %s)", e[1]->name, e[2]->name);
	TEST_ASSERT(e[3]->attr.sample_period == 7 && e[3]->user_period, "terms inside a group");
	TEST_ASSERT(evsel__is_leader(e[4]) && e[4]->nr_members == 2 && e[4]->group_name &&
		    !strcmp(e[4]->group_name, "grp") && e[5]->leader == e[4], "named group");
	TEST_ASSERT(e[4]->sample_read && !e[1]->sample_read, ":S on the leader only");
	TEST_ASSERT(evsel__is_leader(e[6]) && e[6]->nr_members == 1, "faults alone after");
	TEST_ASSERT(evlist__nr_groups(l) == 2, "2 groups, not %d", evlist__nr_groups(l));
	evlist__delete(l);

	/* --group over everything, {groups} included */
	l = parse("{cpu-clock,cs},faults", err, sizeof(err));
	TEST_ASSERT(l && !evlist__set_leader(l, 0, l->nr_entries, NULL), "%s", err);
	TEST_ASSERT(l->entries[0]->nr_members == 3 && l->entries[2]->leader == l->entries[0] &&
		    evlist__nr_groups(l) == 1, "one group of 3");
	evlist__delete(l);
	return TEST_OK;
}

/* --filter and --exclude-perf: the events of the last -e, tracepoints only */
static int test_filters(struct test_ctx *ctx)
{
	char err[512], want[64];
	struct evlist *l;

	if (!tp__dir() || tp__id("sched", "sched_switch") < 0 || tp__id("sched", "sched_wakeup") < 0)
		TEST_SKIP_BECAUSE(ctx, "no sched:sched_switch/sched_wakeup tracepoints");
	l = parse("sched:sched_switch", err, sizeof(err));
	TEST_ASSERT(l, "%s", err);
	TEST_ASSERT(!parse_events(l, "cpu-clock", err, sizeof(err)), "%s", err);
	TEST_ASSERT(parse_events__filter(l, "prev_pid > 0", err, sizeof(err)) &&
		    !strcmp(err, "--filter option should follow a -e tracepoint or HW tracer option"),
		    "after cpu-clock: '%s'", err);
	TEST_ASSERT(parse_events__exclude_perf(l, err, sizeof(err)) &&
		    !strcmp(err, "--exclude-perf option should follow a -e tracepoint option"),
		    "--exclude-perf after cpu-clock: '%s'", err);
	TEST_ASSERT(!parse_events(l, "sched:sched_switch,sched:sched_wakeup", err, sizeof(err)),
		    "%s", err);
	TEST_ASSERT(!parse_events__filter(l, "prev_pid > 0", err, sizeof(err)), "%s", err);
	TEST_ASSERT(!parse_events__exclude_perf(l, err, sizeof(err)), "%s", err);
	snprintf(want, sizeof(want), "(prev_pid > 0) && (common_pid != %d)", (int)getpid());
	for (int i = 2; i < 4; i++)
		TEST_ASSERT(l->entries[i]->filter && !strcmp(l->entries[i]->filter, want),
			    "%s: filter '%s'", l->entries[i]->name, l->entries[i]->filter);
	TEST_ASSERT(!l->entries[0]->filter && !l->entries[1]->filter, "earlier -e untouched");
	evlist__delete(l);

	l = evlist__new();
	TEST_ASSERT(l && parse_events__filter(l, "x", err, sizeof(err)), "--filter before any -e");
	evlist__delete(l);
	return TEST_OK;
}

static int test_errors(struct test_ctx *ctx)
{
	static const char *const bad[] = {
		"foo", "cpu-clock:x", "cpu-clock/period=0/", "cpu-clock/bogus/", "",
		"cpu-clock/period=1", "cpu-clock,", "a:b:c:d", "cpu-clock/freq=abc/",
		"cycles:pppp", "cpu-clock/period=1/:u:k",
		"{cpu-clock,cs", "cpu-clock,cs}", "{cpu-clock,{cs}}", "{}", "{cpu-clock}x",
		"{cpu-clock}:q", "{cpu-clock}{cs}", "{cpu-clock,}", "a b{cs}",
		"cpu-clock/max-stack=0/", "cpu-clock/max-stack=65536/", "cpu-clock/max-stack/",
		"cpu-clock/call-graph=lbr/", "cpu-clock/call-graph=/", "cpu-clock/stack-size=4096/",
		"cpu-clock/call-graph=fp,stack-size=4096/",
		"cpu-clock/call-graph=dwarf,stack-size=70000/", "cpu-clock/inherit=1/",
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
	/* ftrace's events are in no listing (no enable file): named whole,
	 * they are found, the function event without user call chains
	 * (the kernel refuses it any with EINVAL, hiding its real answer) */
	id = tp__id("ftrace", "function");
	if (id > 0) {
		l = parse("ftrace:function", err, sizeof(err));
		TEST_ASSERT(l && l->nr_entries == 1 && l->entries[0]->attr.config == (unsigned)id &&
			    l->entries[0]->attr.exclude_callchain_user &&
			    !strcmp(l->entries[0]->name, "ftrace:function"), "ftrace:function: %s",
			    err);
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
		ret = test_callchain_terms(ctx);
	if (!ret)
		ret = test_groups(ctx);
	if (!ret)
		ret = test_errors(ctx);
	if (!ret)
		ret = test_filters(ctx);
	if (!ret)
		ret = test_tracepoints(ctx);
	return ret;
}

const struct test_suite suite_util_parse_events = {
	"util/parse-events", "Parse event definition strings", test_parse_events,
};
