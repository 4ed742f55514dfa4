/* --control: the fifo or fd pair opened from its spec, commands read a
 * line at a time without blocking, and their acks. */
#include "record/control.h"
#include "lib/escape.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fifo opened read-write never reports EOF when its writers come and go. */
static int open_fifo(const char *path, char *errbuf, size_t errsz)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int err = -errno;

		snprintf(errbuf, errsz, "--control: %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		close(fd);
		snprintf(errbuf, errsz, "--control: %s: not a fifo (create it with mkfifo)", path);
		return -EINVAL;
	}
	return fd;
}

static int parse_fd(const char *s, char *errbuf, size_t errsz)
{
	u64 v;

	if (parse_u64(s, &v) || v > 1 << 20 || fcntl((int)v, F_GETFD) < 0) {
		snprintf(errbuf, errsz, "--control: fd '%s' is not an open file descriptor", s);
		return -EBADF;
	}
	return (int)v;
}

int control__open(struct control *c, const char *spec, char *errbuf, size_t errsz)
{
	char *copy = strdup(spec), *ack;
	int fifo = !strncmp(spec, "fifo:", 5), fd = !strncmp(spec, "fd:", 3), ret = 0;

	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = -1;
	if (!copy)
		return -ENOMEM;
	if ((!fifo && !fd) || !spec[fifo ? 5 : 3]) {
		snprintf(errbuf, errsz, "--control: '%s': expected fifo:CTL[,ACK] or fd:CTL[,ACK]", spec);
		ret = -EINVAL;
		goto out;
	}
	ack = strchr(copy, ',');
	if (ack)
		*ack++ = '\0';
	c->close_fds = fifo;
	ret = fifo ? open_fifo(copy + 5, errbuf, errsz) : parse_fd(copy + 3, errbuf, errsz);
	if (ret < 0)
		goto out;
	c->ctl_fd = ret;
	ret = 0;
	if (ack && *ack) {
		ret = fifo ? open_fifo(ack, errbuf, errsz) : parse_fd(ack, errbuf, errsz);
		if (ret < 0)
			goto out;
		c->ack_fd = ret;
		ret = 0;
	}
	/* never block the recorder: not on reading, and not on an ack fd
	 * whose reader stopped reading (an ack that does not fit is dropped) */
	if (!fifo)
		fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK);
	if (!fifo && c->ack_fd >= 0)
		fcntl(c->ack_fd, F_SETFL, fcntl(c->ack_fd, F_GETFL) | O_NONBLOCK);
out:
	free(copy);
	if (ret)
		control__close(c);
	return ret;
}

void control__close(struct control *c)
{
	if (c->close_fds) {
		if (c->ctl_fd >= 0)
			close(c->ctl_fd);
		if (c->ack_fd >= 0)
			close(c->ack_fd);
	}
	c->ctl_fd = c->ack_fd = -1;
}

/* A command word and, after one blank, its optional ID. */
static enum control_cmd parse_cmd(char *s, struct control_ack *ack)
{
	static const struct { const char *word; enum control_cmd cmd; } cmds[] = {
		{ "snapshot", CTL_SNAPSHOT }, { "enable", CTL_ENABLE },
		{ "disable", CTL_DISABLE }, { "stop", CTL_STOP },
		{ "ping", CTL_PING },	/* perf daemon ping: the ack is the answer */
	};
	char *id = strchr(s, ' ');
	enum control_cmd cmd = CTL_UNKNOWN;

