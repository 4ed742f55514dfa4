/* What a capture that copies nothing would cost: every CPU's sampling
 * event switched with PERF_EVENT_IOC_SET_OUTPUT from one set of backward
 * rings to a second (the first then read at leisure), on every CPU, the
 * events sampling cpu-clock every 25 us meanwhile.
 *   setoutput ROUNDS -> "seq MS" (one thread switches every CPU's event)
 *                       "par MS" (a thread per CPU, all at once)
 *                       "exact N M" (a tracepoint's samples written before
 *                       and after one switch, as found in the two rings:
 *                       100 and 200 when nothing is lost)
 * Medians over ROUNDS. Needs root (per-CPU events). */
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/tpid.h"

#define PAGES 16
#define MAX_ROUNDS 64

static long page;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int event_open(struct perf_event_attr *a, int pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A backward ring's owner: a dummy event, mapped read-only. */
static int owner_open(int pid, int cpu, void **map)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
				     .size = sizeof(a), .write_backward = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC, .sample_type = PERF_SAMPLE_TIME };
	int fd = event_open(&a, pid, cpu);

	*map = fd < 0 ? MAP_FAILED : mmap(NULL, (PAGES + 1) * page, PROT_READ, MAP_SHARED, fd, 0);
	return *map == MAP_FAILED ? -1 : fd;
}

static int samples_in(const void *map)
{
	const struct perf_event_mmap_page *pc = map;
	const char *data = (const char *)map + page;
	uint64_t size = PAGES * page, head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	int n = 0;

	for (uint64_t off = 0; off < size;) {
		const struct perf_event_header *h = (const void *)(data + ((head + off) & (size - 1)));

		if (!h->size)
			break;
		n += h->type == PERF_RECORD_SAMPLE;
		off += h->size;
	}
	return n;
}

struct cpu_events {
	int sample, ring[2];
	void *map[2];
	pthread_t tid;
	int to;
};

static void *switch_one(void *arg)
{
	struct cpu_events *c = arg;

	ioctl(c->sample, PERF_EVENT_IOC_SET_OUTPUT, c->ring[c->to]);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Samples of a prctl tracepoint on this thread, 100 before and 200 after
 * one switch: "exact 100 200" when the switch loses none. */
static void exactness(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				     .sample_period = 1, .write_backward = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC, .sample_type = PERF_SAMPLE_TIME,
				     .disabled = 1 };
	long long id = bench_tp_id("syscalls", "sys_enter_prctl");
	int ring[2], fd;
	void *map[2];

	if (id < 0) {
		printf("exact n/a n/a\n");
		return;
	}
	a.config = id;
	ring[0] = owner_open(0, -1, &map[0]);
	ring[1] = owner_open(0, -1, &map[1]);
	fd = event_open(&a, 0, -1);
	if (ring[0] < 0 || ring[1] < 0 || fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring[0])) {
		printf("exact n/a n/a\n");
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 100; i++)
		prctl(PR_SET_NAME, "setoutput");
	ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring[1]);
	for (int i = 0; i < 200; i++)
		prctl(PR_SET_NAME, "setoutput");
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("exact %d %d\n", samples_in(map[0]), samples_in(map[1]));
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct cpu_events *c = calloc(ncpu, sizeof(*c));
	double seq[MAX_ROUNDS], par[MAX_ROUNDS], t;

	page = sysconf(_SC_PAGESIZE);
	if (rounds < 1 || rounds > MAX_ROUNDS || !c) {
		fprintf(stderr, "usage: setoutput ROUNDS (1-%d)\n", MAX_ROUNDS);
		return 2;
	}
	for (int i = 0; i < ncpu; i++) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
					     .config = PERF_COUNT_SW_CPU_CLOCK, .size = sizeof(a),
					     .sample_period = 25000, .write_backward = 1,
					     .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
					     .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME };

		c[i].ring[0] = owner_open(-1, i, &c[i].map[0]);
		c[i].ring[1] = owner_open(-1, i, &c[i].map[1]);
		c[i].sample = event_open(&a, -1, i);
		if (c[i].ring[0] < 0 || c[i].ring[1] < 0 || c[i].sample < 0 ||
		    ioctl(c[i].sample, PERF_EVENT_IOC_SET_OUTPUT, c[i].ring[0])) {
			perror("setoutput: cpu events");
			return 1;
		}
	}
	for (int r = 0; r < rounds; r++) {
		t = now_ms();
		for (int i = 0; i < ncpu; i++)
			ioctl(c[i].sample, PERF_EVENT_IOC_SET_OUTPUT, c[i].ring[1]);
		seq[r] = now_ms() - t;
		t = now_ms();
		for (int i = 0; i < ncpu; i++) {
			c[i].to = 0;
			pthread_create(&c[i].tid, NULL, switch_one, &c[i]);
		}
		for (int i = 0; i < ncpu; i++)
			pthread_join(c[i].tid, NULL);
		par[r] = now_ms() - t;
	}
	qsort(seq, rounds, sizeof(*seq), cmp_double);
	qsort(par, rounds, sizeof(*par), cmp_double);
	printf("seq %.3f\npar %.3f\n", seq[rounds / 2], par[rounds / 2]);
	exactness();
	return 0;
}
