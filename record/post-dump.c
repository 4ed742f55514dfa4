/* --switch-output-exec: the runs of the command for each dump, one at a
 * time, served from the recorder's loop without ever waiting on them:
 * output read when poll says so, the exit reaped with WNOHANG, the group
 * killed once over its time. */
#include "record/post-dump.h"
#include "lib/escape.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define READ_BUDGET (64 << 10)	/* output bytes read per round: the loop goes on */
#define END_GRACE_MS 500	/* SIGTERM to SIGKILL when recording ends */

extern char **environ;

int post_dump__set(struct post_dump *pd, const char *cmd)
{
	const char *brace = cmd ? strstr(cmd, "{}") : NULL;
	char *s = NULL;
	int n;

	free(pd->script);
	pd->script = NULL;
	if (!cmd)
		return 0;
	if (brace)
		n = asprintf(&s, "%.*s\"$1\"%s", (int)(brace - cmd), cmd, brace + 2);
	else
		n = asprintf(&s, "%s \"$1\"", cmd);
	if (n < 0)
		return -ENOMEM;
	pd->script = s;
	pd->sp.pid = -1;
	return 0;
}

static const char *esc(char *buf, size_t sz, const char *s)
{
	return escape__str(buf, sz, s);
}

/* A run that never starts: counted, said. */
static void post_dump__drop(struct post_dump *pd, struct post_dump_job *job, const char *why)
{
	char p[ESCAPE_LOG_SIZE];

	pd->st.dropped++;
	pd->changed = 1;
	pr_err("perf record: post-dump: %s: no run, %s (%llu dropped so far)\n",
	       esc(p, sizeof(p), job->path), why, (unsigned long long)pd->st.dropped);
	free(job->path);
	job->path = NULL;
}

void post_dump__add(struct post_dump *pd, const char *path, const char *trigger)
{
	char cwd[PATH_MAX], p[ESCAPE_LOG_SIZE];
	struct post_dump_job job = { .trigger = trigger };
	int slot;

	if (!pd->script)
		return;
	if (path[0] == '/')
		job.path = strdup(path);
	else if (getcwd(cwd, sizeof(cwd)) && asprintf(&job.path, "%s/%s", cwd, path) < 0)
		job.path = NULL;
	if (!job.path) {
		const char *why = strerror(errno);

		pd->st.dropped++;
		pd->changed = 1;
		pr_err("perf record: post-dump: %s: no run: %s\n", esc(p, sizeof(p), path), why);
		return;
	}
	if (pd->ended) {
		post_dump__drop(pd, &job, "recording ended first");
		return;
	}
	/* the newest dumps matter most: a full queue gives up its oldest */
	if (pd->q_nr == POST_DUMP_QUEUE_MAX) {
		post_dump__drop(pd, &pd->q[pd->q_head], "the queue was full");
		pd->q_head = (pd->q_head + 1) % POST_DUMP_QUEUE_MAX;
		pd->q_nr--;
	}
	slot = (pd->q_head + pd->q_nr++) % POST_DUMP_QUEUE_MAX;
	pd->q[slot] = job;
	post_dump__serve(pd);
}

void post_dump__forget(struct post_dump *pd, const char *path)
{
	size_t len = strlen(path);
	int kept = 0;

	for (int i = 0; i < pd->q_nr; i++) {
		struct post_dump_job *job = &pd->q[(pd->q_head + i) % POST_DUMP_QUEUE_MAX];
		size_t plen = job->path ? strlen(job->path) : 0;

		/* path as the recorder named it, job's made absolute */
		if (job->path && plen >= len && !strcmp(job->path + plen - len, path) &&
		    (plen == len || job->path[plen - len - 1] == '/'))
			post_dump__drop(pd, job, "--switch-max-files removed it before its turn");
		else
			pd->q[(pd->q_head + kept++) % POST_DUMP_QUEUE_MAX] = *job;
	}
	pd->q_nr = kept;
}

int post_dump__fd(const struct post_dump *pd)
{
	return pd->sp.pid > 0 && !pd->eof ? pd->sp.out_fd : -1;
}

/* The environment of a run: the recorder's (PERF_DAEMON_SESSION there when
 * a perf daemon session runs it), with PERF_DUMP_TRIGGER and
 * PERF_RECORD_PID. NULL on ENOMEM; the caller frees it and its two
 * strings (the last two entries before the NULL). */
