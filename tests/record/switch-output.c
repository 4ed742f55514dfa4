/* --switch-output (record/switch-output.c): its values, the names of the
 * files it rotates to, and how many of them it keeps. */
#include "tests/tests.h"
#include "record/switch-output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --switch-output values: the kind and amount, or the error */
static int test_switch_output(struct test_ctx *ctx)
{
	static const struct {
		const char *spec;
		int err;
		enum switch_kind kind;
		u64 amount;	/* bytes or ns */
	} cases[] = {
		{ NULL, 0, SWITCH_SIGNAL, 0 },
		{ "signal", 0, SWITCH_SIGNAL, 0 },
		{ "100M", 0, SWITCH_SIZE, 100ULL << 20 },
		{ "1B", 0, SWITCH_SIZE, 1 },
		{ "2KB", 0, SWITCH_SIZE, 2048 },
		{ "17179869183G", 0, SWITCH_SIZE, 17179869183ULL << 30 },
		{ "30s", 0, SWITCH_TIME, 30000000000ULL },
		{ "5m", 0, SWITCH_TIME, 300000000000ULL },
		{ "2h", 0, SWITCH_TIME, 7200000000000ULL },
		{ "365d", 0, SWITCH_TIME, SWITCH_OUTPUT_MAX_NS },
		{ "31536000s", 0, SWITCH_TIME, SWITCH_OUTPUT_MAX_NS },
		{ "31536001s", -ERANGE, 0, 0 },
		{ "366d", -ERANGE, 0, 0 },
		{ "18446744073s", -ERANGE, 0, 0 },	/* the ns fit a u64, now + period does not */
		{ "18446744074s", -ERANGE, 0, 0 },	/* the ns do not fit a u64 */
		{ "99999999999999999999999999999999999999999999d", -ERANGE, 0, 0 },
		{ "17179869184G", -ERANGE, 0, 0 },
		{ "0s", -ERANGE, 0, 0 },
		{ "0M", -ERANGE, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "s", -EINVAL, 0, 0 },
		{ "M", -EINVAL, 0, 0 },
		{ "5", -EINVAL, 0, 0 },
		{ "5k", -EINVAL, 0, 0 },
		{ "5x", -EINVAL, 0, 0 },
		{ "-5s", -EINVAL, 0, 0 },
		{ "5 s", -EINVAL, 0, 0 },
		{ "1.5s", -EINVAL, 0, 0 },
		{ "5BB", -EINVAL, 0, 0 },
		{ "signals", -EINVAL, 0, 0 },
	};

	(void)ctx;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct switch_output so = { .kind = SWITCH_NONE };
		int err = switch_output__parse(&so, cases[i].spec);
		u64 amount = so.kind == SWITCH_SIZE ? so.size : so.period_ns;

		TEST_ASSERT(err == cases[i].err, "'%s': %d", cases[i].spec, err);
		if (err) {
			TEST_ASSERT(so.kind == SWITCH_NONE, "'%s' set a kind", cases[i].spec);
			continue;
		}
		TEST_ASSERT(so.kind == cases[i].kind && amount == cases[i].amount,
			    "'%s': kind %d amount %llu", cases[i].spec, so.kind,
			    (unsigned long long)amount);
	}
	return TEST_OK;
}
static int test_triggers(struct test_ctx *ctx)
{
	static const char *const bad[] = { "foo", "10", "0s", "-1s", "10x", "", "s", "1.5s", "0M",
					   "5k" };
	struct switch_output so = { 0 };

	(void)ctx;
	TEST_ASSERT(!switch_output__parse(&so, NULL) && so.kind == SWITCH_SIGNAL, "default");
	TEST_ASSERT(!switch_output__parse(&so, "signal") && so.kind == SWITCH_SIGNAL, "signal");
	TEST_ASSERT(!switch_output__parse(&so, "100M") && so.kind == SWITCH_SIZE &&
		    so.size == 100ULL << 20, "100M");
	TEST_ASSERT(!switch_output__parse(&so, "2K") && so.size == 2048, "2K");
	TEST_ASSERT(!switch_output__parse(&so, "30s") && so.kind == SWITCH_TIME &&
		    so.period_ns == 30000000000ULL, "30s");
	TEST_ASSERT(!switch_output__parse(&so, "5m") && so.period_ns == 300000000000ULL, "5m");
	TEST_ASSERT(!switch_output__parse(&so, "1h") && so.period_ns == 3600000000000ULL, "1h");
	TEST_ASSERT(!switch_output__parse(&so, "2d") && so.period_ns == 172800000000000ULL, "2d");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TEST_ASSERT(switch_output__parse(&so, bad[i]) < 0, "'%s' accepted", bad[i]);
	return TEST_OK;
}

