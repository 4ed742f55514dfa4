/* perf daemon's sessions: each a perf record run in its directory, started,
 * restarted with a backoff when it dies, and stopped as the config changes. */
#include "daemon/daemon-session.h"
#include "daemon/daemon-config.h"
#include "daemon/daemon-status.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NS_PER_S 1000000000ULL
#define STOP_CHECK_MS 1000	/* how often a stopping recorder's progress is read */
#define BACKOFF_MAX_S 60
#define STABLE_NS (60ULL * 1000000000)		/* a run this long resets the backoff */
#define MAX_ARGS 256
#define STR_(x) #x
#define STR(x) STR_(x)

void daemon_log(const char *fmt, ...)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	va_list ap;

	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
	fprintf(stderr, "[%s] perf daemon: ", stamp);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int check_node(const char *path, mode_t type, char *errbuf, size_t errsz)
{
	struct stat st;

	if (lstat(path, &st)) {
		int err = -errno;

		snprintf(errbuf, errsz, "%s: %s", path, strerror(errno));
		return err;
	}
	if ((st.st_mode & S_IFMT) != type || st.st_uid != geteuid()) {
		snprintf(errbuf, errsz, "%s is not a %s of ours (a symlink?)", path,
			 type == S_IFDIR ? "directory" : "fifo");
		return -EEXIST;
	}
	return 0;
}

int session_dir__prepare(const char *dir, char *errbuf, size_t errsz)
{
	static const char *const fifos[] = { "control", "ack" };
	char path[4096];
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		snprintf(errbuf, errsz, "mkdir %s: %s", dir, strerror(errno));
		return err;
	}
	err = check_node(dir, S_IFDIR, errbuf, errsz);
	for (size_t i = 0; !err && i < ARRAY_SIZE(fifos); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fifos[i]);
		if (mkfifo(path, 0600) && errno != EEXIST) {
			err = -errno;
			snprintf(errbuf, errsz, "mkfifo %s: %s", path, strerror(errno));
			return err;
		}
		err = check_node(path, S_IFIFO, errbuf, errsz);
	}
	return err;
}

static void session__delete(struct daemon_session *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->run);
	free(s->post_dump);
	free(s->post_dump_timeout);
	free(s->dir);
	free(s);
}

static char *strdup_or_null(const char *s, int *err)
{
	char *d = s ? strdup(s) : NULL;

	*err |= s && !d;
	return d;
}

/* Whether a and b differ, NULL (not given) differing from any string. */
static int str_differs(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) != 0 : a != b;
}

/* Whether the config asks s for another recorder: its run or post-dump changed. */
static int session__differs(const struct daemon_session *s, const struct daemon_session_config *c)
{
	return str_differs(c->run, s->run) || str_differs(c->post_dump, s->post_dump) ||
	       str_differs(c->post_dump_timeout, s->post_dump_timeout);
}

/* s takes c's run and post-dump. 0 or -ENOMEM (s unchanged). */
static int session__configure(struct daemon_session *s, const struct daemon_session_config *c)
{
	int err = 0;
	char *run = strdup_or_null(c->run, &err), *pd = strdup_or_null(c->post_dump, &err),
	     *pdt = strdup_or_null(c->post_dump_timeout, &err);

	if (err) {
		free(run);
		free(pd);
		free(pdt);
		return -ENOMEM;
	}
	free(s->run);
	free(s->post_dump);
	free(s->post_dump_timeout);
	s->run = run;
	s->post_dump = pd;
	s->post_dump_timeout = pdt;
	return 0;
}

