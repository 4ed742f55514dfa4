/* perf daemon's config: the base directory and the sessions of a
 * perfconfig file. */
#ifndef PERF_DAEMON_CONFIG_H
#define PERF_DAEMON_CONFIG_H

#include <stddef.h>

/* perf daemon's part of a perfconfig file: [daemon] base=DIR and one
 * [session-NAME] run = <record args> per session, perhaps with
 * post-dump = <command> (perf record's --switch-output-exec) and
 * post-dump-timeout = <time> (its --switch-output-exec-timeout). Other
 * sections belong to other commands and are skipped. */
struct daemon_session_config {
	char *name;
	char *run;
	char *post_dump;	/* NULL: none */
	char *post_dump_timeout;	/* NULL: the recorder's default */
};

struct daemon_config {
	char *path;		/* the file read */
	char *base;		/* realpath of daemon.base */
	struct daemon_session_config *sessions;
	int nr_sessions;
};

/* Reads and checks PATH (base given on the command line overrides the
 * file's); with base_only, only what locates the daemon (clients work
 * while the file is being edited). A config the caller frees with daemon_config__delete(), or NULL
 * with errno set and errbuf holding one line: "FILE:LINE: problem". */
struct daemon_config *daemon_config__new(const char *path, const char *base_override,
					 int base_only, char *errbuf, size_t errsz);
void daemon_config__delete(struct daemon_config *c);
/* The session named NAME, or NULL. */
const struct daemon_session_config *daemon_config__find(const struct daemon_config *c,
							const char *name);
/* The config file to read when none is given: $PERF_CONFIG, else
 * ~/.perfconfig if it exists, else /etc/perfconfig. Static storage of the
 * environment or a literal; buf holds the home path. */
const char *daemon_config__default_path(char *buf, size_t sz);

#endif