static void count_removed(const char *path, void *arg)
{
	(void)path;
	(*(int *)arg)++;
}

static int test_rotation(struct test_ctx *ctx)
{
	char dir[] = "/tmp/frtest-rot-XXXXXX", base[128], decoy[160], *names[4];
	struct switch_output so = { .kind = SWITCH_SIGNAL, .max_files = 2 };
	int removed = 0;

	(void)ctx;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	snprintf(base, sizeof(base), "%s/perf.data", dir);
	snprintf(decoy, sizeof(decoy), "%s.2000010100000000", base);
	int fd = open(decoy, O_CREAT | O_WRONLY, 0600);

	TEST_ASSERT(fd >= 0, "decoy");
	close(fd);
	/* BASE.YYYYMMDDHHMMSSCC, computed, not looked up; ours never repeat */
	for (int i = 0; i < 3; i++) {
		names[i] = switch_output__name(&so, base);
		TEST_ASSERT(names[i] && !strncmp(names[i], base, strlen(base)) &&
			    names[i][strlen(base)] == '.' && strlen(names[i]) == strlen(base) + 17 &&
			    strspn(names[i] + strlen(base) + 1, "0123456789") == 16, "name %s",
			    names[i]);
		TEST_ASSERT(!i || strcmp(names[i - 1], names[i]) < 0, "%s then %s", names[i - 1],
			    names[i]);
	}
	for (int i = 0; i < 3; i++)
		free(names[i]);
	for (int i = 0; i < 4; i++) {
		TEST_ASSERT(asprintf(&names[i], "%s.%d", base, i) > 0, "asprintf");
		close(open(names[i], O_CREAT | O_WRONLY | O_EXCL, 0600));
		TEST_ASSERT(!switch_output__reserve(&so), "reserve");
		switch_output__created(&so, strdup(names[i]), count_removed, &removed);
	}
	TEST_ASSERT(removed == 2 && access(names[0], F_OK) && access(names[1], F_OK) &&
		    !access(names[2], F_OK) && !access(names[3], F_OK), "kept the newest 2");
	TEST_ASSERT(so.nr_files == 2 && !strcmp(so.files[0], names[2]), "remembered the newest 2");
	TEST_ASSERT(!access(decoy, F_OK), "a file this run did not make was deleted");
	for (int i = 0; i < 4; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	unlink(decoy);
	rmdir(dir);
	switch_output__exit(&so);
	return TEST_OK;
}

/* Creates DIR/NAME with MODE; 0 or -1. */
static int make_file(const char *dir, const char *name, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_EXCL, mode);
	if (fd < 0 || fchmod(fd, mode))
		return -1;
	return close(fd);
}

static int exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

/* --switch-max-files-earlier: the files an earlier run of the same output
 * made count, oldest deleted first; nothing that is not one (another
 * output's, a link, a file of another mode or with two names, a name
 * that is not a timestamp) is counted or touched. */
