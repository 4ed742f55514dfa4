/* perf record's loop (record/loop.c) on a struct record with no events:
 * --control commands on an fd pair, signals raised at this thread, a
 * forked workload, -D's schedule, and record__loop itself ending on each. */
#include "tests/tests.h"
#include "util/evlist.h"
#include "record/loop.h"
#include "record/record.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A record as cmd_record starts one, its --control on socket pairs: the
 * test writes commands on ctl and reads acks on ack. */
struct loop_fixture {
	struct record *rec;
	int ctl[2];	/* [0]: the recorder's command fd; [1]: the test writes */
	int ack[2];	/* [0]: the recorder's ack fd; [1]: the test reads */
};

static int fixture__init(struct loop_fixture *f)
{
	char spec[64];

	f->ctl[0] = f->ctl[1] = f->ack[0] = f->ack[1] = -1;
	f->rec = calloc(1, sizeof(*f->rec));
	if (!f->rec)
		return -ENOMEM;
	f->rec->sig_fd = -1;
	f->rec->data.fd = -1;
	f->rec->workload = (struct workload){ .pid = -1, .go_fd = -1, .err_fd = -1 };
	f->rec->control = (struct control){ .ctl_fd = -1, .ack_fd = -1 };
	f->rec->writer.efd = -1;
	f->rec->bpf_sb.epfd = -1;
	f->rec->opts.quiet = 1;
	f->rec->evlist = evlist__new();
	if (!f->rec->evlist || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, f->ctl) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, f->ack))
		return -errno;
	snprintf(spec, sizeof(spec), "fd:%d,%d", f->ctl[0], f->ack[0]);
	if (control__open(&f->rec->control, spec, f->rec->err, sizeof(f->rec->err)))
		return -EINVAL;
	return record__setup_signals(f->rec);
}

/* Undoes it all, the workload reaped and every signal raised read, so
 * that unblocking them afterwards delivers none. */
static void fixture__exit(struct loop_fixture *f)
{
	struct signalfd_siginfo si;

	if (!f->rec)
		return;
	if (f->rec->workload.pid > 0) {
		kill(f->rec->workload.pid, SIGKILL);
		waitpid(f->rec->workload.pid, NULL, 0);
	}
	if (f->rec->sig_fd >= 0) {
		while (read(f->rec->sig_fd, &si, sizeof(si)) == sizeof(si))
			;
		close(f->rec->sig_fd);
	}
	control_acks__exit(&f->rec->acks_owed);
	control_acks__exit(&f->rec->acks_in_flight);
	control__close(&f->rec->control);
	trigger__exit(&f->rec->trigger);
	evlist__delete(f->rec->evlist);
	for (int i = 0; i < 2; i++) {
		if (f->ctl[i] >= 0)
			close(f->ctl[i]);
		if (f->ack[i] >= 0)
			close(f->ack[i]);
	}
	free(f->rec);
}

static int send_cmds(struct loop_fixture *f, const char *cmds)
{
	return write(f->ctl[1], cmds, strlen(cmds)) == (ssize_t)strlen(cmds) ? 0 : -1;
}

