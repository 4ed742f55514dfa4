/* The floor under a dump of N bytes: (a) memcpy of N bytes between two
 * pre-faulted buffers, (b) writing an N-byte file in DIR the way a dump
 * does: create under a temporary name, write in 1 MiB chunks, close, rename
 * into place (no fsync: the dumps do not fsync either). Prints ms for each.
 *   floor BYTES DIR   -> "memcpy MS" and "write MS"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1UL << 20)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int write_file(const char *dir, const char *src, size_t n, double *ms)
{
	char tmp[4096], final[4096];
	double t0;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s/.floor.tmp.%d", dir, (int)getpid());
	snprintf(final, sizeof(final), "%s/floor.%d", dir, (int)getpid());
	t0 = now_ms();
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, src + off, n - off < CHUNK ? n - off : CHUNK);

		if (w < 0) {
			int err = -errno;

			close(fd);
			unlink(tmp);
			return err;
		}
		off += (size_t)w;
	}
	if (close(fd) || rename(tmp, final)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	*ms = now_ms() - t0;
	unlink(final);
	return 0;
}

int main(int argc, char **argv)
{
	double t0, copy_ms, write_ms;
	char *a, *b;
	size_t n;
	int err;

	if (argc != 3 || !(n = strtoul(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: floor BYTES DIR\n");
		return 2;
	}
	a = malloc(n);
	b = malloc(n);
	if (!a || !b) {
		fprintf(stderr, "floor: %zu bytes: %s\n", n, strerror(errno));
		return 1;
	}
	/* fault both in, and make the source not all zero pages */
	for (size_t i = 0; i < n; i++)
		a[i] = (char)i;
	memset(b, 1, n);
	t0 = now_ms();
	memcpy(b, a, n);
	copy_ms = now_ms() - t0;
	/* keep the copy from being optimized away */
	if (b[n - 1] != (char)(n - 1))
		return 1;
	err = write_file(argv[2], b, n, &write_ms);
	if (err) {
		fprintf(stderr, "floor: writing %zu bytes in %s: %s\n", n, argv[2], strerror(-err));
		return 1;
	}
	printf("memcpy %.3f\nwrite %.3f\n", copy_ms, write_ms);
	free(a);
	free(b);
	return 0;
}
