/* Hands the commands this perf does not implement over to the
 * distribution's perf, never to itself. */
#include "lib/exec-cmd.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Counts, in the environment of the perf we run, the hand-overs in a row:
 * a wrapper in PATH that runs this perf again would loop for ever. Not a
 * plain "seen" mark: the stock perf's own scripts (perf archive) run
 * `perf buildid-list`, which may be this perf again, legitimately. */
#define EXEC_DEPTH "PERF_EXEC_DEPTH"
#define EXEC_DEPTH_MAX 8

/* A regular executable file that is not the binary ME (dev:ino). */
static int other_perf(const char *path, const struct stat *me)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK) &&
	       !(st.st_dev == me->st_dev && st.st_ino == me->st_ino);
}

/* The first other perf in the colon-separated DIRS: 1 with path filled. */
static int search_dirs(const char *dirs, const struct stat *me, char *path, size_t sz)
{
	const char *p = dirs;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len && (size_t)snprintf(path, sz, "%.*s/perf", (int)len, p) < sz &&
		    other_perf(path, me))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int find_other(const struct stat *me, char *path, size_t sz)
{
	const char *exec_path = getenv("PERF_EXEC_PATH");
	struct stat st;

	if (exec_path && *exec_path) {
		if (!stat(exec_path, &st) && S_ISREG(st.st_mode)) {
			snprintf(path, sz, "%s", exec_path);
			if (other_perf(path, me))
				return 1;
		} else if (search_dirs(exec_path, me, path, sz)) {
			return 1;
		}
	}
	return search_dirs(getenv("PATH"), me, path, sz);
}

int exec_cmd__other_perf(int argc, const char **argv, const char *buildid_dir)
{
	const char *depth_env = getenv(EXEC_DEPTH), **args;
	int depth = depth_env ? atoi(depth_env) : 0;
	char path[PATH_MAX], next[16];
	struct stat me;
	int n = 0;

	if (stat("/proc/self/exe", &me)) {
		pr_err("perf: '%s' is not built into this perf, and /proc/self/exe: %s\n", argv[0],
		       strerror(errno));
		return 1;
	}
	if (depth >= EXEC_DEPTH_MAX) {
		pr_err("perf: '%s' is not built into this perf, and %d perfs in a row handed it on "
		       "(a wrapper that runs this perf again?): set PERF_EXEC_PATH to the "
		       "distribution's perf\n", argv[0], depth);
		return 1;
	}
	if (!find_other(&me, path, sizeof(path))) {
		pr_err("perf: '%s' is not built into this perf, and no other perf is in "
		       "PERF_EXEC_PATH or PATH (Debian: apt-get install linux-perf)\n", argv[0]);
		return 1;
	}
	snprintf(next, sizeof(next), "%d", depth + 1);
	args = calloc(argc + 4, sizeof(*args));
	if (!args || setenv(EXEC_DEPTH, next, 1)) {
		pr_err("perf: running %s %s: %s\n", path, argv[0], strerror(ENOMEM));
		free(args);
		return 1;
	}
	args[n++] = "perf";
	if (buildid_dir) {
		args[n++] = "--buildid-dir";
		args[n++] = buildid_dir;
	}
	memcpy(args + n, argv, argc * sizeof(*argv));
	execv(path, (char *const *)args);
	pr_err("perf: running %s %s: %s\n", path, argv[0], strerror(errno));
	free(args);
	return 1;
}
