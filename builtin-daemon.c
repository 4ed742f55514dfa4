/* perf daemon from top to bottom: start (the daemon itself is
 * daemon/daemon.c), and the client commands that list, ping, signal and
 * stop its record sessions. */
#include "builtin.h"
#include "daemon/daemon.h"
#include "daemon/daemon-client.h"
#include "daemon/daemon-config.h"
#include "daemon/daemon-json.h"
#include "daemon/daemon-session.h"
#include "daemon/daemon-status.h"
#include "lib/escape.h"
#include "lib/parse-options.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PING_TIMEOUT_MS 10000
#define SIGNAL_TIMEOUT_MS 60000		/* a dump of big rings to a slow disk */
/* a daemon stops once its sessions wrote their last dumps (bounded in
 * daemon/daemon-session.h), plus a margin for itself */
#define STOP_TIMEOUT_MS ((DAEMON_STOP_MAX_S + 30) * 1000)

/* How long stop waits: STOP_TIMEOUT_MS, or less where
 * PERF_DAEMON_STOP_TIMEOUT (seconds) says so: what a test of a daemon
 * that does not end can wait. */
static int stop_timeout_ms(void)
{
	const char *env = getenv("PERF_DAEMON_STOP_TIMEOUT");
	char *end;
	long s = env ? strtol(env, &end, 10) : 0;

	if (!env || !*env || *end || s <= 0 || s * 1000 >= STOP_TIMEOUT_MS)
		return STOP_TIMEOUT_MS;
	return (int)s * 1000;
}

static const char *const daemon_usage[] = {
	"perf daemon [<options>]",
	"perf daemon start  [<options>]",
	"perf daemon stop   [<options>]",
	"perf daemon signal [<options>]",
	"perf daemon ping   [<options>]",
	NULL
};

/* The config named by --config, else the default one; with the base. */
static struct daemon_config *load_config(struct daemon_opts *o, int base_only, char *path,
					 size_t sz)
{
	char err[1024], home[PATH_MAX];
	struct daemon_config *c;

	snprintf(path, sz, "%s", o->config ? o->config : daemon_config__default_path(home, sizeof(home)));
	c = daemon_config__new(path, o->base, base_only, err, sizeof(err));
	if (!c)
		pr_err("perf daemon: %s\n", err);
	return c;
}

/* The parent of a background start waits for the daemon's word: "ok", or
 * the one line that says why it could not start. */
static int wait_for_daemon(int fd, const char *base)
{
	char msg[PATH_MAX + 1024];
	ssize_t n, got = 0;

	while ((n = read(fd, msg + got, sizeof(msg) - 1 - got)) > 0 ||
	       (n < 0 && errno == EINTR))
		got += n > 0 ? n : 0;
	msg[got] = '\0';
	close(fd);
	if (!strcmp(msg, "ok"))
		return 0;
	if (got)
		pr_err("%s\n", msg);
	else
		pr_err("failed: perf daemon ended while starting: see %s/output\n", base);
	return 1;
}

