/* What every BPF feature shares (bpf/loader.c): the one line that says
 * why BPF cannot run here (no BTF, no permission, no hook), and libbpf's
 * messages silent without -v. */
#include "tests/tests.h"
#include "bpf/loader.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static const char *const switch_hook[] = { "tp_btf/sched_switch", NULL };

static int test_loader_skip_no_btf(struct test_ctx *ctx)
{
	if (access(BPF_LOADER_BTF, R_OK))
		TEST_SKIP_BECAUSE(ctx, "%s: %s", BPF_LOADER_BTF, strerror(errno));
	if (geteuid())
		TEST_SKIP_BECAUSE(ctx, "loading BPF programs needs root");
	return TEST_OK;
}

static int test_loader_btf_missing(struct test_ctx *ctx)
{
	char err[512];
	int ret;

	(void)ctx;
	setenv(BPF_LOADER_BTF_ENV, "/nonexistent/vmlinux", 1);
	ret = bpf_loader__check("--off-cpu", switch_hook, err, sizeof(err));
	unsetenv(BPF_LOADER_BTF_ENV);
	TEST_ASSERT(ret == -ENOENT, "ret %d", ret);
	TEST_ASSERT(!strcmp(err, "--off-cpu: cannot load BPF: /nonexistent/vmlinux: "
			    "No such file or directory"), "'%s'", err);
	TEST_ASSERT(!strcmp(bpf_loader__btf_path(), BPF_LOADER_BTF), "%s", bpf_loader__btf_path());
	return TEST_OK;
}

static int test_loader_ok(struct test_ctx *ctx)
{
	char err[512] = "";
	int ret = bpf_loader__check("--off-cpu", switch_hook, err, sizeof(err));

	(void)ctx;
	TEST_ASSERT(ret == 0, "ret %d: %s", ret, err);
	return TEST_OK;
}

static int test_loader_no_hook(struct test_ctx *ctx)
{
	static const char *const hooks[] = { "tp_btf/sched_switch", "tp_btf/no_such_hook_here",
					     NULL };
	char err[512];
	int ret = bpf_loader__check("--off-cpu", hooks, err, sizeof(err));

	(void)ctx;
	TEST_ASSERT(ret == -EOPNOTSUPP, "ret %d", ret);
	TEST_ASSERT(!strcmp(err, "--off-cpu: cannot load BPF: the kernel has no "
			    "tp_btf/no_such_hook_here hook (" BPF_LOADER_BTF ")"), "'%s'", err);
	return TEST_OK;
}

/* As nobody (uid 65534, no capabilities left): the line names bpf()'s
 * EPERM. */
static int test_loader_no_permission(struct test_ctx *ctx)
{
	char err[512] = "";
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	(void)ctx;
	TEST_ASSERT(!pipe(pfd), "pipe: %s", strerror(errno));
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		int ret = -1;

		close(pfd[0]);
		if (!setgroups(0, NULL) && !setresgid(65534, 65534, 65534) &&
		    !setresuid(65534, 65534, 65534))
			ret = bpf_loader__check("--off-cpu", switch_hook, err, sizeof(err));
		if (ret == -EPERM && write(pfd[1], err, strlen(err)) < 0)
			_exit(2);
		_exit(ret == -EPERM ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], err, sizeof(err) - 1);
	close(pfd[0]);
	err[n > 0 ? n : 0] = 0;
	TEST_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    !WEXITSTATUS(status), "status %#x, '%s'", status, err);
	TEST_ASSERT(!strcmp(err, "--off-cpu: cannot load BPF: bpf(BPF_PROG_LOAD): Operation not "
			    "permitted (needs CAP_BPF and CAP_PERFMON, or root)"), "'%s'", err);
	return TEST_OK;
}

/* What libbpf says about an object it cannot open, on stderr at verbose
 * v: its bytes. -errno on a failure of the test's own. */
static long loader_libbpf_says(int verbose)
{
	static const char junk[64] = "not an ELF file";
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct bpf_object *obj;
	long len;

	if (!tmp || saved < 0)
		return -errno;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	bpf_loader__set_print(verbose);
	obj = bpf_object__open_mem(junk, sizeof(junk), NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	bpf_loader__set_print(0);
	bpf_object__close(obj);
	len = ftell(tmp);
	fclose(tmp);
	return len;
}

static int test_loader_print(struct test_ctx *ctx)
{
	long quiet = loader_libbpf_says(0), loud = loader_libbpf_says(1);

	(void)ctx;
	TEST_ASSERT(quiet == 0, "libbpf said %ld bytes without -v", quiet);
	TEST_ASSERT(loud > 0, "libbpf said nothing with -v (%ld)", loud);
	return TEST_OK;
}

TEST_SUITE(suite_bpf_loader, "bpf/loader", "BPF: why it cannot run here, libbpf's lines on -v",
	   test_loader_btf_missing, test_loader_print, test_loader_skip_no_btf, test_loader_ok,
	   test_loader_no_hook, test_loader_no_permission);