/* How many "ack\n" wait on the ack fd (all read), -1 for anything else. */
static int count_acks(struct loop_fixture *f)
{
	char buf[256];
	ssize_t n = recv(f->ack[1], buf, sizeof(buf), MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN ? 0 : -1;
	for (ssize_t i = 0; i < n; i += 4)
		if (n - i < 4 || memcmp(buf + i, "ack\n", 4))
			return -1;
	return n / 4;
}

static void serve_control(struct loop_fixture *f, int *why)
{
	struct pollfd pfd = { .fd = f->rec->control.ctl_fd, .events = POLLIN };

	*why = RECORD_RUNNING;
	record__control(f->rec, &pfd, why);
}

/* Every command is acked once its round is served; enable and disable end
 * in the last one's state and override -D; a stop ends the round. */
static int test_control_commands(struct loop_fixture *f)
{
	struct pollfd pfd = { .fd = f->rec->control.ctl_fd, .events = POLLIN };
	struct control_ack ack;
	int why;

	f->rec->delay_base = 1;
	TEST_ASSERT(!send_cmds(f, "ping\nbogus\nenable\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(why == RECORD_RUNNING, "ping, an unknown word, enable: why %d", why);
	TEST_ASSERT(count_acks(f) == 3, "three commands, three acks");
	TEST_ASSERT(f->rec->evlist->samples_on, "enable enabled nothing");
	TEST_ASSERT(f->rec->delay_base == 0, "enable left -D's plan");

	TEST_ASSERT(!send_cmds(f, "disable\nenable\ndisable\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(!f->rec->evlist->samples_on, "the last of enable/disable wins");
	TEST_ASSERT(count_acks(f) == 3, "three more acks");

	TEST_ASSERT(!send_cmds(f, "stop\nping\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(why == RECORD_STOP_SIGNAL, "stop: why %d", why);
	TEST_ASSERT(count_acks(f) == 1, "the stop acked, nothing after it served");
	TEST_ASSERT(control__next(&f->rec->control, &ack) == CTL_PING, "the ping after stop was served");

	/* the writer closed its end: the fd leaves the poll set */
	close(f->ctl[1]);
	f->ctl[1] = -1;
	why = RECORD_RUNNING;
	record__control(f->rec, &pfd, &why);
	TEST_ASSERT(pfd.fd == -1 && why == RECORD_RUNNING, "EOF: fd %d why %d", pfd.fd, why);
	return TEST_OK;
}

/* With a trigger, a snapshot is acked once its switch is done; one the
 * rate limit drops is acked at once. */
static int test_control_snapshot(struct loop_fixture *f)
{
	int why;

	f->rec->so.kind = SWITCH_SIGNAL;
	TEST_ASSERT(!trigger__parse_rate(&f->rec->trigger, "1/1h"), "rate");
	TEST_ASSERT(!send_cmds(f, "snapshot\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(why == RECORD_RUNNING && f->rec->acks_owed.nr == 1, "owed %d",
		    f->rec->acks_owed.nr);
	TEST_ASSERT(count_acks(f) == 0, "a snapshot acked before its switch");
	TEST_ASSERT(record__switch_due(f->rec), "no switch due after a snapshot");
	trigger__served(&f->rec->trigger);	/* as record__switch() does */
	record__send_acks(f->rec, &f->rec->acks_owed, "none");
	TEST_ASSERT(count_acks(f) == 1 && f->rec->acks_owed.nr == 0, "the switch's ack");

	TEST_ASSERT(!send_cmds(f, "snapshot\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(f->rec->trigger.limited == 1 && f->rec->acks_owed.nr == 0,
		    "over the rate: limited %llu owed %d",
		    (unsigned long long)f->rec->trigger.limited, f->rec->acks_owed.nr);
	TEST_ASSERT(count_acks(f) == 1, "a dropped snapshot is acked at once");
	TEST_ASSERT(!record__switch_due(f->rec), "a dropped snapshot made a switch due");
	return TEST_OK;
}

/* What waits on the ack fd, all of it, as a string. */
static const char *read_acks(struct loop_fixture *f, char *buf, size_t sz)
{
	ssize_t n = recv(f->ack[1], buf, sz - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* A command with an ID is answered on a line with that ID: a snapshot
 * with the absolute path of the file its switch placed, or why none was;
 * plain commands still get the stock perf's "ack\n"; a malformed ID is
 * an unknown command. */
static int test_control_ids(struct loop_fixture *f)
{
	char buf[8192], want[PATH_MAX + 64], cwd[PATH_MAX];
	int why;

	TEST_ASSERT(getcwd(cwd, sizeof(cwd)), "getcwd");
	f->rec->so.kind = SWITCH_SIGNAL;
	TEST_ASSERT(!send_cmds(f, "snapshot 42.a-b_c\nping p1\nsnapshot\nping\nsnapshot x/y\n"
			       "ping \xff\nenable 7\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)), "ack p1\nack\nack\nack\nack\n"),
		    "before the switch: '%s'", buf);
	TEST_ASSERT(f->rec->acks_owed.nr == 2, "owed %d", f->rec->acks_owed.nr);
	trigger__served(&f->rec->trigger);
	snprintf(f->rec->placed, sizeof(f->rec->placed), "perf.data.20270101000000%02d", 0);
	record__send_acks(f->rec, &f->rec->acks_owed, "none");
	snprintf(want, sizeof(want), "ack 42.a-b_c dump %s/perf.data.2027010100000000\nack\n", cwd);
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)), want), "'%s', want '%s'", buf, want);

	/* no file: why, on the same line; a name escaped */
	TEST_ASSERT(!send_cmds(f, "snapshot n1\n"), "write");
	serve_control(f, &why);
	f->rec->placed[0] = '\0';
	snprintf(f->rec->why_none, sizeof(f->rec->why_none), "no room\nfor /x");
	record__send_acks(f->rec, &f->rec->acks_owed, "none");
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)), "ack n1 none no room\\nfor /x\n"),
		    "'%s'", buf);
	f->rec->why_none[0] = '\0';
	snprintf(f->rec->placed, sizeof(f->rec->placed), "/abs/a\nb");
	TEST_ASSERT(!send_cmds(f, "snapshot n2\n"), "write");
	serve_control(f, &why);
	trigger__served(&f->rec->trigger);
	record__send_acks(f->rec, &f->rec->acks_owed, "none");
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)), "ack n2 dump /abs/a\\nb\n"), "'%s'", buf);

	/* answered at once: over the rate, and without --switch-output */
	TEST_ASSERT(!trigger__parse_rate(&f->rec->trigger, "1/1h"), "rate");
	TEST_ASSERT(!send_cmds(f, "snapshot r1\n"), "write");
	serve_control(f, &why);
	trigger__served(&f->rec->trigger);
	record__send_acks(f->rec, &f->rec->acks_owed, "none");
	read_acks(f, buf, sizeof(buf));
	TEST_ASSERT(!send_cmds(f, "snapshot r2\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)),
			    "ack r2 none the trigger is over --switch-output-max-rate\n"),
		    "'%s'", buf);
	f->rec->so.kind = SWITCH_NONE;
	TEST_ASSERT(!send_cmds(f, "snapshot s1\n"), "write");
	serve_control(f, &why);
	TEST_ASSERT(!strcmp(read_acks(f, buf, sizeof(buf)),
			    "ack s1 none the recorder runs without --switch-output\n"),
		    "'%s'", buf);
	return TEST_OK;
}

