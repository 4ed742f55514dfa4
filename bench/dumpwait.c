/* Dump latency without shell overhead: sends SIGUSR2 to a recorder and
 * returns the ms until a file named PREFIX* shows up in DIR. Both recorders
 * only give a dump its final name once it is complete (rename, or linkat of
 * an O_TMPFILE), so the name appearing is the dump being in place; hidden
 * temporaries (".PREFIX...") never match.
 *   dumpwait PID DIR PREFIX [TIMEOUT_S]   -> prints "MS NAME"
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	double t0, timeout_ms;
	size_t plen;
	pid_t pid;
	int fd;

	if (argc < 4) {
		fprintf(stderr, "usage: dumpwait PID DIR PREFIX [TIMEOUT_S]\n");
		return 2;
	}
	pid = (pid_t)atoi(argv[1]);
	plen = strlen(argv[3]);
	timeout_ms = (argc > 4 ? atof(argv[4]) : 60) * 1e3;
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[2], IN_CREATE | IN_MOVED_TO) < 0) {
		fprintf(stderr, "dumpwait: inotify on %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	t0 = now_ms();
	if (kill(pid, SIGUSR2)) {
		fprintf(stderr, "dumpwait: kill %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	for (;;) {
		double left = timeout_ms - (now_ms() - t0);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left + 1) == 0) {
			fprintf(stderr, "dumpwait: no %s/%s* %.0f s after SIGUSR2\n", argv[2], argv[3], timeout_ms / 1e3);
			return 1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "dumpwait: read inotify: %s\n", strerror(errno));
			return 1;
		}
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && !strncmp(ev->name, argv[3], plen)) {
				printf("%.3f %s\n", now_ms() - t0, ev->name);
				return 0;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}
