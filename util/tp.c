/* Tracepoints through libtracefs and libtraceevent: their ids, glob
 * matches, and the TRACING_DATA feature that describes them. */
#include "util/tp.h"
#include "lib/cursor.h"
#include "lib/id-hash.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
static const char *cur_str(struct cursor *c)
{
	const char *nul;

	if (c->bad)
		return NULL;
	nul = memchr(c->p + c->pos, 0, c->size - c->pos);
	if (!nul) {
		c->bad = 1;
		return NULL;
	}
	return cursor__take(c, nul - (c->p + c->pos) + 1);
}

/* Copies n blob bytes into a NUL-terminated buffer libtraceevent may edit. */
static char *cur_dup(struct cursor *c, u64 n)
{
	const char *p = cursor__take(c, n);
	char *s = p ? malloc(n + 1) : NULL;

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/*
 * libtraceevent 1.7 trusts the format files it parses: a print fmt whose
 * __print_flags()/__print_symbolic() name a field the event lacks crashes
 * it when printing, and syntax errors leak its tokens. So a format reaches
 * it only when every line has the shape the kernel writes, every REC->name
 * is a declared field, every field lies inside the largest possible record,
 * every divisor is a non-zero constant, no sizeof() is used (libtraceevent
 * before 1.7.2 frees a token twice parsing it), and the print fmt's quotes
 * and brackets balance.
 */
#define FMT_MAX_FIELDS	128
#define FMT_MAX_NAME	64
#define FMT_MAX_DEPTH	64

struct fmt_fields {
	int nr;
	char name[FMT_MAX_FIELDS][FMT_MAX_NAME];
};

static int is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The field's name: the last identifier before s..e's array suffix. */
static int fmt_field_name(const char *s, const char *e, char *out)
{
	const char *b, *bracket = memchr(s, '[', e - s);

	if (bracket && !memchr(bracket + 1, '[', e - bracket - 1) && e[-1] == ']')
		e = bracket;	/* "char comm[16]" but not "__data_loc char[] name" */
	while (e > s && e[-1] == ' ')
		e--;
	for (b = e; b > s && is_ident(b[-1]); b--)
		;
	if (b == e || e - b >= FMT_MAX_NAME)
		return 0;
	memcpy(out, b, e - b);
	out[e - b] = '\0';
	return 1;
}

/* "field:TYPE NAME;<TAB>offset:N;<TAB>size:N;..." */
static int fmt_field_line(const char *l, const char *end, struct fmt_fields *f)
{
	const char *semi = memchr(l, ';', end - l), *p;
	unsigned long off, size;
	char *num;

	if (!semi || f->nr == FMT_MAX_FIELDS || !fmt_field_name(l + 6, semi, f->name[f->nr]))
		return 0;
	for (p = l + 6; p < semi; p++) {
		if (*p == '[') {	/* "[N]" or "[]", nothing else inside */
			while (++p < semi && is_ident(*p))
				;
			if (p == semi || *p != ']')
				return 0;
		} else if (!is_ident(*p) && *p != ' ' && *p != '*') {
			return 0;
		}
	}
	p = semi + 1;
	if (end - p < 9 || memcmp(p, "\toffset:", 8) || !isdigit((unsigned char)p[8]))
		return 0;
	off = strtoul(p + 8, &num, 10);
	if (end - num < 8 || memcmp(num, ";\tsize:", 7) || !isdigit((unsigned char)num[7]))
		return 0;
	size = strtoul(num + 7, &num, 10);
	/* a record is at most 64 KiB: a field beyond that is a lie */
	if (num >= end || *num != ';' || off > 65536 || size > 65536 - off)
		return 0;
	f->nr++;
	return 1;
}

static int fmt_known(const struct fmt_fields *f, const char *s, size_t n)
{
	for (int i = 0; i < f->nr; i++)
		if (strlen(f->name[i]) == n && !memcmp(f->name[i], s, n))
			return 1;
	return 0;
}

/* The divisor after a '/' or '%' of the print fmt's arguments, p..end.
 * libtraceevent divides unchecked: two constants when it parses, fields
 * when it prints, and a zero is SIGFPE. So only what the kernel writes is
 * taken: a non-zero number, alone or in parentheses. */
static int fmt_divisor_ok(const char *p, const char *end)
{
	const char *tok;
	char num[32];
	int paren;

	while (p < end && *p == ' ')
		p++;
	paren = p < end && *p == '(';
	for (p += paren; p < end && *p == ' '; p++)
		;
	for (tok = p; p < end && is_ident(*p); p++)
		;
	if (p == tok || !isdigit((unsigned char)*tok) || (size_t)(p - tok) >= sizeof(num))
		return 0;
	memcpy(num, tok, p - tok);
	num[p - tok] = '\0';
	/* read as libtraceevent reads it: "08" and "0x" are 0 */
	if (!strtoull(num, NULL, 0))
		return 0;
	while (paren && p < end && *p == ' ')
		p++;
	return !paren || (p < end && *p == ')');
}

/* p..end: the text after "print fmt: " */
static int fmt_print_ok(const char *p, const char *end, const struct fmt_fields *f)
{
	const char *start = p;
	char close[FMT_MAX_DEPTH];
	int depth = 0;

	if (p == end || *p != '"')
		return 0;
	while (p < end) {
		char c = *p++;

		if (c == '"') {
			while (p < end && *p != '"')
				p += (*p == '\\' && end - p > 1) ? 2 : 1;
			if (p++ >= end)
				return 0;
		} else if (c == '(' || c == '{' || c == '[') {
			if (depth == FMT_MAX_DEPTH)
				return 0;
			close[depth++] = c == '(' ? ')' : c == '{' ? '}' : ']';
		} else if (c == ')' || c == '}' || c == ']') {
			if (!depth || close[--depth] != c)
				return 0;
		} else if (c == 'R' && end - p >= 4 && !memcmp(p, "EC->", 4)) {
			const char *id = p + 4;

			for (p = id; p < end && is_ident(*p); p++)
				;
			if (!fmt_known(f, id, p - id))
				return 0;
		} else if ((c == '/' || c == '%') && !fmt_divisor_ok(p, end)) {
			return 0;
		} else if (c == 's' && end - p >= 5 && !memcmp(p, "izeof", 5) &&
			   (p - 1 == start || !is_ident(p[-2])) && (p + 5 == end || !is_ident(p[5]))) {
			return 0;	/* see above */
		} else if ((unsigned char)c < 0x20 ? c != '\t' : (unsigned char)c > 0x7e) {
			return 0;
		}
	}
	return depth == 0;
}

static int line_is(const char *t, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - t) >= n && !memcmp(t, word, n);
}

