/* Parses perf daemon's part of a perfconfig file, naming each mistake by
 * file and line. */
#include "daemon/daemon-config.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum section { SEC_OTHER, SEC_DAEMON, SEC_SESSION };

struct parser {
	struct daemon_config *c;
	const char *path;
	int line;
	enum section sec;
	struct daemon_session_config *cur;	/* the [session-NAME] being read */
	int cur_line;
	char *base;
	int base_line;
	char *errbuf;
	size_t errsz;
	int base_only;		/* a client: all it needs is the base */
};

static int parser__fail(struct parser *p, int line, int err, const char *fmt, ...)
{
	int n = line ? snprintf(p->errbuf, p->errsz, "%s:%d: ", p->path, line) :
		       snprintf(p->errbuf, p->errsz, "%s: ", p->path);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errsz)
		vsnprintf(p->errbuf + n, p->errsz - n, fmt, ap);
	va_end(ap);
	return -err;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A session name becomes a directory name and a field of -x output. */
static int valid_name(const char *s)
{
	if (!*s || strlen(s) > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return 0;
	return 1;
}

/* A session without run is an error found when its section ends. */
static int parser__end_section(struct parser *p)
{
	u64 ns;

	if (p->sec != SEC_SESSION)
		return 0;
	if (!p->cur->run)
		return parser__fail(p, p->cur_line, EINVAL, "session '%s' has no run", p->cur->name);
	if (p->cur->post_dump_timeout && !p->cur->post_dump)
		return parser__fail(p, p->cur_line, EINVAL, "session '%s' has a post-dump-timeout "
				    "but no post-dump", p->cur->name);
	if (p->cur->post_dump_timeout &&
	    parse_duration(p->cur->post_dump_timeout, 1000000, 86400ULL * 1000000000, &ns))
		return parser__fail(p, p->cur_line, EINVAL, "session '%s': post-dump-timeout '%s': "
				    "expected a time with its unit, 1ms to 1d (e.g. 30s, 5m)",
				    p->cur->name, p->cur->post_dump_timeout);
	return 0;
}

static int parser__section(struct parser *p, char *s)
{
	char *end = strchr(s, ']'), *name;
	struct daemon_session_config *n;
	int err = parser__end_section(p);

	if (err)
		return err;
	if (!end || *trim(end + 1))
		return parser__fail(p, p->line, EINVAL, "malformed section header");
	*end = '\0';
	name = trim(s + 1);
	p->sec = SEC_OTHER;
	if (!strcmp(name, "daemon")) {
		p->sec = SEC_DAEMON;
		return 0;
	}
	if (strncmp(name, "session-", 8) || p->base_only)
		return 0;
	name += 8;
	if (!valid_name(name))
		return parser__fail(p, p->line, EINVAL, "session name '%s': use letters, digits, "
				    "'_', '.', '-'", name);
	if (daemon_config__find(p->c, name))
		return parser__fail(p, p->line, EINVAL, "duplicate session '%s'", name);
	n = realloc(p->c->sessions, (p->c->nr_sessions + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->c->sessions = n;
	p->cur = &n[p->c->nr_sessions];
	p->cur->run = p->cur->post_dump = p->cur->post_dump_timeout = NULL;
	p->cur->name = strdup(name);
	if (!p->cur->name)
		return -ENOMEM;
	p->c->nr_sessions++;
	p->cur_line = p->line;
	p->sec = SEC_SESSION;
	return 0;
}

static int parser__set(struct parser *p, char **slot, const char *key, const char *val)
{
	if (*slot)
		return parser__fail(p, p->line, EINVAL, "'%s' given twice", key);
	if (!*val)
		return parser__fail(p, p->line, EINVAL, "'%s' has no value", key);
	*slot = strdup(val);
	return *slot ? 0 : -ENOMEM;
}

static int parser__keyval(struct parser *p, char *s)
{
	char *eq = strchr(s, '='), *key, *val;

	if (p->sec == SEC_OTHER)
		return 0;
	if (!eq)
		return parser__fail(p, p->line, EINVAL, "expected key = value");
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (p->sec == SEC_DAEMON && !strcmp(key, "base")) {
		p->base_line = p->line;
		return parser__set(p, &p->base, key, val);
	}
	if (p->sec == SEC_SESSION && !strcmp(key, "run"))
		return parser__set(p, &p->cur->run, key, val);
	if (p->sec == SEC_SESSION && !strcmp(key, "post-dump"))
		return parser__set(p, &p->cur->post_dump, key, val);
	if (p->sec == SEC_SESSION && !strcmp(key, "post-dump-timeout"))
		return parser__set(p, &p->cur->post_dump_timeout, key, val);
	if (p->base_only)
		return 0;
	return parser__fail(p, p->line, EINVAL, "unknown key '%s' in [%s%s]", key,
			    p->sec == SEC_DAEMON ? "daemon" : "session-",
			    p->sec == SEC_DAEMON ? "" : p->cur->name);
}

/* Nobody but us (and root) may change what the path REAL (resolved)
 * leads to: the base itself writable by us alone, and each directory
 * above it root's or ours and, if others may write it, sticky (they can
 * then neither rename nor remove what is ours in it). A user who could
 * would swap the base, and with it the fifos the daemon's clients trust
 * and the files a root daemon writes. */
static int parser__check_owners(struct parser *p, int line, const char *b, char *real)
{
	struct stat st;
	char *slash;

	/* the checks are on the directory used, the path resolved once: a
	 * link swapped between a check and the resolution cannot pass it */
	if (stat(real, &st))
		return parser__fail(p, line, errno, "base %s: %s", b, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return parser__fail(p, line, ENOTDIR, "base %s is not a directory", b);
	if (st.st_uid != geteuid())
		return parser__fail(p, line, EPERM, "base %s is owned by uid %u, not by us (uid %u)",
				    b, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return parser__fail(p, line, EPERM, "base %s is writable by %s (mode %04o): "
				    "chmod go-w it", b, st.st_mode & S_IWOTH ? "others" : "its group",
				    (unsigned)(st.st_mode & 07777));
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';	/* the parent; "/" stays "/" */
		if (stat(real, &st))
			return parser__fail(p, line, errno, "base %s: %s: %s", b, real,
					    strerror(errno));
		if (st.st_uid && st.st_uid != geteuid())
			return parser__fail(p, line, EPERM, "base %s: %s above it is owned by uid "
					    "%u: only root or we may own its parents", b, real,
					    (unsigned)st.st_uid);
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
			return parser__fail(p, line, EPERM, "base %s: %s above it is writable by "
					    "others (mode %04o) and not sticky", b, real,
					    (unsigned)(st.st_mode & 07777));
		if (slash == real)
			break;
	}
	return 0;
}

/* The base must be a directory of ours: the daemon writes its lock, its
 * sessions' data and their control fifos there. */
static int parser__check_base(struct parser *p, const char *base_override)
{
	const char *b = base_override ? base_override : p->base;
	int line = base_override ? 0 : p->base_line;
	char real[PATH_MAX];
	int err;

	if (!b)
		return parser__fail(p, p->line, EINVAL, "no base: add [daemon] base=DIR");
	if (base_override) {	/* the culprit is the command line, not the file */
		p->path = "--base";
		line = 0;
	}
	if (!realpath(b, real))
		return parser__fail(p, line, errno, "base %s: %s", b, strerror(errno));
	p->c->base = strdup(real);
	err = p->c->base ? parser__check_owners(p, line, b, real) : 0;
	if (err) {
		free(p->c->base);
		p->c->base = NULL;
		return err;
	}
	return p->c->base ? 0 : -ENOMEM;
}

/* The daemon runs what the file's run lines say, as its own user (root,
 * for a system-wide one): a file that another user owns or may write
 * would hand them that user's recorders, their -o and their -e. Checked
 * on the file opened, not its name, so no link swapped after a check
 * can pass it. A client reads only the base, itself checked. */
static int parser__check_file(struct parser *p, FILE *f)
{
	struct stat st;

	if (p->base_only)
		return 0;
	if (fstat(fileno(f), &st))
		return parser__fail(p, 0, errno, "%s", strerror(errno));
	if (st.st_uid && st.st_uid != geteuid())
		return parser__fail(p, 0, EPERM, "owned by uid %u: only root or we (uid %u) may "
				    "own the file whose sessions we run", (unsigned)st.st_uid,
				    (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return parser__fail(p, 0, EPERM, "writable by %s (mode %04o): chmod go-w it",
				    st.st_mode & S_IWOTH ? "others" : "its group",
				    (unsigned)(st.st_mode & 07777));
	return 0;
}

static int parser__line(struct parser *p, char *raw)
{
	char *s = trim(raw);

	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[')
		return parser__section(p, s);
	return parser__keyval(p, s);
}

struct daemon_config *daemon_config__new(const char *path, const char *base_override,
					 int base_only, char *errbuf, size_t errsz)
{
	struct parser p = { .path = path, .errbuf = errbuf, .errsz = errsz,
			    .base_only = base_only };
	char *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	p.c = calloc(1, sizeof(*p.c));
	if (!p.c || !(p.c->path = strdup(path))) {
		snprintf(errbuf, errsz, "perf daemon: %s", strerror(ENOMEM));
		goto fail_errno;
	}
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		snprintf(errbuf, errsz, "%s: %s", path, strerror(errno));
		goto fail;
	}
	err = parser__check_file(&p, f);
	while (!err && getline(&line, &cap, f) >= 0) {
		p.line++;
		err = parser__line(&p, line);
	}
	if (!err && ferror(f))
		err = parser__fail(&p, p.line, EIO, "read error");
	fclose(f);
	free(line);
	if (!err)
		err = parser__end_section(&p);
	if (!err)
		err = parser__check_base(&p, base_override);
	if (err == -ENOMEM)
		snprintf(errbuf, errsz, "%s: %s", path, strerror(ENOMEM));
fail:
	free(p.base);
	if (!err)
		return p.c;
	daemon_config__delete(p.c);
	errno = -err;
	return NULL;
fail_errno:
	daemon_config__delete(p.c);
	errno = ENOMEM;
	return NULL;
}

void daemon_config__delete(struct daemon_config *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_sessions; i++) {
		free(c->sessions[i].name);
		free(c->sessions[i].run);
		free(c->sessions[i].post_dump);
		free(c->sessions[i].post_dump_timeout);
	}
	free(c->sessions);
	free(c->base);
	free(c->path);
	free(c);
}

const struct daemon_session_config *daemon_config__find(const struct daemon_config *c,
							const char *name)
{
	for (int i = 0; i < c->nr_sessions; i++)
		if (!strcmp(c->sessions[i].name, name))
			return &c->sessions[i];
	return NULL;
}

const char *daemon_config__default_path(char *buf, size_t sz)
{
	const char *env = getenv("PERF_CONFIG"), *home = getenv("HOME");

	if (env && *env)
		return env;
	if (home && *home && (size_t)snprintf(buf, sz, "%s/.perfconfig", home) < sz &&
	    !access(buf, F_OK))
		return buf;
	return "/etc/perfconfig";
}
