#include "util/tp.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

const char *tp__dir(void)
{
	const char *path = tracefs_tracing_dir();	/* cached by libtracefs */

	if (path)
		return path;
	/* not mounted: mount it, as perf does; the path it returns is ours */
	if (tracefs_tracing_dir_is_mounted(true, &path) < 0) {
		if (!errno)
			errno = ENOENT;
		return NULL;
	}
	free((char *)path);
	path = tracefs_tracing_dir();
	if (!path && !errno)
		errno = ENOENT;
	return path;
}

static int tp__path(char *out, size_t sz, const char *sys, const char *name,
		    const char *file)
{
	const char *dir = tp__dir();

	if (!dir)
		return -errno;
	if ((size_t)snprintf(out, sz, "%s/events/%s/%s/%s", dir, sys, name, file) >= sz)
		return -ENAMETOOLONG;
	return 0;
}

int tp__events_access(const char *dir)
{
	char path[512];

	if ((size_t)snprintf(path, sizeof(path), "%s/events", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	return access(path, R_OK | X_OK) ? -errno : 0;
}

int tp__id(const char *sys, const char *name)
{
	char path[512], *s;
	int err = tp__path(path, sizeof(path), sys, name, "id"), id;

	if (err)
		return err;
	s = read_file(path, NULL);
	if (!s)
		return -errno;
	id = atoi(s);
	free(s);
	return id > 0 ? id : -EINVAL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_len(char **l)
{
	int n = 0;

	while (l && l[n])
		n++;
	return n;
}

int tp__for_each_match(const char *sys_glob, const char *name_glob,
		       tp_match_cb cb, void *arg)
{
	const char *dir = tp__dir();
	char **systems;
	int matches = 0, err, nsys;

	if (!dir)
		return -errno;
	/* libtracefs lists an unreadable directory as empty: tell them apart */
	err = tp__events_access(dir);
	if (err)
		return err;
	systems = tracefs_event_systems(dir);
	if (!systems)
		return -ENOENT;
	nsys = list_len(systems);
	qsort(systems, nsys, sizeof(char *), cmp_str);
	for (int i = 0; !err && i < nsys; i++) {
		char **events;
		int nev;

		if (fnmatch(sys_glob, systems[i], 0))
			continue;
		events = tracefs_system_events(dir, systems[i]);
		nev = list_len(events);
		if (nev)
			qsort(events, nev, sizeof(char *), cmp_str);
		for (int j = 0; !err && j < nev; j++) {
			if (fnmatch(name_glob, events[j], 0))
				continue;
			matches++;
			err = cb(systems[i], events[j], arg);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	return err ? err : matches;
}

static int add_sized_file(struct buf *out, const char *path, int size_bytes)
{
	size_t at = out->len, len;
	int err;

	buf__zero(out, size_bytes);
	err = buf__file(out, path, &len);
	if (err)
		return err;
	if (!out->err)
		memcpy(out->p + at, size_bytes == 8 ? (void *)&(u64){ len } : (void *)&(u32){ len },
		       size_bytes);
	return 0;
}

static int sys_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tp__tracing_data(struct buf *out, const char *const *events, int nr)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *dir = tp__dir();
	const char **sorted;
	char path[512];
	int err = 0, nsys = 0;

	if (!dir)
		return -errno;
	sorted = malloc(nr * sizeof(*sorted) + 1);
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, events, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), sys_cmp);

	buf__add(out, magic, sizeof(magic));
	buf__str0(out, "0.6");
	buf__u8(out, 0);			/* little endian */
	buf__u8(out, sizeof(long));
	buf__u32(out, sysconf(_SC_PAGESIZE));

	buf__str0(out, "header_page");
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	err = add_sized_file(out, path, 8);
	if (err)
		goto out;
	buf__str0(out, "header_event");
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	err = add_sized_file(out, path, 8);
	if (err)
		goto out;
	buf__u32(out, 0);			/* no ftrace-internal formats */

	for (int i = 0; i < nr; i++)
		if (i == 0 || strcspn(sorted[i], ":") != strcspn(sorted[i - 1], ":") ||
		    strncmp(sorted[i], sorted[i - 1], strcspn(sorted[i], ":")))
			nsys++;
	buf__u32(out, nsys);
	for (int i = 0; i < nr;) {
		size_t syslen = strcspn(sorted[i], ":");
		int j = i;

		while (j < nr && strcspn(sorted[j], ":") == syslen &&
		       !strncmp(sorted[j], sorted[i], syslen))
			j++;
		buf__add(out, sorted[i], syslen);
		buf__u8(out, 0);
		buf__u32(out, j - i);
		for (; i < j; i++) {
			snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", dir,
				 (int)syslen, sorted[i], sorted[i] + syslen + 1);
			err = add_sized_file(out, path, 8);
			if (err)
				goto out;
		}
	}
	buf__u32(out, 0);			/* kallsyms: readers use /proc */
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	if (add_sized_file(out, path, 4))
		buf__u32(out, 0);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	if (add_sized_file(out, path, 8))
		buf__u64(out, 0);
	err = out->err;
out:
	free(sorted);
	return err;
}

/* A bounds-checked cursor over the blob. */
struct cursor {
	const char *p, *end;
	int bad;
};

static const void *cur_take(struct cursor *c, u64 n)
{
	const char *at = c->p;

	if (c->bad || n > (u64)(c->end - c->p)) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return at;
}

static u64 cur_uint(struct cursor *c, int size)
{
	const void *p = cur_take(c, size);
	u64 v = 0;

	if (p)
		memcpy(&v, p, size);	/* little-endian files only */
	return v;
}

static const char *cur_str(struct cursor *c)
{
	const char *nul;

	if (c->bad)
		return NULL;
	nul = memchr(c->p, 0, c->end - c->p);
	if (!nul) {
		c->bad = 1;
		return NULL;
	}
	return cur_take(c, nul - c->p + 1);
}

/* Copies n blob bytes into a NUL-terminated buffer libtraceevent may edit. */
static char *cur_dup(struct cursor *c, u64 n)
{
	const char *p = cur_take(c, n);
	char *s = p ? malloc(n + 1) : NULL;

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

struct tep_handle *tp__parse_tracing_data(const void *blob, size_t len)
{
	struct cursor c = { blob, (const char *)blob + len, 0 };
	struct tep_handle *tep = tep_alloc();
	const char *magic, *version, *sys;
	u32 count, nsys;
	char *s;
	u64 n;

	if (!tep)
		return NULL;
	magic = cur_take(&c, 10);
	if (!magic || memcmp(magic, "\027\010\104tracing", 10))
		goto bad;
	version = cur_str(&c);
	if (!version || cur_uint(&c, 1) != 0)
		goto bad;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, cur_uint(&c, 1));
	tep_set_page_size(tep, cur_uint(&c, 4));

	if (!(s = (char *)cur_str(&c)) || strcmp(s, "header_page"))
		goto bad;
	n = cur_uint(&c, 8);
	s = cur_dup(&c, n);
	if (!s)
		goto bad;
	tep_parse_header_page(tep, s, n, tep_get_long_size(tep));
	free(s);
	if (!(s = (char *)cur_str(&c)) || strcmp(s, "header_event"))
		goto bad;
	cur_take(&c, cur_uint(&c, 8));

	count = cur_uint(&c, 4);
	for (u32 i = 0; i < count && !c.bad; i++)
		cur_take(&c, cur_uint(&c, 8));
	nsys = cur_uint(&c, 4);
	for (u32 i = 0; i < nsys && !c.bad; i++) {
		sys = cur_str(&c);
		count = cur_uint(&c, 4);
		for (u32 j = 0; j < count && !c.bad; j++) {
			n = cur_uint(&c, 8);
			s = cur_dup(&c, n);
			if (!s)
				goto bad;
			tep_parse_event(tep, s, n, sys);
			free(s);
		}
	}
	n = cur_uint(&c, 4);			/* kallsyms */
	cur_take(&c, n);
	n = cur_uint(&c, 4);
	s = cur_dup(&c, n);
	if (s && n)
		tep_parse_printk_formats(tep, s);
	free(s);
	if (c.bad)
		goto bad;
	if (atof(version) >= 0.6 && c.p < c.end) {
		n = cur_uint(&c, 8);
		s = cur_dup(&c, n);
		if (s && n)
			tep_parse_saved_cmdlines(tep, s);
		free(s);
	}
	return tep;
bad:
	tep_free(tep);
	errno = EINVAL;
	return NULL;
}
