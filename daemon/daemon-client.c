/* perf daemon's clients' side of a session: a command written to the
 * recorder's control fifo and its answer awaited on the ack fifo. */
#include "daemon/daemon-client.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMP_TAG "[ perf record: Dump "

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

static int session_fds__command(struct session_fds *f, const char *cmd, int timeout_ms)
{
	struct pollfd pfd = { .fd = f->ack, .events = POLLIN };
	u64 deadline = now_ns() + (u64)timeout_ms * 1000000;
	char buf[8];
	size_t got = 0;
	ssize_t n;
	int err = write_all(f->ctl, cmd, strlen(cmd));

	if (err)
		return err;
	while (got < 4) {
		u64 now = now_ns();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		n = read(f->ack, buf + got, 4 - got);
		if (n == 0)
			return -EPIPE;	/* the recorder closed it: it ended */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		got += n > 0 ? (size_t)n : 0;
	}
	return memcmp(buf, "ack\n", 4) ? -EPROTO : 0;
}

int session__ping(const char *dir, int timeout_ms)
{
	struct session_fds f;
	int err = session_fds__open(&f, dir);

	if (err)
		return err;
	err = session_fds__command(&f, "ping\n", timeout_ms);
	session_fds__close(&f);
	return err;
}

/* The last dump DIR/output announced past offset FROM. */
static void find_dump(const char *dir, off_t from, char *dump, size_t dumpsz)
{
	char path[4096], buf[4096];
	const char *p, *last = NULL;
	ssize_t n;
	int fd;

	dump[0] = '\0';
	snprintf(path, sizeof(path), "%s/output", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* the announcement is the last line or close to it: read the tail */
	{
		struct stat st;

		if (!fstat(fd, &st) && st.st_size - from > (off_t)sizeof(buf) - 1)
			from = st.st_size - (off_t)sizeof(buf) + 1;
	}
	n = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = strstr(buf, DUMP_TAG); p; p = strstr(p + 1, DUMP_TAG))
		last = p + strlen(DUMP_TAG);
	if (last) {
		size_t len = strcspn(last, " \n");

		if (*last == '/')
			snprintf(dump, dumpsz, "%.*s", (int)len, last);
		else
			snprintf(dump, dumpsz, "%s/%.*s", dir, (int)len, last);
	}
}

int session__snapshot(const char *dir, int timeout_ms, char *dump, size_t dumpsz)
{
	struct session_fds f;
	char path[4096];
	struct stat st;
	int err = session_fds__open(&f, dir);

	dump[0] = '\0';
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/output", dir);
	if (stat(path, &st))
		st.st_size = 0;
	err = session_fds__command(&f, "snapshot\n", timeout_ms);
	session_fds__close(&f);
	if (!err)
		find_dump(dir, st.st_size, dump, dumpsz);
	return err;
}