	if (id)
		*id++ = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(s, cmds[i].word))
			cmd = cmds[i].cmd;
	if (!id)
		return cmd;
	/* only snapshot and ping take an ID; one of other bytes or too long
	 * could not be answered on a line of its own */
	if ((cmd != CTL_SNAPSHOT && cmd != CTL_PING) || !*id || strlen(id) > CONTROL_ID_MAX ||
	    id[strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")])
		return CTL_UNKNOWN;
	strcpy(ack->id, id);
	return cmd;
}

int control__fill(struct control *c)
{
	ssize_t n;

	if (c->len == (int)sizeof(c->line)) {
		c->len = 0;	/* an overlong line: drop all of it, up to its newline */
		c->skip_line = 1;
	}
	do
		n = read(c->ctl_fd, c->line + c->len, sizeof(c->line) - c->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c->len += n;
	if (c->skip_line) {
		char *nl = memchr(c->line, '\n', c->len);

		c->len = nl ? c->len - (nl + 1 - c->line) : 0;
		if (nl)
			memmove(c->line, nl + 1, c->len);
		c->skip_line = !nl;
	}
	return n;
}

enum control_cmd control__next(struct control *c, struct control_ack *ack)
{
	char *nl = memchr(c->line, '\n', c->len);
	enum control_cmd cmd;

	memset(ack, 0, sizeof(*ack));
	if (!nl)
		return CTL_NONE;
	*nl = '\0';
	cmd = parse_cmd(c->line, ack);
	ack->snapshot = cmd == CTL_SNAPSHOT;
	c->len -= nl + 1 - c->line;
	memmove(c->line, nl + 1, c->len);
	return cmd;
}

int control_acks__add(struct control_acks *acks, const struct control_ack *ack)
{
	if (acks->nr == acks->cap) {
		int cap = acks->cap ? acks->cap * 2 : 4;
		struct control_ack *v;

		if (acks->nr >= CONTROL_ACKS_MAX)
			return -ENOSPC;
		v = realloc(acks->v, MIN(cap, CONTROL_ACKS_MAX) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		acks->v = v;
		acks->cap = MIN(cap, CONTROL_ACKS_MAX);
	}
	acks->v[acks->nr++] = *ack;
	return 0;
}

void control_acks__move(struct control *c, struct control_acks *to, struct control_acks *from,
			const char *why)
{
	for (int i = 0; i < from->nr; i++)
		if (control_acks__add(to, &from->v[i]))
			control__answer(c, &from->v[i], NULL, why);
	from->nr = 0;
}

void control_acks__exit(struct control_acks *acks)
{
	free(acks->v);
	memset(acks, 0, sizeof(*acks));
}

/* A whole line or nothing: a line cut short would run into the next one
 * and make two answers unreadable. The recorder is the fifo's only writer,
 * so the room it sees cannot shrink before its write. */
static void control__write_line(struct control *c, const char *line, size_t len)
{
	struct stat st;
	int room, queued;

	if (!fstat(c->ack_fd, &st) && S_ISFIFO(st.st_mode)) {
		room = fcntl(c->ack_fd, F_GETPIPE_SZ);
		if (room > 0 && !ioctl(c->ack_fd, FIONREAD, &queued) &&
		    (size_t)room < (size_t)queued + len)
			return;
	}
	if (write(c->ack_fd, line, len) != (ssize_t)len)
		return;	/* nobody reads: the client gave up and will take no answer */
}

/* The absolute path of DUMP into path (PATH_MAX bytes): the client may
 * run anywhere. NULL when it is too long to tell. */
static const char *absolute(const char *dump, char *path)
{
	size_t len;

	if (dump[0] == '/')
		return dump;
	if (!getcwd(path, PATH_MAX))
		return NULL;
	len = strlen(path);
	if ((size_t)snprintf(path + len, PATH_MAX - len, "/%s", dump) >= PATH_MAX - len)
		return NULL;
	return path;
}

void control__answer(struct control *c, const struct control_ack *ack, const char *dump,
		     const char *why)
{
	char path[PATH_MAX], text[ESCAPE_SIZE(PATH_MAX)], *line;
	const char *what = "none";
	int len;

	if (c->ack_fd < 0)
		return;
	if (!ack->id[0]) {
		control__write_line(c, "ack\n", 4);
		return;
	}
	if (ack->why) {
		why = ack->why;
	} else if (dump) {
		dump = absolute(dump, path);
		what = dump ? "dump" : what;
		why = dump ? dump : "the dump's path is too long to tell";
	}
	if (ack->snapshot)
		len = asprintf(&line, "ack %s %s %s\n", ack->id, what,
			       escape__str(text, sizeof(text), why ? why : "no dump"));
	else
		len = asprintf(&line, "ack %s\n", ack->id);
	if (len < 0)
		return;
	control__write_line(c, line, len);
	free(line);
}

void control__answer_all(struct control *c, struct control_acks *acks, const char *dump,
			 const char *why)
{
	for (int i = 0; i < acks->nr; i++)
		control__answer(c, &acks->v[i], dump, why);
	acks->nr = 0;
}
