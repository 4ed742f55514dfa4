/* Tracepoints: tracefs, their ids, glob matching, and the TRACING_DATA
 * feature. */
#ifndef PERF_TP_H
#define PERF_TP_H

#include "lib/buf.h"

struct tep_handle;

/* The tracefs directory, mounting tracefs at /sys/kernel/tracing if nothing
 * is mounted yet. NULL with errno set; the string is libtracefs's, never freed. */
const char *tp__dir(void);

/* 0 when dir/events can be listed, else -errno (-EACCES for a user while
 * tracefs is mode 700). Takes the dir the caller already has: while tracefs
 * is unreadable, libtracefs leaks a string on every tp__dir(). */
int tp__events_access(const char *dir);

/* Tracepoint id of sys:name (events/sys/name/id), or -errno (-ENOENT). */
int tp__id(const char *sys, const char *name);

/* Calls cb for every sys:name matching the two fnmatch() globs, in sorted
 * order. Returns the number of matches (0: none) or -errno from tracefs
 * (-EACCES: its events directory is not readable by us) or the first
 * non-zero return of cb. */
typedef int (*tp_match_cb)(const char *sys, const char *name, void *arg);
int tp__for_each_match(const char *sys_glob, const char *name_glob,
		       tp_match_cb cb, void *arg);

/* Appends the TRACING_DATA feature blob describing the given "sys:name"
 * tracepoints (stock perf's layout, version 0.6) to out. 0 or -errno. */
int tp__tracing_data(struct buf *out, const char *const *events, int nr);

struct id_hash;
/* What tp__parse_tracing_data() made of a blob's event formats. */
struct tp_formats {
	u32 nr;		/* formats read */
	u32 left_out;	/* not handed to libtraceevent: they failed its safety checks */
	u32 checks;	/* child processes that asked libtraceevent about those */
};
/* Builds a libtraceevent handle from a TRACING_DATA blob read from a file;
 * every size is checked against len. ids (if not NULL) gets the id of every
 * event the blob describes, including those whose format is left out as
 * unsafe (one child process asks libtraceevent about all of those at once).
 * st (if not NULL) gets the counts. NULL with errno = EINVAL on a malformed
 * blob. The caller frees it with tep_free(). */
struct tep_handle *tp__parse_tracing_data(const void *blob, size_t len, struct id_hash *ids,
					  struct tp_formats *st);

#endif