/* SIGUSR2 asks for a switch (only with a signal trigger); SIGTERM, SIGINT
 * and SIGHUP stop. */
static int test_signals(struct loop_fixture *f)
{
	int why;

	raise(SIGUSR2);
	why = record__handle_signals(f->rec);
	TEST_ASSERT(why == RECORD_RUNNING && !f->rec->trigger.due_ns,
		    "SIGUSR2 without --switch-output: why %d", why);
	f->rec->so.kind = SWITCH_SIGNAL;
	raise(SIGUSR2);
	raise(SIGUSR2);
	why = record__handle_signals(f->rec);
	TEST_ASSERT(why == RECORD_RUNNING && f->rec->trigger.due_ns, "SIGUSR2: no switch asked");
	TEST_ASSERT(record__switch_due(f->rec), "SIGUSR2: no switch due");
	TEST_ASSERT(record__handle_signals(f->rec) == RECORD_RUNNING, "nothing pending");
	for (int i = 0; i < 3; i++) {
		int sig = (int[]){ SIGTERM, SIGINT, SIGHUP }[i];

		raise(sig);
		why = record__handle_signals(f->rec);
		TEST_ASSERT(why == RECORD_STOP_SIGNAL, "signal %d: why %d", sig, why);
	}
	return TEST_OK;
}

static pid_t fork_child(int code, int wait_for_signal)
{
	pid_t pid = fork();
	sigset_t none;

	if (pid == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (wait_for_signal)
			for (;;)
				pause();
		_exit(code);
	}
	return pid;
}

