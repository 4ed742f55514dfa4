/* perf daemon's state on disk: BASE/lock (one daemon per base) and
 * BASE/status (the daemon's and each session's pid), read by the clients. */
#include "daemon/daemon-status.h"
#include "daemon/daemon-session.h"
#include "flight/trigger.h"
#include "lib/escape.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* When PID started, in clock ticks since boot (/proc/PID/stat's 22nd
 * field): with the pid, it names one process for ever. 0 when unknown. */
static unsigned long long process_start(pid_t pid)
{
	unsigned long long start = 0;
	char path[64], *stat, *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = read_file(path, NULL);
	/* the comm may hold blanks and parentheses: the fields follow its last ')' */
	p = stat ? strrchr(stat, ')') : NULL;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		start = 0;
	free(stat);
	return start;
}

static pid_t lock_owner_fd(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (fcntl(fd, F_GETLK, &fl))
		return -errno;
	return fl.l_type == F_UNLCK ? 0 : fl.l_pid;
}

int daemon_lock__take(const char *base, char *errbuf, size_t errsz)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096], pid[64];
	int fd, err;

	snprintf(path, sizeof(path), "%s/lock", base);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errsz, "failed: perf daemon: lock %s: %s", path, strerror(errno));
		return err;
	}
	if (fcntl(fd, F_SETLK, &fl)) {
		err = errno == EACCES ? -EAGAIN : -errno;
		if (err == -EAGAIN)
			snprintf(errbuf, errsz, "failed: another perf daemon (pid %d) owns %s",
				 (int)lock_owner_fd(fd), base);
		else
			snprintf(errbuf, errsz, "failed: perf daemon: lock %s: %s", path,
				 strerror(-err));
		close(fd);
		return err;
	}
	/* who took it, for `perf daemon stop` to tell this daemon from any
	 * other process that holds a lock on the file */
	snprintf(pid, sizeof(pid), "%d %llu\n", (int)getpid(), process_start(getpid()));
	err = ftruncate(fd, 0) ? -errno : pwrite_all(fd, pid, strlen(pid), 0);
	if (err) {
		snprintf(errbuf, errsz, "failed: perf daemon: lock %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

pid_t daemon_lock__owner(const char *base, pid_t *holder)
{
	unsigned long long start = 0;
	char path[4096], text[64] = "";
	int fd, recorded = 0;
	pid_t pid;
	ssize_t n;

	*holder = 0;
	snprintf(path, sizeof(path), "%s/lock", base);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	pid = lock_owner_fd(fd);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	if (pid <= 0)
		return pid;
	*holder = pid;
	text[n > 0 ? n : 0] = '\0';
	/* the daemon wrote its pid and start when it took the lock: a
	 * process that holds a lock on the file but is not that one (the
	 * daemon died, something else locked the file) is nobody's to signal */
	if (sscanf(text, "%d %llu", &recorded, &start) != 2 || recorded != pid || !start ||
	    process_start(pid) != start)
		return -ESRCH;
	return pid;
}

int daemon_status__write(const char *base, pid_t daemon_pid, time_t started,
			 const char *config_path, const struct session_list *l, char *errbuf,
			 size_t errsz)
{
	char tmp[4096], path[4096], esc[ESCAPE_SIZE(PATH_MAX)];
	int fd, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", base);
	snprintf(tmp, sizeof(tmp), "%s/.status.%d", base, (int)getpid());
	unlink(tmp);	/* a crashed daemon of the same pid left it */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(errbuf, errsz, "%s: %s", tmp, strerror(-err));
		return err;
	}
	fprintf(f, "daemon\t%d\t%lld\n", (int)daemon_pid, (long long)started);
	for (int i = 0; i < l->nr; i++)
		if (!l->s[i]->removed)
			fprintf(f, "%s\t%d\t%lld\t%s\n", l->s[i]->name, (int)l->s[i]->pid,
				(long long)l->s[i]->started, l->s[i]->run);
	fprintf(f, "+config\t%s\n", escape__str(esc, sizeof(esc), config_path));
	for (int i = 0; i < l->nr; i++)
		if (!l->s[i]->removed)
			fprintf(f, "+session\t%s\t%s\t%u\n", l->s[i]->name,
				session__state(l->s[i]), l->s[i]->restarts);
	if (fflush(f) || ferror(f))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		snprintf(errbuf, errsz, "%s: %s", path, strerror(-err));
		unlink(tmp);
	}
	return err;
}

