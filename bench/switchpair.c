/* What a capture that copies nothing and waits for no RCU grace period
 * would cost: a second sampling event per CPU with a backward ring of its
 * own, enabled just before the first is disabled (PERF_EVENT_IOC_ENABLE
 * and _DISABLE: an IPI each), the first ring then frozen and read at
 * leisure. Beside bench/setoutput.c, which switches one event's ring.
 *   switchpair ROUNDS -> "switch MS" (one thread switches every CPU's
 *                        cpu-clock event, -g every 25 us; median)
 *                        "exact N MISSING DUP OVERLAP" (numbered close()
 *                        records at full speed on CPU 0 across ROUNDS
 *                        switches, kept as a dump would keep them: the
 *                        first ring's records older than the second's
 *                        first, then all of the second's; N closes,
 *                        MISSING found in neither, DUP found twice,
 *                        OVERLAP first-ring records cut as the second's)
 * Needs root (per-CPU events) and tracefs for the second line. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/tpid.h"

#define PAGES 1024		/* 4 MB: a few ms of close() records */
#define MAX_ROUNDS 64
#define SPAN 10000000L		/* numbers of one round */

struct ring {
	int fd;
	void *map;
};

/* A close() record as the walk finds it. */
struct rec {
	uint64_t time;
	long fd;
};

static long page;
static volatile int stop;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int ring_open(struct perf_event_attr *a, int cpu, struct ring *r)
{
	r->fd = syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	r->map = r->fd < 0 ? MAP_FAILED :
		 mmap(NULL, (PAGES + 1) * page, PROT_READ, MAP_SHARED, r->fd, 0);
	return r->map == MAP_FAILED ? -1 : 0;
}

static void ring_close(struct ring *r)
{
	munmap(r->map, (PAGES + 1) * page);
	close(r->fd);
}

/* A frozen backward ring's close() records, newest first; the ring must
 * not have wrapped (it is sized not to). Sample layout: TIME, RAW, whose
 * sys_enter_close payload has the fd at offset 16. */
static int ring_walk(const struct ring *r, struct rec *out, int max)
{
	const struct perf_event_mmap_page *pc = r->map;
	const unsigned char *data = (const unsigned char *)r->map + page;
	uint64_t size = PAGES * page, head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	unsigned char buf[256];
	int n = 0;

	for (uint64_t off = 0; off < size && n < max;) {
		struct perf_event_header *h = (void *)buf;

		for (unsigned i = 0; i < sizeof(*h); i++)
			buf[i] = data[(head + off + i) & (size - 1)];
		if (!h->size || h->size > sizeof(buf) || off + h->size > size)
			break;
		for (unsigned i = 0; i < h->size; i++)
			buf[i] = data[(head + off + i) & (size - 1)];
		if (h->type == PERF_RECORD_SAMPLE && h->size >= 8 + 8 + 4 + 24) {
			memcpy(&out[n].time, buf + 8, 8);
			memcpy(&out[n].fd, buf + 8 + 8 + 4 + 16, 8);
			n++;
		}
		off += h->size;
	}
	return n;
}

static void *closer(void *arg)
{
	long base = (long)arg, i = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!stop && i < SPAN)
		close((int)(base + i++));
	return (void *)i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One round of exactness: n closes, and how the cut rule kept them. */
