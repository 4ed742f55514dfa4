/* --control: the fifo or fd pair opened from its spec, commands read a
 * line at a time without blocking, and their acks. */
#include "record/control.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

static enum control_cmd parse_cmd(const char *s)
{
	static const struct { const char *word; enum control_cmd cmd; } cmds[] = {
		{ "snapshot", CTL_SNAPSHOT }, { "enable", CTL_ENABLE },
		{ "disable", CTL_DISABLE }, { "stop", CTL_STOP },
		{ "ping", CTL_PING },	/* perf daemon ping: the ack is the answer */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(s, cmds[i].word))
			return cmds[i].cmd;
	return CTL_UNKNOWN;
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

enum control_cmd control__next(struct control *c)
{
	char *nl = memchr(c->line, '\n', c->len);
	enum control_cmd cmd;

	if (!nl)
		return CTL_NONE;
	*nl = '\0';
	cmd = parse_cmd(c->line);
	c->len -= nl + 1 - c->line;
	memmove(c->line, nl + 1, c->len);
	return cmd;
}

void control__ack(struct control *c)
{
	if (c->ack_fd >= 0 && write(c->ack_fd, "ack\n", 4) != 4)
		return;
}