static int status__push(struct daemon_status *st, const char *name, const char *run, pid_t pid,
			time_t started)
{
	struct status_session *n = realloc(st->sessions, (st->nr + 1) * sizeof(*n)), *s;

	if (!n)
		return -ENOMEM;
	st->sessions = n;
	s = &n[st->nr];
	s->pid = pid;
	s->started = started;
	s->state[0] = '\0';
	s->restarts = 0;
	s->name = strdup(name);
	s->run = strdup(run);
	st->nr++;
	return s->name && s->run ? 0 : -ENOMEM;
}

/* "+config PATH", "+session NAME STATE RESTARTS" (f[3] holds the rest
 * of the line); others, of a newer daemon, skipped. */
static int status__extra(struct daemon_status *st, char **f, int nf)
{
	char path[PATH_MAX];

	if (!strcmp(f[0], "+config") && nf >= 2 && !st->config &&
	    !escape__undo(path, sizeof(path), f[1])) {
		st->config = strdup(path);
		return st->config ? 0 : -ENOMEM;
	}
	if (strcmp(f[0], "+session") || nf < 4)
		return 0;
	for (int i = 0; i < st->nr; i++) {
		struct status_session *s = &st->sessions[i];

		if (!strcmp(s->name, f[1]) && strlen(f[2]) < sizeof(s->state)) {
			strcpy(s->state, f[2]);
			s->restarts = strtoul(f[3], NULL, 10);
		}
	}
	return 0;
}

/* LINE, the FIRST of the file or not: the daemon's line is the first
 * alone, so that a session named "daemon" is a session like any other. */
static int status__add(struct daemon_status *st, char *line, int first)
{
	char *f[4], *save = NULL, *tok = strtok_r(line, "\t\n", &save);
	int nf = 0;

	for (; tok && nf < 4; tok = nf < 3 ? strtok_r(NULL, "\t\n", &save) :
						strtok_r(NULL, "\n", &save))
		f[nf++] = tok;
	if (!nf)
		return 0;
	if (first) {
		if (strcmp(f[0], "daemon") || nf < 3)
			return 0;
		st->pid = atoi(f[1]);
		st->started = atoll(f[2]);
		return 0;
	}
	if (f[0][0] == '+')
		return status__extra(st, f, nf);
	if (nf < 4)
		return 0;
	return status__push(st, f[0], f[3], atoi(f[1]), atoll(f[2]));
}

struct daemon_status *daemon_status__new(const char *base)
{
	struct daemon_status *st = calloc(1, sizeof(*st));
	char path[4096], *line = NULL;
	size_t cap = 0;
	int err = 0, fd;
	FILE *f;

	if (!st)
		return NULL;
	snprintf(path, sizeof(path), "%s/status", base);
	fd = regular_file__open(AT_FDCWD, path, NULL);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		err = fd < 0 ? -fd : errno;
		if (fd >= 0)
			close(fd);
		goto out;
	}
	for (int first = 1; !err && getline(&line, &cap, f) > 0; first = 0)
		err = -status__add(st, line, first);
	free(line);
	fclose(f);
out:
	if (!err)
		return st;
	daemon_status__delete(st);
	errno = err;
	return NULL;
}

static int status__has(const struct daemon_status *st, const char *name)
{
	for (int i = 0; i < st->nr; i++)
		if (!strcmp(st->sessions[i].name, name))
			return 1;
	return 0;
}

/* Whether BASE/session-NAME is a directory of ours whose control fifo a
 * recorder holds open (a fifo without a reader refuses a writer: ENXIO). */
