/* Output files: checked before recording, invisible until complete, never
 * replacing what is not ours, nothing left behind by a crash. */
#include "tests/tests.h"
#include "perfdata/data.h"
#include "util/evlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Entries of dir, dot files included ("." and ".." not). */
static int nr_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static struct evlist *empty_evlist(void)
{
	return evlist__new();
}

static int write_data(const char *path, int keep_old, char *placed, size_t placed_sz)
{
	struct evlist *l = empty_evlist();
	struct header_info info = { .evlist = l };
	struct perf_data d;
	char err[512];
	int ret = l ? perf_data__create(&d, path, l, err, sizeof(err)) : -ENOMEM;

	if (!ret)
		ret = perf_data__write(&d, "12345678", 8);
	if (!ret)
		ret = perf_data__commit(&d, &info, keep_old, err, sizeof(err));
	else if (l)
		perf_data__abort(&d);
	if (!ret)
		snprintf(placed, placed_sz, "%s", d.placed);
	evlist__delete(l);
	return ret;
}

static int check_refused(const char *path, int timestamped, const char *want)
{
	char err[512];
	int ret = perf_data__check_path(path, timestamped, err, sizeof(err));

	TEST_ASSERT(ret < 0 && strstr(err, want), "'%s': %d '%s' lacks '%s'", path, ret, err, want);
	return TEST_OK;
}

static int test_check_path(const char *dir)
{
	char p[256], q[256], err[512];
	struct stat st;

	TEST_ASSERT(check_refused("", 0, "empty file name") == TEST_OK, "empty");
	TEST_ASSERT(check_refused("-", 0, "pipe") == TEST_OK, "pipe");
	snprintf(p, sizeof(p), "%s/link.data", dir);
	snprintf(q, sizeof(q), "%s/victim", dir);
	TEST_ASSERT(!symlink(q, p), "symlink");
	TEST_ASSERT(check_refused(p, 0, "symbolic link") == TEST_OK, "symlink");
	TEST_ASSERT(!lstat(p, &st) && S_ISLNK(st.st_mode) && access(q, F_OK), "link untouched");
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo.data", dir);
	TEST_ASSERT(!mkfifo(p, 0600), "mkfifo");
	TEST_ASSERT(check_refused(p, 0, "not a regular file") == TEST_OK, "fifo");
	unlink(p);
	snprintf(p, sizeof(p), "%s/nodir/x.data", dir);
	TEST_ASSERT(check_refused(p, 0, "No such file or directory") == TEST_OK, "no dir");
	TEST_ASSERT(check_refused(p, 1, "No such file or directory") == TEST_OK, "no dir, timestamped");
	/* a directory moves aside at once, as the stock perf does */
	snprintf(p, sizeof(p), "%s/d.data", dir);
	snprintf(q, sizeof(q), "%s/d.data.old", dir);
	TEST_ASSERT(!mkdir(p, 0700), "mkdir");
	TEST_ASSERT(!perf_data__check_path(p, 0, err, sizeof(err)), "%s", err);
	TEST_ASSERT(access(p, F_OK) && !stat(q, &st) && S_ISDIR(st.st_mode), "dir moved to .old");
	rmdir(q);
	TEST_ASSERT(nr_entries(dir) == 0, "the check left something: %d entries", nr_entries(dir));
	return TEST_OK;
}

