/* Shell commands run apart (lib/spawn.c): the argument reaches the script
 * as "$1" and is never parsed, the child leads its own process group,
 * holds none of the caller's fds, reads /dev/null, and spawn__kill()
 * reaches what it started. */
#include "tests/tests.h"
#include "lib/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Everything the child wrote, until EOF (10 s at most). */
static int read_all(int fd, char *buf, size_t sz)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	while (len < sz - 1 && poll(&pfd, 1, 10000) > 0) {
		n = read(fd, buf + len, sz - 1 - len);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		len += n > 0 ? (size_t)n : 0;
	}
	buf[len] = '\0';
	return (int)len;
}

static int test_spawn_shell(struct test_ctx *ctx)
{
	const char *hostile = "/tmp/x'; touch /tmp/perf-spawn-pwned; echo \"$(id)\n";
	const char *script = "printf '%s|' \"$1\"; echo \"$0\" >&2; ps -o pgid= -p $$; "
			     "cat; ls /proc/$$/fd | tr '\\n' ' '; exit 3";
	char out[4096], want[512];
	struct spawn sp;
	int leak = open("/dev/null", O_RDONLY), status, err;

	(void)ctx;
	unlink("/tmp/perf-spawn-pwned");
	TEST_ASSERT(leak >= 0, "open: %s", strerror(errno));
	err = spawn__shell(&sp, script, "perf-hook", hostile, environ);
	close(leak);
	TEST_ASSERT(!err, "spawn: %s", strerror(-err));
	TEST_ASSERT(read_all(sp.out_fd, out, sizeof(out)) > 0, "no output");
	close(sp.out_fd);
	TEST_ASSERT(waitpid(sp.pid, &status, 0) == sp.pid, "waitpid: %s", strerror(errno));
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %#x", status);
	snprintf(want, sizeof(want), "%s|perf-hook\n", hostile);
	TEST_ASSERT(!strncmp(out, want, strlen(want)), "the argument came as '%s', want '%s'",
		    out, want);
	TEST_ASSERT(access("/tmp/perf-spawn-pwned", F_OK), "the argument was run as a command");
	TEST_ASSERT(atoi(out + strlen(want)) == sp.pid, "its process group %d, not its own %d",
		    atoi(out + strlen(want)), (int)sp.pid);
	/* stdin /dev/null: cat ends at once; fds 0-2 and ls's own only */
	TEST_ASSERT(strstr(out, "\n0 1 2 ") && !strstr(out, " 4 ") && !strstr(out, " 5 "),
		    "the child's fds: %s", strchr(out, '\n'));
	return TEST_OK;
}

static int test_spawn_kill(struct test_ctx *ctx)
{
	struct spawn sp;
	char out[256];
	int status, err = spawn__shell(&sp, "sleep 60 & echo $!; wait", "hook", "x", environ);
	pid_t bg;

	(void)ctx;
	TEST_ASSERT(!err, "spawn: %s", strerror(-err));
	/* the first line: the background sleep's pid */
	{
		struct pollfd pfd = { .fd = sp.out_fd, .events = POLLIN };
		ssize_t n = poll(&pfd, 1, 10000) > 0 ? read(sp.out_fd, out, sizeof(out) - 1) : -1;

		TEST_ASSERT(n > 0, "no pid from the hook");
		out[n] = '\0';
	}
	bg = atoi(out);
	TEST_ASSERT(bg > 0 && getpgid(bg) == sp.pid, "sleep %d is in group %d, not %d", bg,
		    getpgid(bg), sp.pid);
	TEST_ASSERT(!spawn__kill(&sp, SIGKILL), "kill: %s", strerror(errno));
	TEST_ASSERT(waitpid(sp.pid, &status, 0) == sp.pid && WIFSIGNALED(status), "status %#x",
		    status);
	/* the sleep, a grandchild, is reaped by init: its pid goes away */
	for (int i = 0; i < 1000 && !kill(bg, 0); i++)
		usleep(10000);
	TEST_ASSERT(kill(bg, 0) && errno == ESRCH, "the background sleep %d lives on", bg);
	close(sp.out_fd);
	return TEST_OK;
}

TEST_SUITE(suite_lib_spawn, "lib/spawn", "Shell commands run apart: argument, group, fds",
	   test_spawn_shell, test_spawn_kill);