static int tp__format_ok(const char *s, size_t n)
{
	struct fmt_fields *f = calloc(1, sizeof(*f));
	const char *end = s + n, *l = s;
	int ok = 0;

	if (!f || memchr(s, 0, n))
		goto out;
	while (l < end) {
		const char *nl = memchr(l, '\n', end - l), *e = nl ? nl : end, *t = l;

		while (t < e && (*t == '\t' || *t == ' '))
			t++;
		if (line_is(t, e, "print fmt: ")) {
			const char *rest = e;

			while (rest < end && isspace((unsigned char)*rest))
				rest++;
			ok = rest == end && fmt_print_ok(t + 11, e, f);	/* the last line */
			break;
		}
		if (line_is(t, e, "field:") ? !fmt_field_line(t, e, f) :
		    t != e && !line_is(t, e, "name: ") && !line_is(t, e, "ID: ") &&
		    !(e - t == 7 && line_is(t, e, "format:")))
			break;
		l = e + (nl != NULL);
	}
out:
	free(f);
	return ok;
}

/*
 * printk_formats lines are "ADDR : \"FORMAT\""; libtraceevent reads past
 * the buffer on a line without " : " or too short to hold it. Keeps only
 * lines of that exact shape (the others are of no use anyway).
 */
static char *tp__printk_filter(char *s)
{
	char *out = s, *line = s;

	while (*line) {
		char *nl = strchr(line, '\n'), *e = nl ? nl : line + strlen(line), *p = line;

		while (p < e && isxdigit((unsigned char)*p))
			p++;
		if (p > line && e - p >= 5 && !memcmp(p, " : \"", 4) && e[-1] == '"') {
			memmove(out, line, e - line);
			out += e - line;
			*out++ = '\n';
		}
		line = nl ? nl + 1 : e;
	}
	*out = '\0';
	return s;
}