/* The workload's SIGCHLD stops the loop, record__wait_workload() reaps it;
 * after a stop by signal it is sent SIGTERM. */
static int test_loop_workload(struct loop_fixture *f)
{
	struct pollfd pfd = { .fd = f->rec->sig_fd, .events = POLLIN };
	int why = RECORD_RUNNING, status;

	f->rec->opts.workload = 1;
	f->rec->workload.pid = fork_child(7, 0);
	TEST_ASSERT(f->rec->workload.pid > 0, "fork: %s", strerror(errno));
	for (int i = 0; i < 50 && why == RECORD_RUNNING; i++)
		if (poll(&pfd, 1, 100) > 0)
			why = record__handle_signals(f->rec);
	TEST_ASSERT(why == RECORD_STOP_CHILD, "the workload exited: why %d", why);
	status = record__wait_workload(f->rec, 0);
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 7, "status %#x", status);
	TEST_ASSERT(f->rec->workload.pid == -1, "the workload is still there");

	f->rec->workload.pid = fork_child(0, 1);
	TEST_ASSERT(f->rec->workload.pid > 0, "fork: %s", strerror(errno));
	status = record__wait_workload(f->rec, 1);
	TEST_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %#x", status);
	return TEST_OK;
}

/* -D: nothing planned without a start; a range whose times have passed
 * enables, disables, then stops; a future edge bounds the poll. */
static int test_delay(struct loop_fixture *f)
{
	struct record *rec = f->rec;
	int why = RECORD_RUNNING, ms;

	rec->opts.nr_delay_edges = 2;
	rec->opts.delay_edges[0] = 1;
	rec->opts.delay_edges[1] = 2;
	TEST_ASSERT(!record__delay_next(rec), "a plan before the workload started");
	TEST_ASSERT(record__poll_timeout(rec) == 1000, "idle poll %d", record__poll_timeout(rec));
	rec->delay_base = now_ns() - 10000000ULL;
	TEST_ASSERT(record__delay_next(rec) == rec->delay_base + 1000000ULL, "the first edge");
	TEST_ASSERT(record__poll_timeout(rec) == 0, "a passed edge waits");
	record__delay_step(rec, &why);
	TEST_ASSERT(rec->delay_edge == 2 && !rec->evlist->samples_on, "edge %d", rec->delay_edge);
	TEST_ASSERT(why == RECORD_STOP_SIGNAL, "the last range over: why %d", why);
	TEST_ASSERT(!record__delay_next(rec), "a plan after the last edge");

	rec->delay_edge = 0;
	rec->opts.delay_edges[0] = 500;
	rec->opts.delay_edges[1] = 600;
	rec->delay_base = now_ns();
	why = RECORD_RUNNING;
	record__delay_step(rec, &why);
	ms = record__poll_timeout(rec);
	TEST_ASSERT(rec->delay_edge == 0 && why == RECORD_RUNNING, "an edge served early");
	TEST_ASSERT(ms > 0 && ms <= 501, "poll %d ms before an edge 500 ms away", ms);
	return TEST_OK;
}

/* What else bounds the poll: a drain left behind, a size trigger, a
 * delayed switch. */