static int session_dir__running(int base_fd, const char *name, int *exists)
{
	char path[300];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "session-%s", name);
	*exists = !fstatat(base_fd, path, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
		  st.st_uid == geteuid();
	if (!*exists)
		return 0;
	snprintf(path, sizeof(path), "session-%s/control", name);
	fd = openat(base_fd, path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int daemon_status__add_sessions(struct daemon_status *st, const char *base, const char *name)
{
	int base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), exists, err = 0;
	struct dirent *de;
	DIR *dir;

	if (base_fd < 0)
		return -errno;
	if (name) {
		/* a name as the config allows them: never a path */
		if (*name && name[0] != '.' && !name[strspn(name, SESSION_NAME_CHARS)] &&
		    strlen(name) < 256 && !status__has(st, name) &&
		    (session_dir__running(base_fd, name, &exists) || exists))
			err = status__push(st, name, "?", 0, 0);
		close(base_fd);
		return err;
	}
	dir = fdopendir(base_fd);
	if (!dir) {
		err = -errno;
		close(base_fd);
		return err;
	}
	while (!err && (de = readdir(dir))) {
		const char *n = de->d_name + 8;

		if (!strncmp(de->d_name, "session-", 8) && *n && !n[strspn(n, SESSION_NAME_CHARS)] &&
		    !status__has(st, n) && session_dir__running(dirfd(dir), n, &exists))
			err = status__push(st, n, "?", 0, 0);
	}
	closedir(dir);
	return err;
}

void daemon_status__delete(struct daemon_status *st)
{
	if (!st)
		return;
	free(st->config);
	for (int i = 0; i < st->nr; i++) {
		free(st->sessions[i].name);
		free(st->sessions[i].run);
	}
	free(st->sessions);
	free(st);
}

/* Only the tail: a session's output grows with every dump it announces,
 * and the count that matters is the last one its current run logged. */
#define OUTPUT_TAIL (1 << 20)

long long session_output__ignored(const char *session_dir, pid_t pid)
{
	size_t cap = 0, mark = strlen(SESSION_START_MARK), msg = strlen(TRIGGER_IGNORED_MSG);
	long long ignored = 0, n;
	char path[4096], *line = NULL;
	int ours = 1, fd;
	off_t size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/output", session_dir);
	fd = regular_file__open(AT_FDCWD, path, NULL);
	if (fd < 0)
		return fd;
	size = lseek(fd, 0, SEEK_END);
	if (size < 0 || lseek(fd, size > OUTPUT_TAIL ? size - OUTPUT_TAIL : 0, SEEK_SET) < 0 ||
	    !(f = fdopen(fd, "r"))) {
		n = -errno;
		close(fd);
		return n;
	}
	/* a run's lines follow its start mark; with no mark in the tail,
	 * they are the current run's */
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, SESSION_START_MARK, mark)) {
			ours = atoi(line + mark) == (int)pid;
			ignored = 0;
		} else if (ours && !strncmp(line, TRIGGER_IGNORED_MSG, msg) &&
			   sscanf(line + msg, "%lld", &n) == 1) {
			ignored = n;
		}
	}
	free(line);
	fclose(f);
	return ours ? ignored : 0;
}

/* One "KEY VALUE" line of a state file into ss. */
static void session_state__line(struct session_state *ss, const char *key, const char *val)
{
	static const struct { const char *key; size_t off; } counts[] = {
		{ "dumps", offsetof(struct session_state, dumps) },
		{ "dumps_failed", offsetof(struct session_state, dumps_failed) },
		{ "triggers_ignored", offsetof(struct session_state, triggers_ignored) },
		{ "triggers_merged", offsetof(struct session_state, triggers_merged) },
		{ "hook_runs", offsetof(struct session_state, hook_runs) },
		{ "hook_failed", offsetof(struct session_state, hook_failed) },
		{ "hook_killed", offsetof(struct session_state, hook_killed) },
		{ "hook_dropped", offsetof(struct session_state, hook_dropped) },
		{ "hook_queued", offsetof(struct session_state, hook_queued) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		if (!strcmp(key, counts[i].key)) {
			*(unsigned long long *)((char *)ss + counts[i].off) = strtoull(val, NULL, 10);
			return;
		}
	}
	if (!strcmp(key, "pid"))
		ss->pid = atoi(val);
	else if (!strcmp(key, "hook_running"))
		ss->hook_running = atoi(val);
	else if (!strcmp(key, "hook_last_status"))
		ss->hook_last_status = atoi(val);
	else if (!strcmp(key, "last_dump_time"))
		ss->last_dump_time = strtod(val, NULL);
	else if (!strcmp(key, "last_dump") &&
		 escape__undo(ss->last_dump, sizeof(ss->last_dump), val))
		ss->last_dump[0] = '\0';
}

/* The text of SESSION_DIR/state, malloc'd and NUL-terminated: never
 * through a link (the session's directory's or the file's), a regular
 * file only (a fifo would hold the reader), at most SESSION_STATE_MAX
 * bytes. NULL with errno set. */
static char *session_state__load(const char *session_dir)
{
	int dfd = open(session_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd, err;
	char *buf;

	fd = dfd < 0 ? -errno : regular_file__open(dfd, SESSION_STATE_FILE, NULL);
	if (dfd >= 0)
		close(dfd);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	buf = read_fd(fd, SESSION_STATE_MAX, NULL);
	err = errno;
	close(fd);
	errno = err;
	return buf;
}

int session_state__read(const char *session_dir, struct session_state *ss)
{
	char *text, *line, *save = NULL, *sp;

	memset(ss, 0, sizeof(*ss));
	ss->hook_last_status = -1;
	text = session_state__load(session_dir);
	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (sp) {
			*sp = '\0';
			session_state__line(ss, line, sp + 1);
		}
	}
	free(text);
	return 0;
}