static int cmd_daemon_start(struct daemon_opts *o)
{
	struct daemon d = { .opts = o, .lock_fd = -1, .sig_fd = -1, .ino_fd = -1 };
	char path[PATH_MAX];
	int report[2] = { -1, -1 }, ret = 1;
	pid_t pid = 0;

	d.config = load_config(o, 0, path, sizeof(path));
	if (!d.config)
		return 1;
	if (!o->foreground && (pipe2(report, O_CLOEXEC) || (pid = fork()) < 0)) {
		pr_err("failed: perf daemon: fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid > 0) {	/* the starting command: waits for the daemon's word */
		close(report[1]);
		ret = wait_for_daemon(report[0], d.config->base);
		goto out;
	}
	if (!o->foreground) {
		close(report[0]);
		setsid();
	}
	ret = daemon__run(&d, report[1]);
out:
	daemon__exit(&d);
	return ret;
}

/* ---- the client commands ---- */

/* Why there is no daemon to talk to on BASE, from daemon_lock__owner(). */
static void lock_error(const char *who, const char *base, pid_t err, pid_t holder)
{
	if (err == -ESRCH)
		pr_err("%s: %s/lock is held by pid %d, which is not the perf daemon that took "
		       "it: nothing is asked of it\n", who, base, (int)holder);
	else if (err)
		pr_err("%s: no daemon runs on %s: %s\n", who, base, strerror(-err));
	else
		pr_err("%s: no daemon runs on %s\n", who, base);
}

/* The status of the daemon owning the config's base, or NULL after saying
 * why. */
static struct daemon_status *client_status(struct daemon_opts *o, char **base)
{
	char path[PATH_MAX];
	struct daemon_config *c = load_config(o, 1, path, sizeof(path));
	struct daemon_status *st = NULL;
	pid_t owner, holder;

	*base = NULL;
	if (!c)
		return NULL;
	owner = daemon_lock__owner(c->base, &holder);
	if (owner <= 0)
		lock_error("perf daemon", c->base, owner, holder);
	else if (!(st = daemon_status__new(c->base)))
		pr_err("perf daemon: %s/status: %s\n", c->base, strerror(errno));
	else if (st->pid != owner)
		st->pid = owner;	/* the lock is the truth */
	if (st && !(*base = strdup(c->base))) {
		daemon_status__delete(st);
		st = NULL;
	}
	daemon_config__delete(c);
	return st;
}

static long up_minutes(time_t started)
{
	time_t now = time(NULL);

	return started > 0 && now > started ? (long)(now - started) / 60 : 0;
}

static int cmd_daemon_list(struct daemon_opts *o)
{
	char *base;
	struct daemon_status *st = client_status(o, &base);
	const char *x = o->sep;

	if (!st)
		return 1;
	if (o->json) {
		daemon_json__print(stdout, st, base, NULL);
		daemon_status__delete(st);
		free(base);
		return fflush(stdout) ? 1 : 0;
	}
	if (x)
		printf("%d%sdaemon%s%s%s%s/output%s%s/lock%s%ld\n", (int)st->pid, x, x, base, x,
		       base, x, base, x, up_minutes(st->started));
	else
		printf("[%d:daemon] base: %s\n", (int)st->pid, base);
	if (!x && o->verbose)
		printf("  output:  %s/output\n  lock:    %s/lock\n  up:      %ld minutes\n",
		       base, base, up_minutes(st->started));
	for (int i = 0; i < st->nr; i++) {
		struct status_session *s = &st->sessions[i];
		long up = s->pid > 0 ? up_minutes(s->started) : 0;
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/session-%s", base, s->name);
		if (x)
			printf("%d%s%s%s%s%s%s%s%s/output%s%s/control%s%s/ack%s%ld\n", (int)s->pid,
			       x, s->name, x, s->run, x, dir, x, dir, x, dir, x, dir, x, up);
		else
			printf("[%d:%s] perf record %s\n", (int)s->pid, s->name, s->run);
		if (!x && o->verbose) {
			long long ignored = s->pid > 0 ? session_output__ignored(dir, s->pid) : 0;

			printf("  base:    %s\n  output:  %s/output\n  control: %s/control\n"
			       "  ack:     %s/ack\n  up:      %ld minutes\n", dir, dir, dir, dir, up);
			if (ignored > 0)
				printf("  ignored: %lld triggers over --switch-output-max-rate\n",
				       ignored);
		}
	}
	daemon_status__delete(st);
	free(base);
	return 0;
}

static const char *client_error(int err)
{
	return err == -ENXIO ? "not running" : err == -ETIMEDOUT ? "no ack in time" :
	       err == -EPIPE ? "it ended" :
	       err == -EPROTO ? "its answer carries no ID (a recorder of an older perf: restart "
				"the session)" : strerror(-err);
}

/* ping --json: the listing's object, each session pinged with its answer;
 * with --session, that session alone. */
static void print_ping_json(struct daemon_status *st, const char *base, const char *session,
			      const char **pings)
{
	int k = 0;

	for (int i = 0; i < st->nr; i++) {
		if (session && strcmp(session, st->sessions[i].name)) {
			free(st->sessions[i].name);
			free(st->sessions[i].run);
			continue;
		}
		st->sessions[k] = st->sessions[i];
		pings[k++] = pings[i];
	}
	st->nr = k;
	daemon_json__print(stdout, st, base, pings);
}

/* ping and signal: each session, or the one --session names. */
static int cmd_daemon_each(struct daemon_opts *o, int signal_it)
{
	char *base, dir[PATH_MAX], dump[PATH_MAX], why[PATH_MAX + 512], text[ESCAPE_LOG_SIZE];
	struct daemon_status *st = client_status(o, &base);
	int found = 0, failed = 0;
	const char **pings = NULL;

	if (!st)
		return 1;
	/* the status may lag (a full disk): the sessions' fifos tell too */
	if (daemon_status__add_sessions(st, base, o->session))
		pr_err("perf daemon: %s: %s\n", base, strerror(ENOMEM));
	if (o->json && !(pings = calloc(st->nr + 1, sizeof(*pings)))) {
		pr_err("perf daemon: %s\n", strerror(ENOMEM));
		failed = 1;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);	/* a recorder that ends as we write */
	for (int i = 0; i < st->nr; i++) {
		struct status_session *s = &st->sessions[i];
		int err;

		if (o->session && strcmp(o->session, s->name))
			continue;
		found = 1;
		snprintf(dir, sizeof(dir), "%s/session-%s", base, s->name);
		if (!signal_it) {
			err = session__ping(dir, PING_TIMEOUT_MS);
			if (pings)
				pings[i] = err ? client_error(err) : "ok";
			else if (err)
				printf("%-4s %s (%s)\n", "FAIL", s->name, client_error(err));
			else
				printf("%-4s %s\n", "OK", s->name);
			failed |= !!err;
			continue;
		}
		err = session__snapshot(dir, SIGNAL_TIMEOUT_MS, dump, sizeof(dump), why, sizeof(why));
		if (err == -ENODATA)
			pr_err("perf daemon: signal: session %s: no dump written: %s\n", s->name,
			       escape__str(text, sizeof(text), why));
		else if (err)
			pr_err("perf daemon: signal: session %s: %s\n", s->name, client_error(err));
		else
			printf("%s\n", dump);
		failed |= !!err;
	}
	if (o->session && !found) {
		if (signal_it)
			pr_err("perf daemon: signal: no session '%s'\n", o->session);
		else if (!pings)
			printf("%-4s %s (not found)\n", "FAIL", o->session);
		else
			pr_err("perf daemon: ping: no session '%s'\n", o->session);
		failed = 1;
	}
	if (pings)
		print_ping_json(st, base, o->session, pings);
out:
	fflush(stdout);
	free(pings);
	daemon_status__delete(st);
	free(base);
	return failed;
}

/* SIGTERM to the daemon owning the base, then wait (a pidfd: no polling)
 * until it and so its sessions are gone. The pidfd is taken before the
 * owner is checked a second time: the signal reaches the process that
 * was checked, never one that took its pid since. */
static int cmd_daemon_stop(struct daemon_opts *o)
{
	char path[PATH_MAX];
	struct daemon_config *c = load_config(o, 1, path, sizeof(path));
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	pid_t owner, holder;
	int ret = 1, timeout;

	if (!c)
		return 1;
	owner = daemon_lock__owner(c->base, &holder);
	if (owner > 0)
		pfd.fd = (int)syscall(SYS_pidfd_open, owner, 0);
	if (owner > 0 && pfd.fd < 0) {
		pr_err("perf daemon: stop: pid %d: %s\n", (int)owner, strerror(errno));
		goto out;
	}
	if (owner > 0 && daemon_lock__owner(c->base, &holder) != owner)
		owner = -ESRCH;
	if (owner <= 0) {
		lock_error("perf daemon: stop", c->base, owner, holder);
		goto out;
	}
	if (syscall(SYS_pidfd_send_signal, pfd.fd, SIGTERM, NULL, 0)) {
		pr_err("perf daemon: stop: pid %d: %s\n", (int)owner, strerror(errno));
		goto out;
	}
	timeout = stop_timeout_ms();
	ret = 0;
	if (poll(&pfd, 1, timeout) == 0) {
		pr_err("perf daemon: stop: pid %d still runs after %d s\n", (int)owner,
		       timeout / 1000);
		ret = 1;
	}
out:
	if (pfd.fd >= 0)
		close(pfd.fd);
	daemon_config__delete(c);
	return ret;
}

enum daemon_cmd { CMD_LIST, CMD_START, CMD_STOP, CMD_SIGNAL, CMD_PING };

int cmd_daemon(int argc, const char **argv)
{
	static const char *const names[] = { "", "start", "stop", "signal", "ping" };
	struct daemon_opts o = { 0 };
	const struct option options[] = {
		OPT_COUNT('v', "verbose", &o.verbose, "be more verbose"),
		OPT_STR('x', "field-separator", &o.sep, "sep", "print fields separated by sep"),
		OPT_STR(0, "config", &o.config, "file", "config file path"),
		OPT_STR(0, "base", &o.base, "dir", "base directory (overrides the config's)"),
		OPT_BOOL('f', "foreground", &o.foreground, "start: stay in the foreground"),
		OPT_STR(0, "session", &o.session, "name", "signal, ping: this session only"),
		OPT_BOOL(0, "json", &o.json, "the listing, ping: one JSON object"),
		OPT_TERMINATOR
	};
	enum daemon_cmd cmd = CMD_LIST;

	argc = parse_options(argc, argv, options, daemon_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (argc > 0) {
		for (size_t i = 1; i < ARRAY_SIZE(names) && cmd == CMD_LIST; i++)
			if (!strcmp(argv[0], names[i]))
				cmd = i;
		if (cmd == CMD_LIST) {
			pr_err("perf daemon: unknown command '%s': start, stop, signal or ping\n",
			       argv[0]);
			return 129;
		}
		argc = parse_options(argc, argv, options, daemon_usage);
		if (argc < 0)
			return argc == PARSE_OPT_HELP ? 0 : 129;
		if (argc > 0) {
			pr_err("perf daemon %s: unexpected argument '%s'\n", names[cmd], argv[0]);
			return 129;
		}
	}
	if (o.foreground && cmd != CMD_START) {
		pr_err("perf daemon: -f is for start only\n");
		return 129;
	}
	if (o.json && cmd != CMD_LIST && cmd != CMD_PING) {
		pr_err("perf daemon: --json is for the listing and ping only\n");
		return 129;
	}
	if (o.json && o.sep) {
		pr_err("perf daemon: -x and --json are two formats: give one\n");
		return 129;
	}
	if (o.session && cmd != CMD_SIGNAL && cmd != CMD_PING) {
		pr_err("perf daemon: --session is for signal and ping only\n");
		return 129;
	}
	switch (cmd) {
	case CMD_START:
		return cmd_daemon_start(&o);
	case CMD_STOP:
		return cmd_daemon_stop(&o);
	case CMD_SIGNAL:
		return cmd_daemon_each(&o, 1);
	case CMD_PING:
		return cmd_daemon_each(&o, 0);
	default:
		return cmd_daemon_list(&o);
	}
}
