/* The perf daemon's loop: signals, config changes and the sessions'
 * exits, each answered in turn; and its set-up and teardown. */
#include "daemon/daemon.h"
#include "daemon/daemon-config.h"
#include "daemon/daemon-session.h"
#include "daemon/daemon-status.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STATUS_RETRY_NS 1000000000ULL

/* The status again, after each change: one that cannot be written (a
 * full disk) is tried again every STATUS_RETRY_NS, its first failure and
 * its recovery logged. */
static void daemon__write_status(struct daemon *d)
{
	char err[PATH_MAX + 128];
	u64 now = now_ns();

	if (!d->sessions.changed || now < d->status_retry_ns)
		return;
	if (daemon_status__write(d->config->base, getpid(), d->started, d->config_path,
				 &d->sessions, err, sizeof(err))) {
		if (!d->status_retry_ns)
			daemon_log("status %s; trying again every %llus", err,
				   STATUS_RETRY_NS / 1000000000);
		d->status_retry_ns = now + STATUS_RETRY_NS;
		return;
	}
	if (d->status_retry_ns)
		daemon_log("status %s/status written again", d->config->base);
	d->status_retry_ns = 0;
	d->sessions.changed = 0;
}

/* poll()'s timeout: the sessions' next planned work, or a status retry. */
static int daemon__timeout_ms(const struct daemon *d)
{
	int ms = session_list__timeout_ms(&d->sessions);
	u64 now = now_ns(), retry;

	if (!d->status_retry_ns)
		return ms;
	retry = d->status_retry_ns > now ? (d->status_retry_ns - now) / 1000000 + 1 : 0;
	return ms < 0 ? (int)retry : MIN(ms, (int)retry);
}

/* A config that does not parse, or moves the base, is refused whole: the
 * sessions go on as the last good one said. */
static void daemon__reload(struct daemon *d)
{
	char err[1024];
	struct daemon_config *c = daemon_config__new(d->config_path, d->opts->base, 0, err,
						   sizeof(err));

	if (!c) {
		daemon_log("config not reloaded, the last good one stays: %s", err);
		return;
	}
	if (strcmp(c->base, d->config->base)) {
		daemon_log("config not reloaded, the last good one stays: %s: base changed from %s "
			   "to %s: restart the daemon for that", c->path, d->config->base, c->base);
		daemon_config__delete(c);
		return;
	}
	daemon_config__delete(d->config);
	d->config = c;
	d->sessions.base = c->base;	/* the same path, in the new config's memory */
	daemon_log("config %s reloaded: %d session(s)", c->path, c->nr_sessions);
	session_list__apply(&d->sessions, c);
}

/* True when an inotify event of the config's directory is about the
 * config file: written and closed, or renamed into place by an editor. */
static int daemon__config_touched(struct daemon *d)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int touched = 0;
	ssize_t n;

	while ((n = read(d->ino_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && !strcmp(ev->name, d->config_name))
				touched = 1;
			p += sizeof(*ev) + ev->len;
		}
	}
	return touched;
}

static void daemon__reap(struct daemon *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		session_list__reaped(&d->sessions, pid, status);
}

/* Returns 1 when a stop was asked for. */
static int daemon__signals(struct daemon *d)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(d->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			daemon__reap(d);
		else if (si.ssi_signo == SIGHUP)
			daemon__reload(d);
		else
			stop = 1;
	}
	return stop;
}

/* The loop: sleeps in poll() until a signal, a config change or a
 * session's planned restart or kill; never busy. */
static int daemon__loop(struct daemon *d)
{
	int stopping = 0;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = d->sig_fd, .events = POLLIN },
			{ .fd = stopping ? -1 : d->ino_fd, .events = POLLIN },
		};

		daemon__write_status(d);
		if (stopping && !session_list__running(&d->sessions))
			break;
		if (poll(pfd, 2, daemon__timeout_ms(d)) < 0 && errno != EINTR) {
			daemon_log("poll: %s", strerror(errno));
			session_list__stop_all(&d->sessions);
			stopping = 1;
		}
		if ((pfd[0].revents & POLLIN) && daemon__signals(d) && !stopping) {
			daemon_log("stopping %d session(s)", session_list__running(&d->sessions));
			session_list__stop_all(&d->sessions);
			stopping = 1;
		}
		if (!stopping && (pfd[1].revents & POLLIN) && daemon__config_touched(d))
			daemon__reload(d);
		session_list__tick(&d->sessions);
	}
	daemon_log("stopped");
	return 0;
}