static struct daemon_session *session__new(const char *base,
					   const struct daemon_session_config *c)
{
	struct daemon_session *s = calloc(1, sizeof(*s));
	const char *name = c->name;

	if (!s)
		return NULL;
	s->pid = -1;
	s->backoff_s = 1;
	s->name = strdup(name);
	if (!s->name || session__configure(s, c) ||
	    asprintf(&s->dir, "%s/session-%s", base, name) < 0) {
		s->dir = NULL;
		session__delete(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* In the child: never returns. Its messages go to the session's output. */
static void session__exec(const struct daemon_session *s, const char *perf_exe)
{
	char *args = strdup(s->run), *tok, *save = NULL;
	const char *argv[MAX_ARGS + 8];
	char *exec = NULL, *timeout = NULL;
	int argc = 0, fd;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);	/* the daemon's signalfd blocked them */
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);		/* a Ctrl-C of a -f daemon reaches the daemon, which stops us */
	prctl(PR_SET_PDEATHSIG, SIGINT);	/* a daemon that dies takes its sessions along */
	if (chdir(s->dir))
		_exit(126);
	fd = open("output", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(126);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
		_exit(126);
	/* where this run's messages begin: `perf daemon -v` counts the
	 * triggers ignored since (session_output__ignored) */
	dprintf(STDERR_FILENO, SESSION_START_MARK "%d ]\n", (int)getpid());
	argv[argc++] = perf_exe;
	argv[argc++] = "record";
	argv[argc++] = "--control=fifo:control,ack";
	/* --switch-max-files bounds the session, not only its current run */
	argv[argc++] = "--switch-max-files-earlier";
	argv[argc++] = "--switch-output-state=" SESSION_STATE_FILE;
	/* one argument each, whatever blanks the command holds */
	if (s->post_dump && asprintf(&exec, "--switch-output-exec=%s", s->post_dump) >= 0)
		argv[argc++] = exec;
	if (s->post_dump_timeout &&
	    asprintf(&timeout, "--switch-output-exec-timeout=%s", s->post_dump_timeout) >= 0)
		argv[argc++] = timeout;
	if ((s->post_dump && !exec) || (s->post_dump_timeout && !timeout) ||
	    setenv("PERF_DAEMON_SESSION", s->name, 1))
		args = NULL;	/* ENOMEM, said below */
	for (tok = args ? strtok_r(args, " \t", &save) : NULL; tok && argc < MAX_ARGS + 7;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (!args || tok) {
		pr_err("perf daemon: session %s: %s\n", s->name,
		       args ? "more than 256 arguments" : strerror(ENOMEM));
		_exit(126);
	}
	execv(perf_exe, (char *const *)argv);
	pr_err("perf daemon: session %s: exec %s: %s\n", s->name, perf_exe, strerror(errno));
	_exit(127);
}

static int session__start(struct session_list *l, struct daemon_session *s)
{
	char err[512];
	pid_t pid;

	s->restart_at = 0;
	l->changed = 1;		/* its state changes whatever comes of it */
	if (session_dir__prepare(s->dir, err, sizeof(err))) {
		daemon_log("session %s: %s; retry in %us", s->name, err, s->backoff_s);
		goto retry;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		daemon_log("session %s: fork: %s; retry in %us", s->name, strerror(errno),
			   s->backoff_s);
		goto retry;
	}
	if (pid == 0)
		session__exec(s, l->perf_exe);
	if (s->started)
		s->restarts++;
	s->pid = pid;
	s->started = time(NULL);
	s->start_ns = now_ns();
	l->changed = 1;
	daemon_log("session %s: started pid %d: record %s", s->name, pid, s->run);
	return 0;
retry:
	s->restart_at = now_ns() + s->backoff_s * NS_PER_S;
	s->backoff_s = MIN(s->backoff_s * 2, BACKOFF_MAX_S);
	return -1;
}

/* What a working recorder changes: the CPU ticks of all its threads and
 * the bytes they wrote. The last value when /proc cannot say. */
static u64 session__progress(const struct daemon_session *s)
{
	char path[64], *stat, *p;
	unsigned long long utime = 0, stime = 0, wchar = 0;
	u64 v = s->progress;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
	stat = read_file(path, NULL);
	/* the comm may hold blanks and parentheses: the fields follow its last ')' */
	p = stat ? strrchr(stat, ')') : NULL;
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			&stime) == 2)
		v = utime + stime;
	free(stat);
	snprintf(path, sizeof(path), "/proc/%d/io", (int)s->pid);
	stat = read_file(path, NULL);
	p = stat ? strstr(stat, "wchar:") : NULL;
	if (p && sscanf(p + 6, "%llu", &wchar) == 1)
		v += wchar;
	free(stat);
	return v;
}

static void session__stop(struct daemon_session *s)
{
	s->restart_at = 0;
	if (s->pid <= 0 || s->stop_ns)
		return;
	kill(s->pid, SIGINT);
	s->stop_ns = s->progress_ns = now_ns();
	s->progress = session__progress(s);
}

/* A stopping recorder: SIGKILL once it is stuck or over the bound. */
static void session__watch_stop(struct daemon_session *s, u64 now)
{
	u64 progress = session__progress(s);
	const char *why;

	if (progress != s->progress) {
		s->progress = progress;
		s->progress_ns = now;
	}
	if (now - s->stop_ns >= DAEMON_STOP_MAX_S * NS_PER_S)
		why = "did not stop in " STR(DAEMON_STOP_MAX_S) "s";
	else if (now - s->progress_ns >= DAEMON_STOP_STALL_S * NS_PER_S)
		why = "made no progress for " STR(DAEMON_STOP_STALL_S) "s while stopping";
	else
		return;
	daemon_log("session %s: pid %d %s: SIGKILL, its last dump is lost", s->name, s->pid, why);
	kill(s->pid, SIGKILL);
	s->killed = 1;	/* the reap ends it */
}

static int list__add(struct session_list *l, struct daemon_session *s)
{
	struct daemon_session **n = realloc(l->s, (l->nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	l->s = n;
	l->s[l->nr++] = s;
	l->changed = 1;
	return 0;
}

static void list__remove(struct session_list *l, int i)
{
	session__delete(l->s[i]);
	memmove(&l->s[i], &l->s[i + 1], (l->nr - i - 1) * sizeof(*l->s));
	l->nr--;
	l->changed = 1;
}

int session_list__apply(struct session_list *l, const struct daemon_config *config)
{
	for (int i = 0; i < l->nr; i++) {
		struct daemon_session *s = l->s[i];
		const struct daemon_session_config *c = daemon_config__find(config, s->name);

		if (!c) {
			if (s->removed)
				continue;
			s->removed = 1;
			daemon_log("session %s: removed from the config, stopping it", s->name);
		} else if (session__differs(s, c)) {
			if (session__configure(s, c))
				return -ENOMEM;
			s->removed = 0;
			s->backoff_s = 1;
			s->start_when_reaped = 1;
			daemon_log("session %s: run or post-dump changed, restarting it", s->name);
		} else if (s->removed) {
			s->removed = 0;	/* back before its old process ended */
			s->start_when_reaped = 1;
		} else {
			continue;
		}
		l->changed = 1;
		if (s->pid > 0) {
			session__stop(s);
		} else if (s->removed) {
			list__remove(l, i--);
		} else {
			s->start_when_reaped = 0;
			session__start(l, s);
		}
	}
	for (int i = 0; i < config->nr_sessions; i++) {
		const struct daemon_session_config *c = &config->sessions[i];
		struct daemon_session *s;
		int known = 0;

		for (int j = 0; j < l->nr; j++)
			known |= !strcmp(l->s[j]->name, c->name);
		if (known)
			continue;
		s = session__new(l->base, c);
		if (!s || list__add(l, s)) {
			session__delete(s);
			daemon_log("session %s: %s", c->name, strerror(ENOMEM));
			return -ENOMEM;
		}
		session__start(l, s);
	}
	return 0;
}

/* A recorder the daemon stopped dies of its SIGINT, as the stock's does:
 * that is a stop, not a kill. */
static void describe_status(const struct daemon_session *s, int status, char *buf, size_t sz)
{
	if (s->stop_ns && !s->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
		snprintf(buf, sz, "stopped by SIGINT");
	else if (WIFSIGNALED(status))
		snprintf(buf, sz, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sz, "exit status %d", WEXITSTATUS(status));
}

int session_list__reaped(struct session_list *l, pid_t pid, int status)
{
	struct daemon_session *s = NULL;
	char how[96];
	int i;

	for (i = 0; i < l->nr && !s; i++)
		if (l->s[i]->pid == pid)
			s = l->s[i];
	if (!s)
		return 0;
	describe_status(s, status, how, sizeof(how));
	s->pid = -1;
	s->stop_ns = 0;
	s->killed = 0;
	l->changed = 1;
	if (s->removed) {
		daemon_log("session %s: pid %d ended (%s)", s->name, pid, how);
		list__remove(l, i - 1);
		return 1;
	}
	if (s->start_when_reaped) {
		s->start_when_reaped = 0;
		daemon_log("session %s: pid %d ended (%s)", s->name, pid, how);
		session__start(l, s);	/* its run changed: the new one at once */
		return 1;
	}
	if (now_ns() - s->start_ns >= STABLE_NS)
		s->backoff_s = 1;
	s->restart_at = now_ns() + s->backoff_s * 1000000000ULL;
	daemon_log("session %s: pid %d ended (%s) after %llus; restart in %us", s->name, pid,
		   how, (unsigned long long)((now_ns() - s->start_ns) / 1000000000), s->backoff_s);
	s->backoff_s = MIN(s->backoff_s * 2, BACKOFF_MAX_S);
	return 1;
}

void session_list__tick(struct session_list *l)
{
	u64 now = now_ns();

	for (int i = 0; i < l->nr; i++) {
		struct daemon_session *s = l->s[i];

		if (s->pid > 0 && s->stop_ns && !s->killed)
			session__watch_stop(s, now);
		if (s->pid < 0 && s->restart_at && now >= s->restart_at)
			session__start(l, s);
	}
}

void session_list__stop_all(struct session_list *l)
{
	for (int i = 0; i < l->nr; i++) {
		l->s[i]->removed = 1;
		session__stop(l->s[i]);
	}
	l->changed = 1;
}

int session_list__timeout_ms(const struct session_list *l)
{
	u64 now = now_ns(), next = UINT64_MAX;

	for (int i = 0; i < l->nr; i++) {
		const struct daemon_session *s = l->s[i];

		if (s->pid < 0 && s->restart_at)
			next = MIN(next, s->restart_at);
		if (s->pid > 0 && s->stop_ns && !s->killed)
			next = MIN(next, now + STOP_CHECK_MS * 1000000ULL);
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)MIN((next - now) / 1000000 + 1, 60000);
}

const char *session__state(const struct daemon_session *s)
{
	if (s->pid > 0)
		return s->stop_ns ? "stopping" : "running";
	return s->restart_at ? "restarting" : "stopped";
}

int session_list__running(const struct session_list *l)
{
	int n = 0;

	for (int i = 0; i < l->nr; i++)
		n += l->s[i]->pid > 0;
	return n;
}

void session_list__delete(struct session_list *l)
{
	for (int i = 0; i < l->nr; i++)
		session__delete(l->s[i]);
	free(l->s);
	l->s = NULL;
	l->nr = 0;
}
