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

#define TEST_LOG(ctx, ...) do { if ((ctx)->verbose) fprintf(stderr, __VA_ARGS__); } while (0)

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
/* An evlist that looks opened (tests/data.c): events cpu-clock and
 * task-clock with ids 100 and 101, sample_type IDENTIFIER, IP, TID, TIME,
 * CPU, PERIOD. */
struct evlist *fake_evlist(void);

/* Every suite, in the order `perf test list` shows them. */
extern const struct test_suite *const test_suites[];

#endif
