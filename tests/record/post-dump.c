/* --switch-output-exec's runs (record/post-dump.c): "{}" made "$1", one
 * run at a time with a bounded queue that drops its oldest, a rotated
 * file's run dropped, a run over its time killed with its group, the end
 * dropping what waits and stopping what runs. */
#include "tests/tests.h"
#include "record/post-dump.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_post_dump_script(struct test_ctx *ctx)
{
	struct post_dump pd = { .sp = { .pid = -1 } };

	(void)ctx;
	TEST_ASSERT(!post_dump__set(&pd, "ship {} --to x"), "set");
	TEST_ASSERT(!strcmp(pd.script, "ship \"$1\" --to x"), "'%s'", pd.script);
	TEST_ASSERT(!post_dump__set(&pd, "ship"), "set");
	TEST_ASSERT(!strcmp(pd.script, "ship \"$1\""), "'%s'", pd.script);
	TEST_ASSERT(!post_dump__set(&pd, NULL) && !post_dump__on(&pd), "unset");
	return TEST_OK;
}

/* Serves pd until cond holds, 10 s at most. */
#define SERVE_UNTIL(pd, cond) do {					\
	for (int i_ = 0; i_ < 1000 && !(cond); i_++) {			\
		post_dump__serve(pd);					\
		if (!(cond))						\
			usleep(10000);					\
	}								\
} while (0)

static int test_post_dump_queue(struct test_ctx *ctx)
{
	struct post_dump pd = { .sp = { .pid = -1 }, .timeout_ns = 60000000000ULL,
				.st = { .last_status = -1 } };
	char path[64];
	pid_t first;

	(void)ctx;
	TEST_ASSERT(!post_dump__set(&pd, "exec sleep 60; : {}"), "set");
	/* the first runs at once, 16 wait, the 18th drops the oldest waiting */
	for (int i = 0; i < POST_DUMP_QUEUE_MAX + 2; i++) {
		snprintf(path, sizeof(path), "/nonexistent/perf.data.%02d", i);
		post_dump__add(&pd, path, "signal");
	}
	first = pd.sp.pid;
	TEST_ASSERT(first > 0 && pd.st.runs == 1, "pid %d, %llu runs", first,
		    (unsigned long long)pd.st.runs);
	TEST_ASSERT(pd.q_nr == POST_DUMP_QUEUE_MAX && pd.st.dropped == 1, "%d queued, %llu dropped",
		    pd.q_nr, (unsigned long long)pd.st.dropped);
	TEST_ASSERT(!strcmp(pd.q[pd.q_head].path, "/nonexistent/perf.data.02"),
		    "the oldest queued is %s, not 02", pd.q[pd.q_head].path);
	/* --switch-max-files removed one that waits: it gets no run */
	post_dump__forget(&pd, "perf.data.05");
	TEST_ASSERT(pd.q_nr == POST_DUMP_QUEUE_MAX - 1 && pd.st.dropped == 2, "%d queued",
		    pd.q_nr);
	for (int i = 0; i < pd.q_nr; i++)
		TEST_ASSERT(!strstr(pd.q[(pd.q_head + i) % POST_DUMP_QUEUE_MAX].path, ".05"),
			    "05 still queued");
	TEST_ASSERT(post_dump__changed(&pd) && !post_dump__changed(&pd), "changed, said once");
	/* over its time: killed, its group with it, and the next one runs */
	pd.timeout_ns = 1;
	post_dump__serve(&pd);
	TEST_ASSERT(pd.st.killed == 1, "killed %llu", (unsigned long long)pd.st.killed);
	SERVE_UNTIL(&pd, pd.sp.pid != first);
	TEST_ASSERT(pd.sp.pid > 0 && pd.sp.pid != first && pd.st.runs == 2, "the next run: %d",
		    pd.sp.pid);
	TEST_ASSERT(kill(first, 0) && WIFSIGNALED(pd.st.last_status) &&
		    WTERMSIG(pd.st.last_status) == SIGKILL, "status %#x", pd.st.last_status);
	/* the end: what waits is dropped, what runs is stopped and reaped */
	pd.timeout_ns = 60000000000ULL;
	first = pd.sp.pid;
	post_dump__end(&pd);
	TEST_ASSERT(pd.sp.pid == -1 && !pd.q_nr && kill(first, 0), "a run left at the end");
	TEST_ASSERT(pd.st.dropped == 2 + POST_DUMP_QUEUE_MAX - 2, "dropped %llu",
		    (unsigned long long)pd.st.dropped);
	post_dump__add(&pd, "/nonexistent/last", "exit");
	TEST_ASSERT(pd.sp.pid == -1 && !pd.q_nr && pd.st.dropped == POST_DUMP_QUEUE_MAX + 1,
		    "a dump after the end runs");
	post_dump__exit(&pd);
	return TEST_OK;
}

