/* perf test: the registry of unit/ABI suites plus tests/shell/ scripts. */
#include "builtin.h"
#include "tests/tests.h"
#include "lib/parse-options.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHELL_TEST_SKIP 77	/* not 1 or 2: bash exits with those on errors */
#define SHELL_TEST_TIMEOUT 600

static const char *const test_usage[] = {
	"perf test [<options>] [{list <test-name-fragment>|[<test-name-fragments>|<test-numbers>]}]",
	NULL
};

struct shell_test {
	char *path;
	char *desc;
};

struct test_run {
	int verbose;
	const char *shell_dir;
	struct shell_test *shell;
	int nr_shell;
	int passed, failed, skipped;
};

static int cmp_shell(const void *a, const void *b)
{
	return strcmp(((const struct shell_test *)a)->path, ((const struct shell_test *)b)->path);
}

/* The description is the first "# " comment after the shebang. */
static char *shell_desc(const char *path)
{
	char *text = read_file(path, NULL), *line, *desc = NULL;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "# ", 2)) {
			desc = strndup(line + 2, strcspn(line + 2, "\n"));
			break;
		}
	}
	free(text);
	return desc ? desc : strdup(path);
}

/* tests/shell beside the binary (./perf) or one level up (build/perf). */
static const char *find_shell_dir(char *buf, size_t sz)
{
	char exe[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("PERF_TEST_SHELL_DIR");

	if (env)
		return env;
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dir = dirname(exe);
	snprintf(buf, sz, "%s/tests/shell", dir);
	if (!access(buf, R_OK))
		return buf;
	snprintf(buf, sz, "%s/../tests/shell", dir);
	return access(buf, R_OK) ? NULL : buf;
}

static int load_shell_tests(struct test_run *run)
{
	DIR *d = run->shell_dir ? opendir(run->shell_dir) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct shell_test *n;

		if (len < 4 || strcmp(de->d_name + len - 3, ".sh"))
			continue;
		n = realloc(run->shell, (run->nr_shell + 1) * sizeof(*n));
		if (!n)
			break;
		run->shell = n;
		if (asprintf(&n[run->nr_shell].path, "%s/%s", run->shell_dir, de->d_name) < 0)
			break;
		n[run->nr_shell].desc = shell_desc(n[run->nr_shell].path);
		run->nr_shell++;
	}
	if (d)
		closedir(d);
	if (run->nr_shell)
		qsort(run->shell, run->nr_shell, sizeof(*run->shell), cmp_shell);
	return 0;
}

static int nr_builtin(void)
{
	int n = 0;

	while (test_suites[n])
		n++;
	return n;
}

static const char *test_desc(struct test_run *run, int i)
{
	return i < nr_builtin() ? test_suites[i]->desc : run->shell[i - nr_builtin()].desc;
}

static const char *test_name(struct test_run *run, int i)
{
	return i < nr_builtin() ? test_suites[i]->name : run->shell[i - nr_builtin()].path;
}

/* Runs a script in its own process group, killed if it outlives the timeout. */
static int run_shell(struct test_run *run, const struct shell_test *t)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int status = 0;
	pid_t pid;

	exe[n > 0 ? n : 0] = '\0';
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return TEST_FAIL;
	if (pid == 0) {
		setpgid(0, 0);
		setenv("PERF", exe, 0);
		if (run->verbose)
			setenv("PERF_TEST_VERBOSE", "1", 1);
		alarm(SHELL_TEST_TIMEOUT);
		execl("/bin/bash", "bash", t->path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);	/* leftovers of the script */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return TEST_OK;
	if (WIFEXITED(status) && WEXITSTATUS(status) == SHELL_TEST_SKIP)
		return TEST_SKIP;
	if (WIFSIGNALED(status))
		fprintf(stderr, "  killed by signal %d%s\n", WTERMSIG(status),
			WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
	return TEST_FAIL;
}

static void run_one(struct test_run *run, int i)
{
	struct test_ctx ctx = { .verbose = run->verbose };
	int ret;

	printf("%3d: %-60s:", i + 1, test_desc(run, i));
	fflush(stdout);
	if (run->verbose)
		printf("\n");
	if (i < nr_builtin())
		ret = test_suites[i]->fn(&ctx);
	else
		ret = run_shell(run, &run->shell[i - nr_builtin()]);
	switch (ret) {
	case TEST_OK:
		printf(" Ok\n");
		run->passed++;
		break;
	case TEST_SKIP:
		printf(" Skip%s%s%s\n", ctx.skip_reason[0] ? " (" : "", ctx.skip_reason,
		       ctx.skip_reason[0] ? ")" : "");
		run->skipped++;
		break;
	default:
		printf(" FAILED!\n");
		run->failed++;
	}
	fflush(stdout);
}

/* Whether word names test i: a number that test's, any other word a
 * fragment of its name or description. */
static int test_matches(struct test_run *run, int i, const char *word, size_t len)
{
	char buf[256], *end;
	long n;

	snprintf(buf, sizeof(buf), "%.*s", (int)MIN(len, sizeof(buf) - 1), word);
	n = strtol(buf, &end, 10);
	if (!*end)
		return n == i + 1;
	return strcasestr(test_desc(run, i), buf) || strcasestr(test_name(run, i), buf);
}

/* A test the arguments select (all without any) and --skip's
 * comma-separated list does not name. */
static int selected(struct test_run *run, int i, int argc, const char **argv, const char *skip)
{
	int in = argc == 0;

	for (int a = 0; a < argc && !in; a++)
		in = test_matches(run, i, argv[a], strlen(argv[a]));
	for (const char *p = skip; in && p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ",");

		if (len && test_matches(run, i, p, len))
			in = 0;
	}
	return in;
}

static void test_run__exit(struct test_run *run)
{
	for (int i = 0; i < run->nr_shell; i++) {
		free(run->shell[i].path);
		free(run->shell[i].desc);
	}
	free(run->shell);
}

int cmd_test(int argc, const char **argv)
{
	struct test_run run = { 0 };
	char dirbuf[PATH_MAX];
	const char *workload = NULL, *skip = NULL;
	const struct option options[] = {
		OPT_COUNT('v', "verbose", &run.verbose, "be more verbose"),
		OPT_STR('s', "skip", &skip, "tests", "tests to skip: numbers or name fragments, "
			"comma-separated"),
		OPT_STR('w', "workload", &workload, "name", "run a built-in test workload"),
		OPT_TERMINATOR
	};
	int total, list = 0, ran = 0;

	argc = parse_options(argc, argv, options, test_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (workload)
		return test_workload(workload, argc, argv);
	run.shell_dir = find_shell_dir(dirbuf, sizeof(dirbuf));
	load_shell_tests(&run);
	total = nr_builtin() + run.nr_shell;
	if (argc > 0 && !strcmp(argv[0], "list")) {
		list = 1;
		argv++;
		argc--;
	}
	for (int i = 0; i < total; i++) {
		if (!selected(&run, i, argc, argv, skip))
			continue;
		ran++;
		if (list)
			printf("%3d: %s\n", i + 1, test_desc(&run, i));
		else
			run_one(&run, i);
	}
	test_run__exit(&run);
	if (list)
		return 0;
	if (!ran) {
		pr_err("perf test: no test matches '%s'\n", argc ? argv[0] : "");
		return 1;
	}
	printf("%d passed, %d failed, %d skipped\n", run.passed, run.failed, run.skipped);
	return run.failed ? 1 : 0;
}