static int test_adopt(struct test_ctx *ctx)
{
	static const char *const mine[] = {
		"perf.data.2026010100000000", "perf.data.2026010100000001-1",
		"perf.data.2026010100000002-a1b2c3", "perf.data.2026010100000003",
	};
	static const char *const others[] = {
		"perf.data.1999010100000000x", "perf.data.199901010000000", "perf.data.old",
		"perf.data.1999010100000000-4", "other.data.1999010100000000",
		"perf.data.1999010100000001", "perf.data.1999010100000002",
		"perf.data.1999010100000003", "perf.data.1999010100000004",
	};
	char dir[] = "/tmp/frtest-adopt-XXXXXX", base[128], path[256], path2[256], cwd[4096];
	struct switch_output so = { .kind = SWITCH_SIGNAL, .max_files = 2 };
	int removed = 0;

	(void)ctx;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	for (size_t i = 0; i < 4; i++)
		TEST_ASSERT(!make_file(dir, mine[i], 0600), "%s", mine[i]);
	for (size_t i = 0; i < 6; i++)
		TEST_ASSERT(!make_file(dir, others[i], i == 5 ? 0644 : 0600), "%s", others[i]);
	/* a link to a file of ours, a second name of one, a directory */
	snprintf(path, sizeof(path), "%s/%s", dir, mine[3]);
	snprintf(path2, sizeof(path2), "%s/%s", dir, others[6]);
	TEST_ASSERT(!symlink(path, path2), "symlink");
	snprintf(path2, sizeof(path2), "%s/%s", dir, others[7]);
	TEST_ASSERT(!make_file(dir, "hard", 0600), "hard");
	snprintf(path, sizeof(path), "%s/hard", dir);
	TEST_ASSERT(!link(path, path2), "link");
	snprintf(path, sizeof(path), "%s/%s", dir, others[8]);
	TEST_ASSERT(!mkdir(path, 0700), "mkdir");

	snprintf(base, sizeof(base), "%s/none.data", dir);
	TEST_ASSERT(!switch_output__adopt(&so, base, count_removed, &removed) && !so.nr_files,
		    "no earlier file: %d", so.nr_files);
	snprintf(base, sizeof(base), "%s/perf.data", dir);
	TEST_ASSERT(!switch_output__adopt(&so, base, count_removed, &removed), "adopt");
	TEST_ASSERT(removed == 2 && !exists(dir, mine[0]) && !exists(dir, mine[1]) &&
		    exists(dir, mine[2]) && exists(dir, mine[3]), "kept the newest 2 of 4: "
		    "removed %d", removed);
	snprintf(path, sizeof(path), "%s/%s", dir, mine[2]);
	TEST_ASSERT(so.nr_files == 2 && !strcmp(so.files[0], path), "remembered %d: %s",
		    so.nr_files, so.nr_files ? so.files[0] : "");
	for (size_t i = 0; i < 9; i++)
		TEST_ASSERT(exists(dir, others[i]), "%s was touched", others[i]);
	/* a new file of this run: the oldest earlier one goes */
	snprintf(path, sizeof(path), "%s/perf.data.2026010100000004", dir);
	TEST_ASSERT(!make_file(dir, "perf.data.2026010100000004", 0600), "new");
	TEST_ASSERT(!switch_output__reserve(&so), "reserve");
	switch_output__created(&so, strdup(path), count_removed, &removed);
	TEST_ASSERT(removed == 3 && !exists(dir, mine[2]) && exists(dir, mine[3]), "rotation");
	switch_output__exit(&so);
	/* a relative output is looked up in the current directory */
	TEST_ASSERT(getcwd(cwd, sizeof(cwd)) && !chdir(dir), "chdir");
	so = (struct switch_output){ .kind = SWITCH_SIGNAL, .max_files = 1 };
	TEST_ASSERT(!switch_output__adopt(&so, "perf.data", count_removed, &removed), "adopt");
	TEST_ASSERT(so.nr_files == 1 && !strcmp(so.files[0], "perf.data.2026010100000004") &&
		    !exists(dir, mine[3]), "relative: %d", so.nr_files);
	switch_output__exit(&so);
	TEST_ASSERT(!chdir(cwd), "chdir back");
	snprintf(path, sizeof(path), "rm -rf -- %s", dir);
	TEST_ASSERT(!system(path), "cleanup");
	return TEST_OK;
}

TEST_SUITE(suite_record_switch_output, "record/switch-output",
	   "--switch-output: sizes, times and bad values; timestamped names in order; "
	   "--switch-max-files keeps the newest of this run's files only, or with "
	   "--switch-max-files-earlier of every run's",
	   test_switch_output, test_triggers, test_rotation, test_adopt);
