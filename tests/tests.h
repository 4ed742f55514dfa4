/* What every test file shares: a suite, its verdicts and asserts, and the
 * helpers kept in tests/ for several suites. */
#ifndef PERF_TESTS_H
#define PERF_TESTS_H

#include <stdio.h>

enum { TEST_OK = 0, TEST_FAIL = -1, TEST_SKIP = -2 };

struct test_ctx {
	int verbose;
	char skip_reason[256];
};

struct test_suite {
	const char *name;	/* what `perf test NAME` matches */
	const char *desc;
	int (*fn)(struct test_ctx *ctx);
};

#define TEST_ASSERT(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "  FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
		return TEST_FAIL;					\
	}								\
} while (0)

#define TEST_SKIP_BECAUSE(ctx, ...) do {				\
	snprintf((ctx)->skip_reason, sizeof((ctx)->skip_reason), __VA_ARGS__); \
	return TEST_SKIP;						\
} while (0)

/* A suite's case: TEST_OK, TEST_FAIL or TEST_SKIP. */
typedef int (*test_case_fn)(struct test_ctx *ctx);

/* Runs nr cases in order until one does not pass: TEST_OK, or that one's
 * verdict. */
int test__run_cases(struct test_ctx *ctx, const test_case_fn *cases, size_t nr);
#define TEST_RUN_CASES(ctx, ...)						\
	test__run_cases(ctx, (const test_case_fn[]){ __VA_ARGS__ },		\
			sizeof((const test_case_fn[]){ __VA_ARGS__ }) / sizeof(test_case_fn))

/* The suite var, named name (what `perf test NAME` matches): its cases in
 * order, until one does not pass. */
#define TEST_SUITE(var, name, desc, ...)					\
	static int var##__run(struct test_ctx *ctx)				\
	{									\
		return TEST_RUN_CASES(ctx, __VA_ARGS__);			\
	}									\
	const struct test_suite var = { name, desc, var##__run }

#define TEST_LOG(ctx, ...) do { if ((ctx)->verbose) fprintf(stderr, __VA_ARGS__); } while (0)

/* Whether LeakSanitizer finds memory leaked so far (tests/leaks.c); 0
 * in a build without it. */
int test__leaked(void);

/* `perf test -w NAME [ARGS]`: the workloads the shell tests record. */
int test_workload(const char *name, int argc, const char **argv);

/* The offset and size of syscalls:sys_enter_close's fd in its raw data,
 * from the format under the tracefs dir; 0 or -errno (-EINVAL: a format
 * not understood). */
int test__close_fd_field(const char *dir, int *off, int *size);

struct evlist;
struct perf_event_attr;
/* An evlist of event (a tracepoint), write_backward and disabled, on the
 * CPUs of cpu_list ("0,1") and any task, or with NULL on this thread, its
 * attr finished by tune, opened, with its twins if asked, and mapped with
 * backward rings of ring_bytes. The caller deletes it; NULL with *ret
 * -errno and why in err. */
struct evlist *test__open_backward(const char *event, const char *cpu_list, int twins,
				   void (*tune)(struct perf_event_attr *a), size_t ring_bytes,
				   char *err, size_t errsz, int *ret);
/* An evlist that looks opened (tests/fake-evlist.c): events cpu-clock and
 * task-clock with ids 100 and 101, sample_type IDENTIFIER, IP, TID, TIME,
 * CPU, PERIOD. */
#define FAKE_EVLIST_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
struct evlist *fake_evlist(void);

/* Every suite, in the order `perf test list` shows them. */
extern const struct test_suite *const test_suites[];

#endif
