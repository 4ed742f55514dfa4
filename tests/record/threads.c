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
		const char *masks;	/* NULL: refused with err and ret, the stock's */
		const char *err;
		int ret;
	} cases[] = {
		{ NULL, all, 4, "0/0:1/1:2/2:3/3", NULL, 0 },
		{ "", all, 2, "0/0:1/1", NULL, 0 },
		{ "cpu", some, 3, "1/1:2/2:5/5", NULL, 0 },
		{ "core", all, 8, "0,1/0,1:2,3/2,3:4,5/4,5:6,7/6,7", NULL, 0 },
		{ "core", some, 3, "1/1:2/2:5/5", NULL, 0 },
		{ "package", all, 8, "0,1,2,3/0,1,2,3:4,5,6,7/4,5,6,7", NULL, 0 },
		{ "numa", some, 3, "1,2/1,2:5/5", NULL, 0 },
		/* a spec that begins with a layout's name, in any case */
		{ "cpus", some, 3, "1/1:2/2:5/5", NULL, 0 },
		{ "CPU:x", all, 2, "0/0:1/1", NULL, 0 },
		{ "Package", all, 8, "0,1,2,3/0,1,2,3:4,5,6,7/4,5,6,7", NULL, 0 },
		{ "0,2-4/2-4:1,5-7/5-7", all, 8, "0,2,3,4/2,3,4:1,5,6,7/5,6,7", NULL, 0 },
		/* both masks filtered through the recorded CPUs (-C) */
		{ "0-3/0-2:4-7/3,5", some, 3, "1,2/1,2:5/5", NULL, 0 },
		/* empty parts skipped, parts past the second ignored, lists read
		 * as the stock's library reads them */
		{ "0//0::1/1", all, 2, "0/0:1/1", NULL, 0 },
		{ "0/0/1/1", all, 2, "0/0", NULL, 0 },
		{ "0-/0:1,/1", all, 2, "0/0:1/1", NULL, 0 },
		{ "0,a/0x1", all, 2, "0/1", NULL, 0 },
		{ "0-1/0-1", all, 2, "0,1/0,1", NULL, 0 },
		{ "0/0:0/1", all, 2, NULL, "Intersecting maps mask: 0", -EINVAL },
		{ "0-1/0:1/1", all, 2, NULL, "Intersecting maps mask: 1", -EINVAL },
		{ "0/1:1/1", all, 2, NULL, "Intersecting affinity mask: 1", -EINVAL },
		{ "1/1", all, 1, NULL, "Empty maps mask: 1", -EINVAL },
		{ "0/0:3/3", some, 3, NULL, "Empty maps mask: 0", -EINVAL },
		{ "1/0", some, 3, NULL, "Empty affinity mask: 0", -EINVAL },
		{ "8/8", all, 8, NULL, "Empty maps mask: 8", -EINVAL },
		{ "foo", all, 2, NULL, "Invalid thread maps or affinity specs", -EINVAL },
		{ "user", all, 2, NULL, "Invalid thread maps or affinity specs", -EINVAL },
		{ "9/9:1", all, 2, NULL, "Invalid thread maps or affinity specs", -EINVAL },
		{ ":", all, 2, NULL, "", -EINVAL },
		{ "9/0", all, 8, NULL, "Failed to initialize maps thread mask", -ENODEV },
		{ "0/011", all, 8, NULL, "Failed to initialize affinity thread mask", -ENODEV },
		{ "0/99999", all, 2, NULL, "Perf can support 2048 CPUs. Consider raising MAX_NR_CPUS\n"
		  "Failed to initialize affinity thread mask", -ENODEV },
		{ "2-1/0", all, 2, NULL, "Failed to initialize maps thread mask", -ENOMEM },
		{ "0,0/0", all, 2, NULL, "Failed to initialize maps thread mask", -ENOMEM },
		{ "a/0", all, 2, NULL, "Failed to initialize maps thread mask", -ENOMEM },
		{ "0/08", all, 2, NULL, "Failed to initialize affinity thread mask", -ENOMEM },
		{ "-1/0", all, 2, NULL, "Failed to initialize maps thread mask", -ENOMEM },
	};

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct threads_cpus tc = { cases[i].cpus, cases[i].nr, 8, fake_group };
		struct threads_spec ts;
		char err[256] = "", got[256];
		int ret = threads_spec__parse(&ts, cases[i].spec, &tc, err, sizeof(err));

		if (!cases[i].masks) {
			TEST_ASSERT(ret == cases[i].ret && !strcmp(err, cases[i].err) && !ts.nr &&
				    !ts.masks, "'%s': %d '%s', want %d '%s'", cases[i].spec, ret, err,
				    cases[i].ret, cases[i].err);
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
	struct threads_cpus tc = { cpus, 2, 2, no_group };
	struct threads_spec ts;
	char err[256] = "";

	(void)ctx;
	TEST_ASSERT(threads_spec__parse(&ts, "core", &tc, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "cpu 0") && !ts.nr, "%s", err);
	/* cpu needs no topology */
	TEST_ASSERT(!threads_spec__parse(&ts, "cpu", &tc, err, sizeof(err)) &&
		    ts.nr == 2, "%s", err);
	threads_spec__exit(&ts);
	return TEST_OK;
}

TEST_SUITE(suite_record_threads, "record/threads", "--threads specs: layouts, masks, refusals",
	   test_threads_specs, test_threads_unknown_group);