/* The "ID: N" line of an event format, or 0. */
static u64 tp__format_id(const char *fmt)
{
	const char *at = !strncmp(fmt, "ID: ", 4) ? fmt : strstr(fmt, "\nID: ");

	if (!at)
		return 0;
	return strtoull(at + (at == fmt ? 4 : 5), NULL, 10);
}

/* The formats left out of the handle as unsafe, kept to ask at the end
 * whether libtraceevent would have registered their events. */
struct tp_rejects {
	struct tp_reject {
		char *fmt;
		u64 n;
		const char *sys;
	} *v;
	u32 nr, cap;
};

static int tp_rejects__add(struct tp_rejects *rj, char *fmt, u64 n, const char *sys)
{
	if (rj->nr == rj->cap) {
		u32 cap = rj->cap ? rj->cap * 2 : 16;
		struct tp_reject *v = realloc(rj->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rj->v = v;
		rj->cap = cap;
	}
	rj->v[rj->nr++] = (struct tp_reject){ fmt, n, sys };
	return 0;
}

static void tp_rejects__exit(struct tp_rejects *rj)
{
	for (u32 i = 0; i < rj->nr; i++)
		free(rj->v[i].fmt);
	free(rj->v);
}

/* The child: each rejected format parsed alone, the index of each one
 * libtraceevent registers written to fd. Its output is silenced: the
 * formats failed our checks and libtraceevent may crash or leak on them. */
static void __attribute__((noreturn)) tp_rejects__child(const struct tp_rejects *rj, int fd)
{
	int null = open("/dev/null", O_WRONLY);

	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	for (u32 i = 0; i < rj->nr; i++) {
		struct tep_handle *tep = tep_alloc();

		if (!tep)
			_exit(1);
		tep_parse_event(tep, rj->v[i].fmt, rj->v[i].n, rj->v[i].sys);
		if (tep_find_event(tep, tp__format_id(rj->v[i].fmt)) &&
		    write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(1);
		tep_free(tep);
	}
	_exit(0);
}

/* Would libtraceevent register the rejected formats' events at all? The
 * answer is what the stock perf, which parses them in-process, makes of
 * the file. One child asks for all of them; a format that kills it
 * (the stock perf dies on the file too) leaves the ones not answered yet
 * undescribed. Each registered one's id goes into ids. 0 or -errno. */
static int tp_rejects__ask(const struct tp_rejects *rj, struct tep_handle *tep,
			   struct id_hash *ids, struct tp_formats *st)
{
	int fds[2], ret = 0;
	pid_t pid;
	u32 i;

	if (!rj->nr)
		return 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (pid == 0)
		tp_rejects__child(rj, fds[1]);
	close(fds[1]);
	if (st)
		st->checks++;
	/* a pipe gives 4-byte writes whole */
	while (read(fds[0], &i, sizeof(i)) == sizeof(i))
		if (!ret && i < rj->nr && id_hash__add(ids, tp__format_id(rj->v[i].fmt), tep))
			ret = -ENOMEM;
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ret;
}

/* The blob's preamble: magic, version, long and page sizes (set on tep),
 * then header_page (parsed) and header_event (skipped). The version
 * string, NULL when malformed. */
static const char *tp__td_header(struct cursor *c, struct tep_handle *tep)
{
	const char *magic, *version;
	u32 page_size;
	u8 long_size;
	char *s;
	u64 n;

	magic = cursor__take(c, 10);
	if (!magic || memcmp(magic, "\027\010\104tracing", 10))
		return NULL;
	version = cur_str(c);
	if (!version || cursor__uint(c, 1) != 0)
		return NULL;
	long_size = cursor__uint(c, 1);
	page_size = cursor__uint(c, 4);
	if ((long_size != 4 && long_size != 8) || !page_size || (page_size & (page_size - 1)))
		return NULL;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, page_size);

	if (!(s = (char *)cur_str(c)) || strcmp(s, "header_page"))
		return NULL;
	n = cursor__uint(c, 8);
	s = cur_dup(c, n);
	if (!s)
		return NULL;
	tep_parse_header_page(tep, s, n, long_size);
	free(s);
	if (!(s = (char *)cur_str(c)) || strcmp(s, "header_event"))
		return NULL;
	cursor__take(c, cursor__uint(c, 8));
	return version;
}

/* One event format of system sys: parsed into tep when safe, else kept in
 * rj (if not NULL) to be asked about; its id into ids (if not NULL) when
 * safe. 0, or -1 when it cannot be read or kept. */
static int tp__td_event(struct cursor *c, struct tep_handle *tep, const char *sys,
			struct id_hash *ids, struct tp_rejects *rj, struct tp_formats *st)
{
	u64 n = cursor__uint(c, 8);
	char *s = cur_dup(c, n);
	int err = 0;

	if (!s)
		return -1;
	if (st)
		st->nr++;
	/* a bad format leaves its event out: its samples are not decoded;
	 * the event counts as described if libtraceevent (so the stock perf)
	 * would still take it */
	if (tp__format_ok(s, n)) {
		/* one libtraceevent cannot even name describes nothing: the
		 * stock perf goes on ("error parsing event file") and refuses
		 * the file only if an event needs it */
		if (!tep_parse_event(tep, s, n, sys) && ids &&
		    id_hash__add(ids, tp__format_id(s), tep))
			err = -1;
	} else {
		if (st)
			st->left_out++;
		if (rj && !tp_rejects__add(rj, s, n, sys))
			return 0;
		err = rj ? -1 : 0;
	}
	free(s);
	return err;
}

/* The ftrace formats (skipped), then every system's event formats. 0 or
 * -1. */
static int tp__td_events(struct cursor *c, struct tep_handle *tep, struct id_hash *ids,
			 struct tp_formats *st)
{
	u32 count = cursor__uint(c, 4), nsys;
	struct tp_rejects rj = { 0 };
	const char *sys;
	int err = 0;

	for (u32 i = 0; i < count && !c->bad; i++)
		cursor__take(c, cursor__uint(c, 8));
	nsys = cursor__uint(c, 4);
	for (u32 i = 0; i < nsys && !c->bad && !err; i++) {
		sys = cur_str(c);
		count = cursor__uint(c, 4);
		for (u32 j = 0; j < count && !c->bad && !err; j++)
			err = tp__td_event(c, tep, sys, ids, ids ? &rj : NULL, st);
	}
	if (!err && !c->bad && tp_rejects__ask(&rj, tep, ids, st))
		err = -1;
	tp_rejects__exit(&rj);
	return err;
}

/* kallsyms (skipped), the printk formats and, from version 0.6 on, the
 * saved cmdlines: what cannot be read of the last two is left out. */
static void tp__td_tail(struct cursor *c, struct tep_handle *tep, const char *version)
{
	u64 n = cursor__uint(c, 4);			/* kallsyms */
	char *s;

	cursor__take(c, n);
	n = cursor__uint(c, 4);
	s = cur_dup(c, n);
	if (s && n && !memchr(s, 0, n))
		tep_parse_printk_formats(tep, tp__printk_filter(s));
	free(s);
	if (atof(version) >= 0.6) {
		n = cursor__uint(c, 8);
		s = cur_dup(c, n);
		if (s && n && !memchr(s, 0, n))
			tep_parse_saved_cmdlines(tep, s);
		free(s);
	}
}

struct tep_handle *tp__parse_tracing_data(const void *blob, size_t len, struct id_hash *ids,
					  struct tp_formats *st)
{
	struct cursor c = cursor__new(blob, len);
	struct tep_handle *tep = tep_alloc();
	const char *version;

	if (!tep)
		return NULL;
	version = tp__td_header(&c, tep);
	if (st)
		memset(st, 0, sizeof(*st));
	if (!version || tp__td_events(&c, tep, ids, st))
		goto bad;
	tp__td_tail(&c, tep, version);
	/* a section longer than its contents overlaps whatever follows */
	if (c.bad || c.pos != c.size)
		goto bad;
	return tep;
bad:
	tep_free(tep);
	errno = EINVAL;
	return NULL;
}