/* errno, saved before anything can change it, into "failed: perf daemon:
 * WHAT: why" for `start` to print. Returns -errno. */
static int start_error(char *err, size_t errsz, const char *what)
{
	int e = errno;

	snprintf(err, errsz, "failed: perf daemon: %s: %s", what, strerror(e));
	return -e;
}

/* Everything that can fail before the daemon is up, so that `perf daemon
 * start` can say it (and exit non-zero) rather than the log. */
static int daemon__setup(struct daemon *d, char *err, size_t errsz)
{
	char dir[PATH_MAX], *slash;
	sigset_t set;
	ssize_t n;

	d->lock_fd = daemon_lock__take(d->config->base, err, errsz);
	if (d->lock_fd < 0)
		return d->lock_fd;
	if (!realpath(d->config->path, d->config_path))
		return start_error(err, errsz, d->config->path);
	snprintf(dir, sizeof(dir), "%s", d->config_path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	d->config_name = strrchr(d->config_path, '/') + 1;
	n = readlink("/proc/self/exe", d->perf_exe, sizeof(d->perf_exe) - 1);
	if (n < 0)
		return start_error(err, errsz, "/proc/self/exe");
	d->perf_exe[n] = '\0';
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	d->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->sig_fd < 0 || d->ino_fd < 0 ||
	    inotify_add_watch(d->ino_fd, *dir ? dir : "/", IN_CLOSE_WRITE | IN_MOVED_TO) < 0)
		return start_error(err, errsz, "signalfd or inotify of the config's directory");
	d->sessions.perf_exe = d->perf_exe;
	d->sessions.base = d->config->base;
	d->sessions.changed = 1;
	d->started = time(NULL);
	umask(077);
	return chdir("/") ? start_error(err, errsz, "chdir /") : 0;
}

/* Detached: stdin from /dev/null, stdout and stderr to BASE/output. */
static int daemon__redirect(struct daemon *d, char *err, size_t errsz)
{
	char path[PATH_MAX];
	int out, in, ret = 0;

	snprintf(path, sizeof(path), "%s/output", d->config->base);
	out = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		ret = start_error(err, errsz, path);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (ret)
		return ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

void daemon__exit(struct daemon *d)
{
	char path[PATH_MAX];

	session_list__delete(&d->sessions);
	if (d->lock_fd >= 0) {
		snprintf(path, sizeof(path), "%s/status", d->config->base);
		unlink(path);
		close(d->lock_fd);
	}
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->ino_fd >= 0)
		close(d->ino_fd);
	daemon_config__delete(d->config);
}

/* The daemon, in the foreground or in the child of a background start:
 * set up, the sessions started, the word "ok" to the starting command
 * (report, -1 in the foreground), then the loop until a stop. */
int daemon__run(struct daemon *d, int report)
{
	char err[PATH_MAX + 1024] = "";
	int ret = daemon__setup(d, err, sizeof(err));

	if (!ret && report >= 0)
		ret = daemon__redirect(d, err, sizeof(err));
	if (ret) {
		if (report < 0)
			pr_err("%s\n", err);
		else
			write_all(report, err, strlen(err));	/* the parent gone: nobody to tell */
		return 1;
	}
	daemon_log("started on %s (pid %d), config %s", d->config->base, (int)getpid(),
		   d->config_path);
	/* the sessions are listed once `start` returns (they answer a ping
	 * once their recorders are up) */
	session_list__apply(&d->sessions, d->config);
	daemon__write_status(d);
	if (report >= 0) {
		if (write_all(report, "ok", 2))
			daemon_log("the starting command went away");
		close(report);
	}
	return daemon__loop(d);
}
