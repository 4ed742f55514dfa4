/* perf daemon's state as one JSON object: the status file's daemon and
 * sessions, each with its recorder's dump, trigger and post-dump
 * counters. */
#include "daemon/daemon-json.h"
#include "daemon/daemon-status.h"
#include "lib/json.h"

#include <limits.h>
#include <sys/wait.h>

/* The counters of ss, the state file of the session's recorder PID: a
 * file a recorder before it left says nothing of this one, but its last
 * dump is still the newest file. */
static void daemon_json__state(struct json *j, const struct session_state *ss, pid_t pid)
{
	const struct session_state none = { .hook_last_status = -1 };
	const struct session_state *c = ss->pid && ss->pid == pid ? ss : &none;
	int st = c->hook_last_status;

	json__u64(j, "dumps", c->dumps);
	json__u64(j, "dumps_failed", c->dumps_failed);
	json__str(j, "last_dump", ss->last_dump[0] ? ss->last_dump : NULL);
	if (ss->last_dump[0])
		json__double(j, "last_dump_time", ss->last_dump_time);
	else
		json__null(j, "last_dump_time");
	json__u64(j, "triggers_ignored", c->triggers_ignored);
	json__u64(j, "triggers_merged", c->triggers_merged);
	json__object(j, "hooks");
	json__u64(j, "runs", c->hook_runs);
	json__u64(j, "failed", c->hook_failed);
	json__u64(j, "killed", c->hook_killed);
	json__u64(j, "dropped", c->hook_dropped);
	json__u64(j, "queued", c->hook_queued);
	json__bool(j, "running", c->hook_running);
	if (st >= 0 && WIFEXITED(st))
		json__s64(j, "last_exit_status", WEXITSTATUS(st));
	else
		json__null(j, "last_exit_status");
	if (st >= 0 && WIFSIGNALED(st))
		json__s64(j, "last_signal", WTERMSIG(st));
	else
		json__null(j, "last_signal");
	json__end_object(j);
}

static void daemon_json__session(struct json *j, const struct status_session *s,
				 const char *base, const char *ping)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct session_state ss;

	snprintf(dir, sizeof(dir), "%s/session-%s", base, s->name);
	session_state__read(dir, &ss);
	json__object(j, NULL);
	json__str(j, "name", s->name);
	json__str(j, "run", s->run);
	if (s->pid > 0)
		json__s64(j, "pid", s->pid);
	else
		json__null(j, "pid");
	json__str(j, "state", s->state[0] ? s->state : NULL);
	if (s->pid > 0 && s->started > 0)
		json__s64(j, "started", (long long)s->started);
	else
		json__null(j, "started");
	json__u64(j, "restarts", s->restarts);
	json__str(j, "dir", dir);
	snprintf(path, sizeof(path), "%s/output", dir);
	json__str(j, "output", path);
	daemon_json__state(j, &ss, s->pid);
	if (ping)
		json__str(j, "ping", ping);
	json__end_object(j);
}

void daemon_json__print(FILE *f, const struct daemon_status *st, const char *base,
			const char *const *pings)
{
	char path[PATH_MAX + 16];
	struct json j;

	json__init(&j, f);
	json__object(&j, NULL);
	json__object(&j, "daemon");
	json__s64(&j, "pid", st->pid);
	json__str(&j, "base", base);
	json__str(&j, "config", st->config);
	json__s64(&j, "started", (long long)st->started);
	snprintf(path, sizeof(path), "%s/output", base);
	json__str(&j, "output", path);
	json__end_object(&j);
	json__array(&j, "sessions");
	for (int i = 0; i < st->nr; i++)
		daemon_json__session(&j, &st->sessions[i], base, pings ? pings[i] : NULL);
	json__end_array(&j);
	json__end_object(&j);
}
