/* Spans of a known length for the trigger scenario: N nanosleeps of US
 * microseconds each, one after another, each one's length as this task
 * saw it printed in ns (CLOCK_MONOTONIC around the call: the kernel's
 * syscall or off-CPU span is inside it, never longer).
 *   spans N US */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0, us = argc > 2 ? atol(argv[2]) : 0;
	struct timespec d;

	if (n <= 0 || us <= 0) {
		fprintf(stderr, "usage: spans N US\n");
		return 2;
	}
	d.tv_sec = us / 1000000;
	d.tv_nsec = us % 1000000 * 1000;
	for (long i = 0; i < n; i++) {
		long long t0 = now_ns();

		nanosleep(&d, NULL);
		printf("%lld\n", now_ns() - t0);
	}
	return 0;
}