static int test_poll_timeout(struct loop_fixture *f)
{
	struct record *rec = f->rec;
	int ms;

	rec->drain_behind = 1;
	TEST_ASSERT(record__poll_timeout(rec) == 1, "behind: %d", record__poll_timeout(rec));
	rec->drain_behind = 0;
	rec->so.kind = SWITCH_SIZE;
	TEST_ASSERT(record__poll_timeout(rec) == 100, "size: %d", record__poll_timeout(rec));
	rec->so.kind = SWITCH_SIGNAL;
	rec->trigger.due_ns = now_ns() + 50000000ULL;
	ms = record__poll_timeout(rec);
	TEST_ASSERT(ms > 0 && ms <= 51, "a switch 50 ms away: %d", ms);
	rec->trigger.due_ns = 0;
	/* a state to write with no --switch-output-state is no work */
	rec->state_dirty = 1;
	TEST_ASSERT(record__poll_timeout(rec) == 1000, "no state file: %d", record__poll_timeout(rec));
	rec->state_path = "state";
	rec->state_next_ns = now_ns() + 30000000ULL;
	ms = record__poll_timeout(rec);
	TEST_ASSERT(ms > 0 && ms <= 31, "a state write 30 ms away: %d", ms);
	rec->state_path = NULL;
	/* a post-dump run 20 ms short of its timeout (a pid that is not
	 * reaped here) */
	rec->post_dump.sp.pid = 1;
	rec->post_dump.timeout_ns = 1000000000ULL;
	rec->post_dump.start_ns = now_ns() - 980000000ULL;
	ms = record__poll_timeout(rec);
	rec->post_dump.sp.pid = 0;
	TEST_ASSERT(ms >= 0 && ms <= 21, "a post-dump run 20 ms from its timeout: %d", ms);
	return TEST_OK;
}

/* record__loop itself, with no events: the poll set, then a stop by
 * command, by signal, and once no task is left to watch. */
static int test_loop(struct loop_fixture *f)
{
	struct record *rec = f->rec;
	struct pollfd *pfd;
	int nr, why, err;

	pfd = record__pollfds(rec, &nr);
	TEST_ASSERT(pfd && nr == RECORD_NR_FIXED_FDS, "poll set of %d", nr);
	TEST_ASSERT(pfd[RECORD_PFD_SIGNAL].fd == rec->sig_fd &&
		    pfd[RECORD_PFD_CONTROL].fd == rec->control.ctl_fd, "the fixed fds");
	free(pfd);

	rec->opts.workload = 1;		/* no events: only a stop ends it */
	TEST_ASSERT(!send_cmds(f, "ping\nstop\n"), "write");
	err = record__loop(rec, &why);
	TEST_ASSERT(!err && why == RECORD_STOP_SIGNAL, "stop: err %d why %d", err, why);
	TEST_ASSERT(count_acks(f) == 2, "ping and stop acked");

	raise(SIGTERM);
	err = record__loop(rec, &why);
	TEST_ASSERT(!err && why == RECORD_STOP_SIGNAL, "SIGTERM: err %d why %d", err, why);

	rec->opts.workload = 0;
	TEST_ASSERT(!send_cmds(f, "ping\n"), "write");
	err = record__loop(rec, &why);
	TEST_ASSERT(!err && why == RECORD_STOP_HUP, "no task left: err %d why %d", err, why);
	TEST_ASSERT(count_acks(f) == 1, "the ping acked");
	return TEST_OK;
}

static int test_record_loop(struct test_ctx *ctx)
{
	static const struct {
		const char *name;
		int (*fn)(struct loop_fixture *f);
	} cases[] = {
		{ "control commands", test_control_commands },
		{ "control snapshot", test_control_snapshot },
		{ "control ids", test_control_ids },
		{ "signals", test_signals },
		{ "workload", test_loop_workload },
		{ "-D", test_delay },
		{ "poll timeout", test_poll_timeout },
		{ "loop", test_loop },
	};
	sigset_t saved;
	int ret = TEST_OK;

	/* the fixture blocks the loop's signals: this process gets its mask
	 * back once every raised signal was read */
	if (sigprocmask(SIG_BLOCK, NULL, &saved))
		return TEST_FAIL;
	for (size_t i = 0; i < ARRAY_SIZE(cases) && ret == TEST_OK; i++) {
		struct loop_fixture f;

		TEST_LOG(ctx, "  %s\n", cases[i].name);
		ret = fixture__init(&f) ? TEST_FAIL : cases[i].fn(&f);
		fixture__exit(&f);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return ret;
}

const struct test_suite suite_record_loop = {
	"record/loop", "perf record's loop: --control commands and their acks, signals, the "
	"workload's end, -D, the poll timeout, record__loop stopping on each",
	test_record_loop,
};