/* A run's output is logged, its exit status kept; a failing one counted. */
static int test_post_dump_status(struct test_ctx *ctx)
{
	struct post_dump pd = { .sp = { .pid = -1 }, .timeout_ns = 60000000000ULL,
				.st = { .last_status = -1 } };

	(void)ctx;
	TEST_ASSERT(!post_dump__set(&pd, "test \"$PERF_DUMP_TRIGGER\" = time && exit 7; : {}"),
		    "set");
	post_dump__add(&pd, "/nonexistent/a", "time");
	SERVE_UNTIL(&pd, pd.sp.pid <= 0);
	TEST_ASSERT(pd.st.runs == 1 && pd.st.failed == 1 && WIFEXITED(pd.st.last_status) &&
		    WEXITSTATUS(pd.st.last_status) == 7, "runs %llu failed %llu status %#x",
		    (unsigned long long)pd.st.runs, (unsigned long long)pd.st.failed,
		    pd.st.last_status);
	post_dump__exit(&pd);
	return TEST_OK;
}

/* A dump whose run cannot even be named (the working directory gone, so
 * no absolute path): the line that says so escapes the dump's name, which
 * a local user may have chosen, as every other line of a run does. */
static int test_post_dump_no_path(struct test_ctx *ctx)
{
	struct post_dump pd = { .sp = { .pid = -1 }, .timeout_ns = 60000000000ULL,
				.st = { .last_status = -1 } };
	char dir[] = "/tmp/perf-test-pd-XXXXXX", log[PATH_MAX], cwd[PATH_MAX], text[512] = "";
	int fd, saved = dup(2);
	ssize_t n = -1;

	(void)ctx;
	TEST_ASSERT(saved >= 0 && getcwd(cwd, sizeof(cwd)) && mkdtemp(dir), "setup");
	TEST_ASSERT(!post_dump__set(&pd, ": {}"), "set");
	snprintf(log, sizeof(log), "%s.log", dir);
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC, 0600);
	/* the suites after this one run in the directory they started in */
	if (fd < 0 || chdir(dir) || rmdir(dir)) {
		TEST_ASSERT(!chdir(cwd), "back to %s", cwd);
		TEST_ASSERT(0, "a gone cwd");
	}
	fflush(stderr);
	dup2(fd, 2);
	post_dump__add(&pd, "perf.data\n[ forged line ]", "signal");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (!chdir(cwd))
		n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	unlink(log);
	post_dump__exit(&pd);
	TEST_ASSERT(n > 0 && pd.st.dropped == 1, "no line (%zd), %llu dropped", n,
		    (unsigned long long)pd.st.dropped);
	text[n] = '\0';
	/* one line: the name's newline written as "\n" */
	TEST_ASSERT(strstr(text, "perf.data\\n[ forged line ]: no run") &&
		    strchr(text, '\n') == text + n - 1, "the name not escaped: '%s'", text);
	return TEST_OK;
}

TEST_SUITE(suite_record_post_dump, "record/post-dump",
	   "--switch-output-exec: \"$1\", the queue and its drops, the timeout's kill, the end",
	   test_post_dump_script, test_post_dump_queue, test_post_dump_status,
	   test_post_dump_no_path);
