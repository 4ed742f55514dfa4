/* perf daemon's clients' side of a session: a command written to the
 * recorder's control fifo and its answer awaited on the ack fifo: the
 * dump's path comes from the recorder there, never from its output, where
 * a user's names are printed. */
#include "daemon/daemon-client.h"
#include "lib/escape.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct session_fds {
	int ctl, ack;
};

static void session_fds__close(struct session_fds *f)
{
	if (f->ctl >= 0)
		close(f->ctl);
	if (f->ack >= 0)
		close(f->ack);
}

/* Opens both fifos (no symlinks) and takes the session's turn. */
static int session_fds__open(struct session_fds *f, const char *dir)
{
	char path[4096];
	char junk[256];
	int err;

	f->ctl = f->ack = -1;
	snprintf(path, sizeof(path), "%s/ack", dir);
	f->ack = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (f->ack < 0)
		return -errno;
	if (flock(f->ack, LOCK_EX)) {
		err = -errno;
		goto fail;
	}
	/* a writer-less open of a fifo for writing fails with ENXIO: no
	 * recorder is running there */
	snprintf(path, sizeof(path), "%s/control", dir);
	f->ctl = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (f->ctl < 0) {
		err = -errno;
		goto fail;
	}
	while (read(f->ack, junk, sizeof(junk)) > 0)
		;	/* an ack whose client gave up waiting */
	return 0;
fail:
	session_fds__close(f);
	return err;
}

/* The answer to one command, read off the ack fifo a line at a time:
 * lines that carry another ID are a client's that gave up waiting. */
struct answer {
	const char *id;
	size_t len;
	int skip;	/* in a line too long to be an answer */
	int plain;	/* a plain "ack": a recorder that knows no IDs */
	char buf[ESCAPE_SIZE(PATH_MAX) + 256];
};

/* An ID as record/control.h wants them: a pid and 64 random bits. */
#define ID_SIZE 32

/* The text after "ack ID" of the first complete line that is ours, moved
 * to the front of buf and NUL-terminated; NULL if none has come. */
static const char *answer__line(struct answer *a)
{
	size_t idlen = strlen(a->id);
	char *nl;

	while ((nl = memchr(a->buf, '\n', a->len))) {
		size_t linelen = nl + 1 - a->buf;
		int skip = a->skip;

		*nl = '\0';
		a->skip = 0;
		if (!skip && !strncmp(a->buf, "ack ", 4) && !strncmp(a->buf + 4, a->id, idlen) &&
		    (a->buf[4 + idlen] == ' ' || !a->buf[4 + idlen])) {
			memmove(a->buf, a->buf + 4 + idlen, linelen - 4 - idlen);
			a->len = 0;
			return a->buf[0] == ' ' ? a->buf + 1 : a->buf;
		}
		a->plain |= !skip && !strcmp(a->buf, "ack");
		a->len -= linelen;
		memmove(a->buf, nl + 1, a->len);
	}
	if (a->len == sizeof(a->buf)) {	/* no answer is that long */
		a->len = 0;
		a->skip = 1;
	}
	return NULL;
}

/* Writes "CMD ID\n" and waits for the line of that ID: its text. */
static int session_fds__command(struct session_fds *f, const char *cmd, struct answer *a,
				int timeout_ms, const char **text)
{
	struct pollfd pfd = { .fd = f->ack, .events = POLLIN };
	u64 deadline = now_ns() + (u64)timeout_ms * 1000000;
	char line[ID_SIZE + 16];
	ssize_t n;
	int err;

	snprintf(line, sizeof(line), "%s %s\n", cmd, a->id);
	err = write_all(f->ctl, line, strlen(line));
	if (err)
		return err;
	while (!(*text = answer__line(a))) {
		u64 now = now_ns();
		int r;

		if (now >= deadline)
			return a->plain ? -EPROTO : -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		n = read(f->ack, a->buf + a->len, sizeof(a->buf) - a->len);
		if (n == 0)
			return -EPIPE;	/* the recorder closed it: it ended */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		a->len += n > 0 ? (size_t)n : 0;
	}
	return 0;
}

/* An ID no other command of any client shares: a late answer to a client
 * that gave up is never taken for this one's. */
static void answer__init(struct answer *a, char *id, size_t idsz)
{
	unsigned long long r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = now_ns();
	snprintf(id, idsz, "%d.%016llx", (int)getpid(), r);
	memset(a, 0, offsetof(struct answer, buf));
	a->id = id;
}

int session__ping(const char *dir, int timeout_ms)
{
	struct session_fds f;
	struct answer *a = malloc(sizeof(*a));
	char id[ID_SIZE];
	const char *text;
	int err = a ? session_fds__open(&f, dir) : -ENOMEM;

	if (err) {
		free(a);
		return err;
	}
	answer__init(a, id, sizeof(id));
	err = session_fds__command(&f, "ping", a, timeout_ms, &text);
	if (!err && *text)
		err = -EPROTO;
	session_fds__close(&f);
	free(a);
	return err;
}

/* "dump PATH" or "none WHY", unescaped into dump or why. */
static int answer__snapshot(const char *text, char *dump, size_t dumpsz, char *why, size_t whysz)
{
	if (!strncmp(text, "dump ", 5))
		return escape__undo(dump, dumpsz, text + 5) || dump[0] != '/' ? -EPROTO : 0;
	if (!strncmp(text, "none ", 5))
		return escape__undo(why, whysz, text + 5) ? -EPROTO : -ENODATA;
	return -EPROTO;
}

int session__snapshot(const char *dir, int timeout_ms, char *dump, size_t dumpsz, char *why,
		      size_t whysz)
{
	struct session_fds f;
	struct answer *a = malloc(sizeof(*a));
	char id[ID_SIZE];
	const char *text;
	int err = a ? session_fds__open(&f, dir) : -ENOMEM;

	dump[0] = why[0] = '\0';
	if (err) {
		free(a);
		return err;
	}
	answer__init(a, id, sizeof(id));
	err = session_fds__command(&f, "snapshot", a, timeout_ms, &text);
	if (!err)
		err = answer__snapshot(text, dump, dumpsz, why, whysz);
	session_fds__close(&f);
	free(a);
	return err;
}