/* Named temporaries of dead runs go; a live run's stay. */
static int test_leftovers(const char *dir)
{
	char dead[300], live[300], p[256], err[512];
	pid_t pid = fork();

	TEST_ASSERT(pid >= 0, "fork");
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(dead, sizeof(dead), "%s/.x.data.tmp.%d.AbCdEf", dir, (int)pid);
	snprintf(live, sizeof(live), "%s/.x.data.tmp.%d.AbCdEf", dir, (int)getppid());
	close(open(dead, O_CREAT | O_WRONLY, 0600));
	close(open(live, O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof(p), "%s/x.data", dir);
	TEST_ASSERT(!perf_data__check_path(p, 0, err, sizeof(err)), "%s", err);
	TEST_ASSERT(access(dead, F_OK) && !access(live, F_OK), "dead run's leftover removed, "
		    "live one's kept");
	unlink(live);
	return TEST_OK;
}

/* A file being written has no name; kill -9 then leaves nothing. */
static int test_unnamed(const char *dir)
{
	char p[256], err[512];
	int sync[2], status, fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	pid_t pid;

	if (fd < 0) {
		fprintf(stderr, "  SKIP: %s has no O_TMPFILE: %s\n", dir, strerror(errno));
		return TEST_SKIP;
	}
	close(fd);

	snprintf(p, sizeof(p), "%s/k.data", dir);
	TEST_ASSERT(!pipe(sync), "pipe");
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		struct evlist *l = empty_evlist();
		struct perf_data d;

		if (!l || perf_data__create(&d, p, l, err, sizeof(err)) ||
		    perf_data__write(&d, p, sizeof(p)))
			_exit(1);
		if (write(sync[1], "c", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	TEST_ASSERT(read(sync[0], err, 1) == 1, "child could not create its file");
	TEST_ASSERT(nr_entries(dir) == 0, "a file being written is visible: %d entries",
		    nr_entries(dir));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(sync[0]);
	TEST_ASSERT(nr_entries(dir) == 0, "kill -9 left %d entries", nr_entries(dir));
	return TEST_OK;
}

/* Timestamped names never replace a file: a taken name gets a suffix. */
static int test_no_replace(const char *dir)
{
	char p[256], placed[PATH_MAX], decoy_text[8] = "";
	int fd;

	snprintf(p, sizeof(p), "%s/t.data.2000010100000000", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	TEST_ASSERT(fd >= 0 && write(fd, "decoy", 5) == 5, "decoy");
	close(fd);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "first");
	TEST_ASSERT(!strcmp(placed + strlen(p), "-1"), "placed as %s", placed);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "second");
	TEST_ASSERT(!strcmp(placed + strlen(p), "-2"), "placed as %s", placed);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "third");
	/* every predictable name taken: a random suffix, never a lost file */
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "fourth");
	TEST_ASSERT(placed[strlen(p)] == '-' && strlen(placed) == strlen(p) + 7 &&
		    strspn(placed + strlen(p) + 1, "abcdefghijklmnopqrstuvwxyz0123456789") == 6,
		    "placed as %s", placed);
	fd = open(p, O_RDONLY);
	TEST_ASSERT(fd >= 0 && read(fd, decoy_text, 5) == 5 && !strcmp(decoy_text, "decoy"),
		    "the decoy was replaced");
	close(fd);
	/* the plain name keeps perf's PATH.old, and replaces an empty file */
	snprintf(p, sizeof(p), "%s/plain.data", dir);
	close(open(p, O_CREAT | O_WRONLY, 0600));
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed, p), "plain");
	strcat(p, ".old");
	TEST_ASSERT(access(p, F_OK), "an empty file was kept as .old");
	p[strlen(p) - 4] = '\0';
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed, p), "plain again");
	strcat(p, ".old");
	TEST_ASSERT(!access(p, F_OK), "no .old");
	/* .old cannot be replaced (a directory there): the data goes to a
	 * suffixed name instead of being lost */
	unlink(p);
	TEST_ASSERT(!mkdir(p, 0700), "mkdir .old");
	p[strlen(p) - 4] = '\0';
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed + strlen(p), "-1"),
		    "placed as %s", placed);
	return TEST_OK;
}

static void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[600];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (unlink(p))
			rmdir(p);
	}
	if (d)
		closedir(d);
}

static int test_output(struct test_ctx *ctx)
{
	char dir[] = "/tmp/frtest-out-XXXXXX";
	int (*const steps[])(const char *) = {
		test_check_path, test_leftovers, test_unnamed, test_no_replace,
	};
	int ret = TEST_OK;

	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	int skipped = 0;

	for (size_t i = 0; i < ARRAY_SIZE(steps) && ret != TEST_FAIL; i++) {
		ret = steps[i](dir);
		skipped |= ret == TEST_SKIP;
		clean_dir(dir);
	}
	rmdir(dir);
	if (ret != TEST_FAIL && skipped)
		TEST_SKIP_BECAUSE(ctx, "no O_TMPFILE in /tmp: the unnamed-file step did not run");
	return ret;
}

const struct test_suite suite_output = {
	"output", "Output files: checked first, unnamed until complete, never replacing",
	test_output,
};