static char **post_dump__env(const struct post_dump_job *job)
{
	int n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (int i = 0; i < n; i++)
		if (strncmp(environ[i], "PERF_DUMP_TRIGGER=", 18) &&
		    strncmp(environ[i], "PERF_RECORD_PID=", 16))
			env[k++] = environ[i];
	if (asprintf(&env[k], "PERF_DUMP_TRIGGER=%s", job->trigger) < 0 ||
	    asprintf(&env[k + 1], "PERF_RECORD_PID=%d", (int)getpid()) < 0) {
		free(env[k]);
		free(env);
		return NULL;
	}
	return env;
}

static void post_dump__env_free(char **env)
{
	int n = 0;

	while (env[n])
		n++;
	free(env[n - 2]);
	free(env[n - 1]);
	free(env);
}

/* The next queued dump's run; one that cannot start is counted failed. */
static void post_dump__start(struct post_dump *pd)
{
	char p[ESCAPE_LOG_SIZE];
	char **env;
	int err;

	pd->job = pd->q[pd->q_head];
	pd->q_head = (pd->q_head + 1) % POST_DUMP_QUEUE_MAX;
	pd->q_nr--;
	env = post_dump__env(&pd->job);
	err = env ? spawn__shell(&pd->sp, pd->script, "perf-post-dump", pd->job.path, env) :
	      -ENOMEM;
	if (env)
		post_dump__env_free(env);
	pd->st.runs++;
	pd->changed = 1;
	if (err) {
		pd->st.failed++;
		pr_err("perf record: post-dump: %s: /bin/sh: %s (%llu failed so far)\n",
		       esc(p, sizeof(p), pd->job.path), strerror(-err),
		       (unsigned long long)pd->st.failed);
		free(pd->job.path);
		pd->job.path = NULL;
		return;
	}
	pd->start_ns = now_ns();
	pd->reaped = pd->killed = pd->eof = 0;
	pd->line_len = pd->line_over = pd->logged = pd->unlogged = 0;
	if (pd->verbose)
		pr_err("[ perf record: post-dump: pid %d for %s (trigger %s) ]\n", (int)pd->sp.pid,
		       esc(p, sizeof(p), pd->job.path), pd->job.trigger);
}

/* One line of the run's output, escaped, within the run's bound. */
static void post_dump__log_line(struct post_dump *pd)
{
	char text[ESCAPE_SIZE(POST_DUMP_LINE_MAX)];

	pd->line[pd->line_len] = '\0';
	if (pd->logged >= POST_DUMP_LOG_MAX) {
		pd->unlogged += pd->line_len + pd->line_over + 1;
	} else {
		pr_err("perf record: post-dump: pid %d: %s%s\n", (int)pd->sp.pid,
		       escape__str(text, sizeof(text), pd->line), pd->line_over ? "..." : "");
		pd->logged += pd->line_len + 1;
		pd->unlogged += pd->line_over;
	}
	pd->line_len = pd->line_over = 0;
}

/* What the run wrote, a budget's worth at most: the loop goes on. */
static void post_dump__read(struct post_dump *pd)
{
	char buf[4096];
	size_t budget = READ_BUDGET;
	ssize_t n;

	while (!pd->eof && budget) {
		n = read(pd->sp.out_fd, buf, MIN(sizeof(buf), budget));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pd->eof = n == 0 || errno != EAGAIN;
			break;
		}
		budget -= n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n')
				post_dump__log_line(pd);
			else if (pd->line_len < sizeof(pd->line) - 1)
				pd->line[pd->line_len++] = buf[i] ? buf[i] : ' ';
			else
				pd->line_over++;
		}
	}
}

/* The run ended (reaped, and its output read to EOF or its group
 * killed): its status said, counted. */
static void post_dump__finish(struct post_dump *pd)
{
	double s = (now_ns() - pd->start_ns) / 1e9;
	int st = pd->status, ok = WIFEXITED(st) && !WEXITSTATUS(st);
	char p[ESCAPE_LOG_SIZE], how[64];

	if (pd->line_len || pd->line_over)
		post_dump__log_line(pd);
	if (pd->unlogged)
		pr_err("perf record: post-dump: pid %d: %llu more bytes of output not logged\n",
		       (int)pd->sp.pid, (unsigned long long)pd->unlogged);
	if (WIFEXITED(st))
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(st));
	else
		snprintf(how, sizeof(how), "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	pd->st.last_status = st;
	if (!ok && !pd->killed)
		pd->st.failed++;
	pd->changed = 1;
	if (!ok && !pd->killed)
		pr_err("perf record: post-dump: pid %d for %s: %s after %.3f s (%llu failed so far)\n",
		       (int)pd->sp.pid, esc(p, sizeof(p), pd->job.path), how, s,
		       (unsigned long long)pd->st.failed);
	else if (pd->verbose)
		pr_err("[ perf record: post-dump: pid %d for %s: %s after %.3f s ]\n",
		       (int)pd->sp.pid, esc(p, sizeof(p), pd->job.path), how, s);
	close(pd->sp.out_fd);
	pd->sp.out_fd = -1;
	pd->sp.pid = -1;
	free(pd->job.path);
	pd->job.path = NULL;
}

