/* The floor under a dump of N bytes: (a) memcpy of N bytes between two
 * pre-faulted buffers, (b) writing an N-byte file in DIR the way a dump
 * does: create under a temporary name, write in 1 MiB chunks, close, rename
 * into place (no fsync: the dumps do not fsync either). Prints ms for each.
 *   floor BYTES DIR   -> "memcpy MS" and "write MS"
 * And the floor under a capture of N bytes from one ring per CPU: a thread
 * pinned on each of CPUS CPUs copies N / CPUS bytes, all at once, as the
 * capture crew does. Run it while the recorder samples, and it pays what
 * the capture pays for the sampling interrupts on those CPUs. Each thread
 * copies twice, with glibc's memcpy and with the recorder's own
 * memcpy_stream (util/memcpy-stream.c, stores that bypass the caches):
 * the floor is the faster of the two.
 *   floor -p CPUS BYTES -> "pmemcpy MS" (the slowest thread's start to end,
 *                          the faster way), "pglibc MS", "pstream MS"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/memcpy-stream.h"

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

struct share {
	pthread_t tid;
	pthread_barrier_t *start;
	char *src, *dst;
	size_t n;
	int cpu, err;
	double t0[2], t1[2];	/* glibc's memcpy, memcpy_stream */
};

static void *(*const copies[2])(void *, const void *, size_t) = { memcpy, memcpy_stream };

static void *share__copy(void *arg)
{
	struct share *s = arg;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(s->cpu, &cpus);
	s->err = pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	s->src = malloc(s->n);
	s->dst = malloc(s->n);
	if (!s->src || !s->dst)
		s->err = ENOMEM;
	for (size_t i = 0; !s->err && i < s->n; i++)
		s->src[i] = (char)i;
	for (int k = 0; k < 2; k++) {
		if (!s->err)
			memset(s->dst, k + 1, s->n);
		pthread_barrier_wait(s->start);
		s->t0[k] = now_ms();
		if (!s->err)
			copies[k](s->dst, s->src, s->n);
		s->t1[k] = now_ms();
		if (!s->err && s->dst[s->n - 1] != (char)(s->n - 1))
			s->err = EIO;
	}
	free(s->src);
	free(s->dst);
	return NULL;
}

static int parallel_copy(int cpus, size_t n)
{
	struct share *s = calloc(cpus, sizeof(*s));
	pthread_barrier_t start;
	double t0[2] = { 1e300, 1e300 }, t1[2] = { 0, 0 }, ms[2];
	int err = 0;

	if (!s || pthread_barrier_init(&start, NULL, cpus)) {
		fprintf(stderr, "floor: %d threads: %s\n", cpus, strerror(ENOMEM));
		return 1;
	}
	for (int i = 0; i < cpus; i++) {
		s[i] = (struct share){ .start = &start, .n = n / cpus, .cpu = i };
		if (pthread_create(&s[i].tid, NULL, share__copy, &s[i])) {
			fprintf(stderr, "floor: thread %d: %s\n", i, strerror(errno));
			exit(1);	/* the others wait at the barrier for good */
		}
	}
	for (int i = 0; i < cpus; i++) {
		pthread_join(s[i].tid, NULL);
		if (s[i].err && !err)
			err = s[i].err;
		for (int k = 0; k < 2; k++) {
			t0[k] = s[i].t0[k] < t0[k] ? s[i].t0[k] : t0[k];
			t1[k] = s[i].t1[k] > t1[k] ? s[i].t1[k] : t1[k];
		}
	}
	if (err) {
		fprintf(stderr, "floor: copying %zu bytes on %d CPUs: %s\n", n, cpus, strerror(err));
		return 1;
	}
	for (int k = 0; k < 2; k++)
		ms[k] = t1[k] - t0[k];
	printf("pmemcpy %.3f\npglibc %.3f\npstream %.3f\n", ms[0] < ms[1] ? ms[0] : ms[1], ms[0],
	       ms[1]);
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	double t0, copy_ms, write_ms;
	char *a, *b;
	size_t n;
	int err;

	if (argc == 4 && !strcmp(argv[1], "-p") && atoi(argv[2]) > 0 &&
	    (n = strtoul(argv[3], NULL, 0)))
		return parallel_copy(atoi(argv[2]), n);
	if (argc != 3 || !(n = strtoul(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: floor BYTES DIR | floor -p CPUS BYTES\n");
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
