/* perf daemon's files as its clients read them (daemon/daemon-status.c):
 * BASE/status written and read back. */
#include "tests/tests.h"
#include "daemon/daemon-session.h"
#include "daemon/daemon-status.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A session named "daemon" is listed as a session, and the daemon's pid
 * stays the daemon's. */
static int test_status_daemon_session(struct test_ctx *ctx)
{
	struct daemon_session named = { .name = "daemon", .run = "-a -e cpu-clock", .pid = 4242,
					.started = 1000 };
	struct daemon_session other = { .name = "cpu", .run = "-a", .pid = 4343, .started = 1001 };
	struct daemon_session *list[] = { &named, &other };
	struct session_list l = { .s = list, .nr = 2 };
	char base[] = "/tmp/frstatus.XXXXXX", err[PATH_MAX + 64], path[PATH_MAX];
	struct daemon_status *st;

	(void)ctx;
	TEST_ASSERT(mkdtemp(base), "mkdtemp: %s", strerror(errno));
	TEST_ASSERT(!daemon_status__write(base, 777, 555, "/etc/perfconfig", &l, err, sizeof(err)),
		    "%s", err);
	st = daemon_status__new(base);
	snprintf(path, sizeof(path), "%s/status", base);
	unlink(path);
	rmdir(base);
	TEST_ASSERT(st, "daemon_status__new: %s", strerror(errno));
	TEST_ASSERT(st->pid == 777 && st->started == 555, "the daemon: pid %d started %lld",
		    (int)st->pid, (long long)st->started);
	TEST_ASSERT(st->nr == 2, "%d sessions", st->nr);
	TEST_ASSERT(!strcmp(st->sessions[0].name, "daemon") && st->sessions[0].pid == 4242 &&
		    st->sessions[0].started == 1000 &&
		    !strcmp(st->sessions[0].run, "-a -e cpu-clock") &&
		    !strcmp(st->sessions[0].state, "running"),
		    "session 0: %s pid %d run '%s' state '%s'", st->sessions[0].name,
		    (int)st->sessions[0].pid, st->sessions[0].run, st->sessions[0].state);
	TEST_ASSERT(!strcmp(st->sessions[1].name, "cpu") && st->sessions[1].pid == 4343,
		    "session 1: %s pid %d", st->sessions[1].name, (int)st->sessions[1].pid);
	TEST_ASSERT(st->config && !strcmp(st->config, "/etc/perfconfig"), "config %s",
		    st->config ? st->config : "(none)");
	daemon_status__delete(st);
	return TEST_OK;
}

TEST_SUITE(suite_daemon_daemon_status, "daemon/daemon-status",
	   "perf daemon's status and a session's state file, as the clients read them",
	   test_status_daemon_session);
