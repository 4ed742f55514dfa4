/* perf daemon's config file (daemon/daemon-config.c): sections, sessions,
 * and each mistake named by file and line. */
#include "tests/tests.h"
#include "daemon/daemon-config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes TEXT (with BASE for every %s) to a temp file; its path in buf. */
static int write_config(char *buf, const char *text, const char *base)
{
	int fd = mkstemp(buf);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, text, base, base);
	return fclose(f) ? -1 : 0;
}

static int test_daemon_config(struct test_ctx *ctx)
{
	static const struct { const char *text, *want; int err, base_ok; } bad[] = {
		{ "[daemon]\nbase = %s\nbse = 1\n", ":3: unknown key 'bse' in [daemon]", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\n\n[session-b]\nrun=-a\n", ":3: session 'a' has no run", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\n", ":3: session 'a' has no run", EINVAL, 1 },
		{ "[session-a]\nrun=-a\n[daemon]\nbase=%s\n[session-a]\nrun=-a\n", ":5: duplicate session 'a'", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\nrun=-a\nrun=-b\n", ":5: 'run' given twice", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\nrun=-a\npost-dump-timeout=5s\n",
		  ":3: session 'a' has a post-dump-timeout but no post-dump", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\nrun=-a\npost-dump=x {}\npost-dump-timeout=5\n",
		  ":3: session 'a': post-dump-timeout '5': expected a time with its unit", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-a]\nrun=-a\npost-dump=x\npost-dump=y\n",
		  ":6: 'post-dump' given twice", EINVAL, 1 },
		{ "[daemon]\nbase=%s\nbase=%s\n", ":3: 'base' given twice", EINVAL, 0 },
		{ "[daemon]\nbase=%s\n[session-a/b]\nrun=-a\n", ":3: session name 'a/b': use letters, digits, '_', '.', '-'", EINVAL, 1 },
		{ "[daemon]\nbase=%s\n[session-..]\nrun=-a\n", ":3: session name '..'", EINVAL, 1 },
		{ "[daemon\nbase=%s\n", ":1: malformed section header", EINVAL, 0 },
		{ "[daemon]\nbase\n", ":2: expected key = value", EINVAL, 0 },
		{ "[daemon]\nbase =\n", ":2: 'base' has no value", EINVAL, 0 },
		{ "# nothing\n", ":1: no base: add [daemon] base=DIR", EINVAL, 0 },
		{ "[daemon]\nbase=/nonexistent/x\n", ":2: base /nonexistent/x: No such file or directory", ENOENT, 0 },
		{ "[daemon]\nbase=/dev/null\n", ":2: base /dev/null is not a directory", ENOTDIR, 0 },
	};
	char base[] = "/tmp/frdaemon.XXXXXX", path[64], err[512];
	struct daemon_config *c;

	TEST_ASSERT(mkdtemp(base), "mkdtemp: %s", strerror(errno));
	/* other sections, comments, blanks and spacing are fine */
	strcpy(path, "/tmp/frdaemon-cfg.XXXXXX");
	TEST_ASSERT(!write_config(path, "; perfconfig\n[record]\nfoo = bar\n  [daemon]  \n\tbase =  %s \n"
				  "[session-x.1]\n# c\n run = -a  -e cpu-clock \n"
				  "post-dump = /usr/local/bin/ship-dump {} --to 'a b'\n"
				  "post-dump-timeout = 90s\n[report]\nrun = x\n",
				  base), "write");
	c = daemon_config__new(path, NULL, 0, err, sizeof(err));
	TEST_ASSERT(c, "good config refused: %s", err);
	TEST_ASSERT(!strcmp(c->base, base) && c->nr_sessions == 1, "base %s, %d sessions", c->base,
		    c->nr_sessions);
	TEST_ASSERT(!strcmp(c->sessions[0].name, "x.1") && !strcmp(c->sessions[0].run, "-a  -e cpu-clock"),
		    "session '%s' run '%s'", c->sessions[0].name, c->sessions[0].run);
	TEST_ASSERT(!strcmp(c->sessions[0].post_dump, "/usr/local/bin/ship-dump {} --to 'a b'") &&
		    !strcmp(c->sessions[0].post_dump_timeout, "90s"), "post-dump '%s' timeout '%s'",
		    c->sessions[0].post_dump, c->sessions[0].post_dump_timeout);
	TEST_ASSERT(daemon_config__find(c, "x.1") == &c->sessions[0] && !daemon_config__find(c, "x"),
		    "find");
	daemon_config__delete(c);
	unlink(path);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(path, "/tmp/frdaemon-cfg.XXXXXX");
		TEST_ASSERT(!write_config(path, bad[i].text, base), "write");
		errno = 0;
		c = daemon_config__new(path, NULL, 0, err, sizeof(err));
		TEST_LOG(ctx, "  %s\n", err);
		TEST_ASSERT(!c && errno == bad[i].err, "case %zu: config %p, errno %d", i, (void *)c, errno);
		TEST_ASSERT(!strncmp(err, path, strlen(path)) &&
			    !strncmp(err + strlen(path), bad[i].want, strlen(bad[i].want)),
			    "case %zu: '%s', want '%s%s'", i, err, path, bad[i].want);
		/* a client needs the base alone: the sessions' mistakes are not its */
		c = daemon_config__new(path, NULL, 1, err, sizeof(err));
		TEST_ASSERT(!!c == bad[i].base_ok, "case %zu: base_only %s", i, c ? "read it" : err);
		daemon_config__delete(c);
		unlink(path);
	}
	/* the daemon runs the file's sessions: one that others may write
	 * is refused, by the daemon only (a client reads the base alone) */
	strcpy(path, "/tmp/frdaemon-cfg.XXXXXX");
	TEST_ASSERT(!write_config(path, "[daemon]\nbase=%s\n", base), "write");
	TEST_ASSERT(!chmod(path, 0620), "chmod: %s", strerror(errno));
	errno = 0;
	c = daemon_config__new(path, NULL, 0, err, sizeof(err));
	TEST_LOG(ctx, "  %s\n", err);
	TEST_ASSERT(!c && errno == EPERM && !strncmp(err, path, strlen(path)) &&
		    !strcmp(err + strlen(path), ": writable by its group (mode 0620): chmod go-w it"),
		    "group-writable config: '%s'", err);
	c = daemon_config__new(path, NULL, 1, err, sizeof(err));
	TEST_ASSERT(c, "a client refused a group-writable config: %s", err);
	daemon_config__delete(c);
	unlink(path);
	/* --base overrides the file's and is named as the culprit */
	strcpy(path, "/tmp/frdaemon-cfg.XXXXXX");
	TEST_ASSERT(!write_config(path, "[daemon]\nbase=%s\n", base), "write");
	c = daemon_config__new(path, "/dev/null", 0, err, sizeof(err));
	TEST_ASSERT(!c && !strcmp(err, "--base: base /dev/null is not a directory"), "--base: '%s'", err);
	unlink(path);
	rmdir(base);
	return TEST_OK;
}

const struct test_suite suite_daemon_daemon_config = {
	"daemon/daemon-config", "perf daemon's config: sections, sessions, and each mistake named by file and line",
	test_daemon_config,
};