/* Over its time: SIGKILL to its whole group, said and counted. */
static void post_dump__kill(struct post_dump *pd)
{
	char p[ESCAPE_LOG_SIZE];

	pd->killed = 1;
	pd->st.killed++;
	pd->st.failed++;
	pd->changed = 1;
	spawn__kill(&pd->sp, SIGKILL);
	pr_err("perf record: post-dump: pid %d for %s: still running after %.3f s "
	       "(--switch-output-exec-timeout): SIGKILL to its process group (%llu killed so "
	       "far)\n", (int)pd->sp.pid, esc(p, sizeof(p), pd->job.path),
	       pd->timeout_ns / 1e9, (unsigned long long)pd->st.killed);
}

void post_dump__serve(struct post_dump *pd)
{
	while (pd->sp.pid > 0 || pd->q_nr) {
		if (pd->sp.pid <= 0) {
			post_dump__start(pd);
			continue;
		}
		post_dump__read(pd);
		if (!pd->reaped && waitpid(pd->sp.pid, &pd->status, WNOHANG) == pd->sp.pid)
			pd->reaped = 1;
		/* what its group left running with the pipe open counts too */
		if (!pd->killed && now_ns() - pd->start_ns >= pd->timeout_ns &&
		    (!pd->reaped || !pd->eof))
			post_dump__kill(pd);
		/* killed: the group is gone, unless something left it
		 * (setsid) holding the pipe: EOF is not awaited then */
		if (!pd->reaped || (!pd->eof && !pd->killed))
			return;
		post_dump__finish(pd);
	}
}

int post_dump__timeout_ms(const struct post_dump *pd, int ms)
{
	u64 now = now_ns(), end = pd->start_ns + pd->timeout_ns;

	if (pd->sp.pid <= 0 || pd->killed)
		return ms;
	/* a group that exited keeps no signal coming: its end is polled */
	if (pd->reaped && pd->eof)
		return 0;
	return end <= now ? 0 : (int)MIN((u64)ms, (end - now) / 1000000 + 1);
}

int post_dump__changed(struct post_dump *pd)
{
	int c = pd->changed;

	pd->changed = 0;
	return c;
}

void post_dump__end(struct post_dump *pd)
{
	char p[ESCAPE_LOG_SIZE];

	pd->ended = 1;
	while (pd->q_nr) {
		post_dump__drop(pd, &pd->q[pd->q_head], "recording ended first");
		pd->q_head = (pd->q_head + 1) % POST_DUMP_QUEUE_MAX;
		pd->q_nr--;
	}
	if (pd->sp.pid <= 0)
		return;
	post_dump__serve(pd);
	if (pd->sp.pid <= 0)
		return;
	pr_err("perf record: post-dump: pid %d for %s: recording ended: SIGTERM to its "
	       "process group\n", (int)pd->sp.pid, esc(p, sizeof(p), pd->job.path));
	spawn__kill(&pd->sp, SIGTERM);
	spawn__kill(&pd->sp, SIGCONT);
	for (int i = 0; i < END_GRACE_MS / 10 && !pd->reaped; i++) {
		usleep(10000);
		pd->reaped = waitpid(pd->sp.pid, &pd->status, WNOHANG) == pd->sp.pid;
	}
	spawn__kill(&pd->sp, SIGKILL);	/* what is left of the group */
	if (!pd->reaped && waitpid(pd->sp.pid, &pd->status, 0) == pd->sp.pid)
		pd->reaped = 1;
	post_dump__read(pd);
	post_dump__finish(pd);
}

void post_dump__exit(struct post_dump *pd)
{
	for (int i = 0; i < pd->q_nr; i++)
		free(pd->q[(pd->q_head + i) % POST_DUMP_QUEUE_MAX].path);
	pd->q_nr = 0;
	if (pd->sp.pid > 0) {
		spawn__kill(&pd->sp, SIGKILL);
		waitpid(pd->sp.pid, NULL, 0);
		close(pd->sp.out_fd);
		pd->sp.pid = -1;
	}
	free(pd->job.path);
	pd->job.path = NULL;
	free(pd->script);
	pd->script = NULL;
}
