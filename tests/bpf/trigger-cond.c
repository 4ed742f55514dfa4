/* --switch-output-when's grammar (bpf/trigger-cond.c): what each part of
 * a condition becomes, and the one line that names a wrong part. */
#include "tests/tests.h"
#include "bpf/trigger-cond.h"

#include <errno.h>
#include <string.h>

static int test_cond_full(struct test_ctx *ctx)
{
	struct trigger_conds c = { 0 };
	const struct trigger_map_cond *k;
	char err[512];

	(void)ctx;
	TEST_ASSERT(!trigger_conds__add(&c, "offcpu>200ms,comm=postgres,pid=42,tid=43",
					err, sizeof(err)), "%s", err);
	TEST_ASSERT(!trigger_conds__add(&c, "syscall>1.5s,cgroup=/system.slice/x.service",
					err, sizeof(err)), "%s", err);
	TEST_ASSERT(!trigger_conds__add(&c, "runqlat>250us", err, sizeof(err)), "%s", err);
	TEST_ASSERT(c.nr == 3, "%d", c.nr);
	TEST_ASSERT(c.kinds == 7, "kinds %#x", c.kinds);
	k = &c.cond[0];
	TEST_ASSERT(k->kind == TRIGGER_OFFCPU && k->threshold_ns == 200000000ULL, "%u %llu",
		    k->kind, (unsigned long long)k->threshold_ns);
	TEST_ASSERT(k->has_comm && !strcmp(k->comm, "postgres") && k->pid == 42 && k->tid == 43,
		    "%s %d %d", k->comm, k->pid, k->tid);
	TEST_ASSERT(!strcmp(k->text, "offcpu>200ms,comm=postgres,pid=42,tid=43"), "%s", k->text);
	k = &c.cond[1];
	TEST_ASSERT(k->kind == TRIGGER_SYSCALL && k->threshold_ns == 1500000000ULL, "%llu",
		    (unsigned long long)k->threshold_ns);
	TEST_ASSERT(!k->has_comm && k->pid == -1 && k->tid == -1, "qualifiers set");
	TEST_ASSERT(c.cgroup[1] && !strcmp(c.cgroup[1], "/system.slice/x.service"), "%s",
		    c.cgroup[1]);
	k = &c.cond[2];
	TEST_ASSERT(k->kind == TRIGGER_RUNQLAT && k->threshold_ns == 250000, "%llu",
		    (unsigned long long)k->threshold_ns);
	TEST_ASSERT(!c.cgroup[0] && !c.cgroup[2], "cgroups");
	trigger_conds__exit(&c);
	return TEST_OK;
}

static int test_cond_units(struct test_ctx *ctx)
{
	static const struct { const char *arg; unsigned long long ns; } ok[] = {
		{ "offcpu>1ns", 1 }, { "offcpu>7us", 7000 }, { "offcpu>20ms", 20000000 },
		{ "offcpu>2s", 2000000000 }, { "offcpu>0.5ms", 500000 }, { "offcpu>86400s",
		86400000000000ULL }, { "offcpu>1.000000001s", 1000000001 },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct trigger_conds c = { 0 };
		char err[512];

		TEST_ASSERT(!trigger_conds__add(&c, ok[i].arg, err, sizeof(err)), "%s", err);
		TEST_ASSERT(c.cond[0].threshold_ns == ok[i].ns, "%s: %llu", ok[i].arg,
			    (unsigned long long)c.cond[0].threshold_ns);
		trigger_conds__exit(&c);
	}
	return TEST_OK;
}

