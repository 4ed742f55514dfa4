/* --threads specs (record/threads.c): the stock's layouts over a fake
 * topology, user masks filtered through the recorded CPUs, and the specs
 * the stock refuses. */
#include "tests/tests.h"
#include "record/threads.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 8 CPUs: 2 packages of 2 cores of 2 SMT threads, a NUMA node per
 * package: CPU n is in core n / 2 and package n / 4 */
static long fake_group(int cpu, enum threads_layout layout)
{
	switch (layout) {
	case THREADS_CORE: return cpu / 2;
	case THREADS_PACKAGE: return cpu / 4;
	case THREADS_NUMA: return cpu / 4;
	default: return -EINVAL;
	}
}

/* the masks as "maps/affinity:..." */
static void masks_str(const struct threads_spec *ts, char *buf, size_t sz)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int t = 0; t < ts->nr && n < sz; t++) {
		const cpu_set_t *sets[2] = { &ts->masks[t].maps, &ts->masks[t].affinity };

		for (int s = 0; s < 2 && n < sz; s++) {
			const char *sep = s ? "/" : t ? ":" : "";
			int first = 1;

			n += snprintf(buf + n, sz - n, "%s", sep);
			for (int c = 0; c < 64 && n < sz; c++)
				if (CPU_ISSET(c, sets[s])) {
					n += snprintf(buf + n, sz - n, first ? "%d" : ",%d", c);
					first = 0;
				}
		}
	}
}

static int test_threads_specs(struct test_ctx *ctx)
{
	static const int all[] = { 0, 1, 2, 3, 4, 5, 6, 7 }, some[] = { 1, 2, 5 };
	static const struct {
		const char *spec;
		const int *cpus;
		int nr;
		const char *masks;	/* NULL: refused, with err in the message */
		const char *err;
	} cases[] = {
		{ NULL, all, 4, "0/0:1/1:2/2:3/3", NULL },
		{ "", all, 2, "0/0:1/1", NULL },
		{ "cpu", some, 3, "1/1:2/2:5/5", NULL },
		{ "core", all, 8, "0,1/0,1:2,3/2,3:4,5/4,5:6,7/6,7", NULL },
		{ "core", some, 3, "1/1:2/2:5/5", NULL },
		{ "package", all, 8, "0,1,2,3/0,1,2,3:4,5,6,7/4,5,6,7", NULL },
		{ "numa", some, 3, "1,2/1,2:5/5", NULL },
		{ "0,2-4/2-4:1,5-7/5-7", all, 8, "0,2,3,4/2,3,4:1,5,6,7/5,6,7", NULL },
		/* filtered through the recorded CPUs (-C); affinity as given */
		{ "0-3/0:4-7/1", some, 3, "1,2/0:5/1", NULL },
		/* empty parts skipped, as the stock's tokenizer does */
		{ "0//0::1/1", all, 2, "0/0:1/1", NULL },
		{ "0-1/0-1", all, 2, "0,1/0,1", NULL },
		{ "0/0:0/1", all, 2, NULL, "Intersecting maps mask: 0" },
		{ "0-1/0:1/1", all, 2, NULL, "Intersecting maps mask: 1" },
		{ "0/1:1/1", all, 2, NULL, "Intersecting affinity mask: 1" },
		{ "1/1", all, 1, NULL, "Empty maps mask: 1" },
		{ "0/0:3/3", some, 3, NULL, "Empty maps mask: 0" },
		{ "foo", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "0/0:1", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "0/0/0", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "0,/0", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "2-1/0", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "0-1024/0", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "-1/0", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ ":", all, 2, NULL, "Invalid thread maps or affinity specs" },
		{ "cpus", all, 2, NULL, "Invalid thread maps or affinity specs" },
	};

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct threads_spec ts;
		char err[256] = "", got[256];
		int ret = threads_spec__parse(&ts, cases[i].spec, cases[i].cpus, cases[i].nr,
					      fake_group, err, sizeof(err));

		if (!cases[i].masks) {
			TEST_ASSERT(ret == -EINVAL && strstr(err, cases[i].err) &&
				    strstr(err, cases[i].spec) && !ts.nr && !ts.masks,
				    "'%s': %d '%s'", cases[i].spec, ret, err);
			continue;
		}
		TEST_ASSERT(!ret, "'%s': %d %s", cases[i].spec, ret, err);
		masks_str(&ts, got, sizeof(got));
		threads_spec__exit(&ts);
		TEST_ASSERT(!strcmp(got, cases[i].masks), "'%s': %s, want %s", cases[i].spec, got,
			    cases[i].masks);
	}
	return TEST_OK;
}

/* a group the machine cannot tell is said, not guessed */
static long no_group(int cpu, enum threads_layout layout)
{
	(void)cpu;
	(void)layout;
	return -ENOENT;
}

static int test_threads_unknown_group(struct test_ctx *ctx)
{
	static const int cpus[] = { 0, 1 };
	struct threads_spec ts;
	char err[256] = "";

	(void)ctx;
	TEST_ASSERT(threads_spec__parse(&ts, "core", cpus, 2, no_group, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "cpu 0") && !ts.nr, "%s", err);
	/* cpu needs no topology */
	TEST_ASSERT(!threads_spec__parse(&ts, "cpu", cpus, 2, no_group, err, sizeof(err)) &&
		    ts.nr == 2, "%s", err);
	threads_spec__exit(&ts);
	return TEST_OK;
}

TEST_SUITE(suite_record_threads, "record/threads", "--threads specs: layouts, masks, refusals",
	   test_threads_specs, test_threads_unknown_group);