static int exact_round(struct perf_event_attr *a, long base, long counts[4])
{
	static struct rec ra[PAGES * 4096 / 40], rb[PAGES * 4096 / 40];
	static unsigned char seen[SPAN];
	struct ring A, B;
	pthread_t tid;
	void *ret;
	long n;
	int na, nb, err;
	uint64_t cut;

	if (ring_open(a, 0, &A))
		return -1;
	if (ring_open(a, 0, &B)) {
		ring_close(&A);
		return -1;
	}
	stop = 0;
	if (ioctl(A.fd, PERF_EVENT_IOC_ENABLE, 0) || pthread_create(&tid, NULL, closer, (void *)base)) {
		ring_close(&A);
		ring_close(&B);
		return -1;
	}
	usleep(2000);
	/* a failed switch is a round with no answer, not a count */
	err = ioctl(B.fd, PERF_EVENT_IOC_ENABLE, 0) || ioctl(A.fd, PERF_EVENT_IOC_DISABLE, 0);
	usleep(2000);
	stop = 1;
	pthread_join(tid, &ret);
	if (err || ioctl(B.fd, PERF_EVENT_IOC_DISABLE, 0)) {
		ring_close(&A);
		ring_close(&B);
		return -1;
	}
	n = (long)ret;
	na = ring_walk(&A, ra, sizeof(ra) / sizeof(ra[0]));
	nb = ring_walk(&B, rb, sizeof(rb) / sizeof(rb[0]));
	cut = nb ? rb[nb - 1].time : UINT64_MAX;	/* newest first */
	memset(seen, 0, n);
	for (int i = 0; i < na + nb; i++) {
		const struct rec *r = i < na ? &ra[i] : &rb[i - na];
		long k = r->fd - base;

		if (i < na && r->time >= cut) {
			counts[3]++;
			continue;
		}
		if (k < 0 || k >= n)
			continue;	/* another process's close() */
		counts[2] += seen[k];
		seen[k] = 1;
	}
	for (long k = 0; k < n; k++)
		counts[1] += !seen[k];
	counts[0] += n;
	ring_close(&A);
	ring_close(&B);
	return 0;
}

static void exactness(int rounds)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				     .sample_period = 1, .write_backward = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC, .disabled = 1,
				     .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW };
	long long id = bench_tp_id("syscalls", "sys_enter_close");
	long counts[4] = { 0 };
	cpu_set_t set;

	if (id < 0) {
		printf("exact n/a n/a n/a n/a\n");
		return;
	}
	a.config = id;
	/* the switches from the other CPU, as a recorder's loop would */
	CPU_ZERO(&set);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) > 1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int r = 0; r < rounds; r++)
		if (exact_round(&a, 1000000 + r * SPAN, counts)) {
			printf("exact n/a n/a n/a n/a\n");
			return;
		}
	printf("exact %ld %ld %ld %ld\n", counts[0], counts[1], counts[2], counts[3]);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .size = sizeof(a), .sample_period = 25000, .write_backward = 1,
				     .use_clockid = 1, .clockid = CLOCK_MONOTONIC, .disabled = 1,
				     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_CALLCHAIN };
	struct ring (*r)[2] = calloc(ncpu, sizeof(*r));
	double ms[MAX_ROUNDS], t;

	page = sysconf(_SC_PAGESIZE);
	if (rounds < 1 || rounds > MAX_ROUNDS || !r) {
		fprintf(stderr, "usage: switchpair ROUNDS (1-%d)\n", MAX_ROUNDS);
		return 2;
	}
	for (int i = 0; i < ncpu; i++)
		if (ring_open(&a, i, &r[i][0]) || ring_open(&a, i, &r[i][1]) ||
		    ioctl(r[i][0].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			perror("switchpair: cpu events");
			return 1;
		}
	for (int k = 0; k < rounds; k++) {
		int from = k % 2, to = !from;

		usleep(20000);
		t = now_ms();
		for (int i = 0; i < ncpu; i++) {
			if (ioctl(r[i][to].fd, PERF_EVENT_IOC_ENABLE, 0) ||
			    ioctl(r[i][from].fd, PERF_EVENT_IOC_DISABLE, 0)) {
				perror("switchpair: switch");
				return 1;
			}
		}
		ms[k] = now_ms() - t;
	}
	qsort(ms, rounds, sizeof(*ms), cmp_double);
	printf("switch %.3f\n", ms[rounds / 2]);
	for (int i = 0; i < ncpu; i++) {
		ring_close(&r[i][0]);
		ring_close(&r[i][1]);
	}
	exactness(rounds);
	return 0;
}