/* every wrong part named, in one line that quotes the condition */
static int test_cond_errors(struct test_ctx *ctx)
{
	static const struct { const char *arg, *why; } bad[] = {
		{ "offcpu>20xs", "unknown unit 'xs' (ns, us, ms, s)" },
		{ "offcpu>20", "duration '20' has no unit (ns, us, ms, s)" },
		{ "offcpu>ms", "bad duration 'ms' (e.g. 200ms, 1.5s)" },
		{ "offcpu>1.ms", "bad duration '1.ms' (e.g. 200ms, 1.5s)" },
		{ "offcpu>0ms", "duration '0ms' out of range (1ns to 1 day)" },
		{ "offcpu>86401s", "duration '86401s' out of range (1ns to 1 day)" },
		{ "offcpu", "expected offcpu>DURATION (e.g. offcpu>200ms)" },
		{ "offcpu>", "expected offcpu>DURATION (e.g. offcpu>200ms)" },
		{ "oncpu>20ms", "unknown kind 'oncpu' (offcpu, syscall, runqlat)" },
		{ "", "unknown kind '' (offcpu, syscall, runqlat)" },
		{ "syscall>5ms,pid=abc", "pid 'abc' is not a task id" },
		{ "syscall>5ms,tid=0", "tid '0' is not a task id" },
		{ "syscall>5ms,pid=99999999999", "pid '99999999999' is not a task id" },
		{ "syscall>5ms,comm=", "comm '': a task's name has 1 to 15 characters" },
		{ "syscall>5ms,comm=abcdefghijklmnop",
		  "comm 'abcdefghijklmnop': a task's name has 1 to 15 characters" },
		{ "syscall>5ms,comm=a,comm=b", "comm given twice" },
		{ "syscall>5ms,pid=1,pid=2", "pid given twice" },
		{ "syscall>5ms,user=root", "unknown qualifier 'user=root' (comm=, pid=, tid=, cgroup=)" },
		{ "syscall>5ms,pid", "unknown qualifier 'pid' (comm=, pid=, tid=, cgroup=)" },
		{ "syscall>5ms,", "an empty qualifier" },
		{ "syscall>5ms,cgroup=", "cgroup= names no cgroup (e.g. cgroup=/system.slice)" },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trigger_conds c = { 0 };
		char err[512], want[512];

		snprintf(want, sizeof(want), "--switch-output-when: '%s': %s", bad[i].arg,
			 bad[i].why);
		TEST_ASSERT(trigger_conds__add(&c, bad[i].arg, err, sizeof(err)) < 0, "%s taken",
			    bad[i].arg);
		TEST_ASSERT(!strcmp(err, want), "got \"%s\", want \"%s\"", err, want);
		TEST_ASSERT(c.nr == 0 && !c.cgroup[0], "%s: a refused condition was kept",
			    bad[i].arg);
	}
	return TEST_OK;
}

static int test_cond_max(struct test_ctx *ctx)
{
	struct trigger_conds c = { 0 };
	char err[512];

	(void)ctx;
	for (int i = 0; i < TRIGGER_MAX_CONDS; i++)
		TEST_ASSERT(!trigger_conds__add(&c, "offcpu>1ms,cgroup=/a", err, sizeof(err)),
			    "%s", err);
	TEST_ASSERT(trigger_conds__add(&c, "runqlat>1ms", err, sizeof(err)) == -E2BIG, "%s", err);
	TEST_ASSERT(!strcmp(err, "--switch-output-when: 'runqlat>1ms': more than 8 conditions"),
		    "%s", err);
	trigger_conds__exit(&c);
	TEST_ASSERT(c.nr == 0, "exit left %d", c.nr);
	return TEST_OK;
}

/* a cgroup is opened beneath the cgroup2 mount, never through a link */
static int test_cond_cgroup(struct test_ctx *ctx)
{
	struct trigger_conds c = { 0 };
	char err[1024];
	int ret;

	TEST_ASSERT(!trigger_conds__add(&c, "offcpu>1ms,cgroup=/", err, sizeof(err)), "%s", err);
	TEST_ASSERT(!trigger_conds__add(&c, "offcpu>1ms,cgroup=/no-such-cgroup.perf-test", err,
					sizeof(err)), "%s", err);
	TEST_ASSERT(!trigger_conds__add(&c, "offcpu>1ms,cgroup=../..", err, sizeof(err)), "%s",
		    err);
	ret = trigger_conds__resolve(&c, err, sizeof(err));
	if (ret && strstr(err, "no cgroup2 filesystem")) {
		trigger_conds__exit(&c);
		TEST_SKIP_BECAUSE(ctx, "%.200s", err);
	}
	TEST_ASSERT(ret == -ENOENT, "%d: %s", ret, err);
	TEST_ASSERT(c.cond[0].cgroup_id != 0, "the root cgroup has no id");
	TEST_ASSERT(strstr(err, "--switch-output-when: 'offcpu>1ms,cgroup=/no-such-cgroup.perf-test'"
			   ": cgroup /no-such-cgroup.perf-test: ") && strstr(err,
			   "No such file or directory"), "%s", err);
	/* the one above the mount */
	c.cgroup[1][0] = '/', c.cgroup[1][1] = 0;
	ret = trigger_conds__resolve(&c, err, sizeof(err));
	TEST_ASSERT(ret == -EXDEV && strstr(err, "cgroup ../..: ") &&
		    strstr(err, "a link or outside the mount, not followed"), "%d: %s", ret, err);
	trigger_conds__exit(&c);
	return TEST_OK;
}

TEST_SUITE(suite_bpf_trigger_cond, "bpf/trigger-cond",
	   "--switch-output-when: conditions parsed, a wrong part named, cgroups beneath the mount",
	   test_cond_full, test_cond_units, test_cond_errors, test_cond_max, test_cond_cgroup);
