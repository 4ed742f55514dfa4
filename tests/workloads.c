/* Workloads with exactly known behaviour, for the shell tests to record. */
#include "tests/tests.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long arg_or(int argc, const char **argv, int i, unsigned long def)
{
	return argc > i ? strtoul(argv[i], NULL, 0) : def;
}

static double seconds_since_on(clockid_t clock, const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static double seconds_since(const struct timespec *t0)
{
	return seconds_since_on(CLOCK_MONOTONIC, t0);
}

/* close(BASE + i) for i < N: numbered events that must come back in order;
 * with RATE, at most RATE a second (a busy wait: a recorder that cannot
 * drain as fast as close() runs loses records, which a test of what the
 * recorder keeps must not confuse with what it drops) */
static int workload_closes(int argc, const char **argv)
{
	unsigned long n = arg_or(argc, argv, 0, 1000), base = arg_or(argc, argv, 1, 1000000);
	double rate = arg_or(argc, argv, 2, 0);
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < n; i++) {
		while (rate && i > seconds_since(&t0) * rate)
			;
		close((int)(base + i));
	}
	return 0;
}

/* close(BASE + i) for i < N, one every USEC microseconds, and kill(self, 0)
 * just before the events numbered in the comma list KILLS: numbered events
 * at a known pace, with triggers (sys_enter_kill) among them at known
 * places. */
static int workload_paced(int argc, const char **argv)
{
	unsigned long n = arg_or(argc, argv, 0, 1000), base = arg_or(argc, argv, 1, 1000000);
	unsigned long usec = arg_or(argc, argv, 2, 1000);
	const char *kills = argc > 3 ? argv[3] : "";
	struct timespec pause = { usec / 1000000, (usec % 1000000) * 1000 };

	for (unsigned long i = 0; i < n; i++) {
		char *end;

		if (*kills && strtoul(kills, &end, 10) == i) {
			kill(getpid(), 0);
			kills = *end == ',' ? end + 1 : end;
		}
		close((int)(base + i));
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* N close(-1), the classic write_backward benchmark; prints its own time */
static int workload_closebad(int argc, const char **argv)
{
	unsigned long n = arg_or(argc, argv, 0, 3000000);
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < n; i++)
		close(-1);
	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("elapsed %.6f\n", (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

volatile unsigned long test_spin_sink;

/* Spins until SECONDS went by on clock: CLOCK_MONOTONIC for a span of
 * time, the thread's CPU clock for an amount of work whatever the CPU
 * share (as many cpu-clock samples on a busy machine as on an idle one). */
__attribute__((noinline)) static void test_spin_loop(clockid_t clock, double seconds)
{
	struct timespec t0;

	clock_gettime(clock, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			test_spin_sink += i;
	} while (seconds_since_on(clock, &t0) < seconds);
}

static int workload_spin(int argc, const char **argv)
{
	test_spin_loop(CLOCK_MONOTONIC, argc > 0 ? atof(argv[0]) : 1.0);
	return 0;
}

static int workload_spin_cpu(int argc, const char **argv)
{
	test_spin_loop(CLOCK_THREAD_CPUTIME_ID, argc > 0 ? atof(argv[0]) : 1.0);
	return 0;
}

/* close(BASE + i) for SECONDS, moving to the next CPU every HOP calls: a
 * numbered stream whose every value must appear once, in order, in dumps */
static int workload_hop(int argc, const char **argv)
{
	double seconds = argc > 0 ? atof(argv[0]) : 1.0;
	unsigned long hop = arg_or(argc, argv, 1, 2000), base = arg_or(argc, argv, 2, 1000000);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct timespec t0, t;
	unsigned long i = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (i % hop == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((i / hop) % (ncpu > 0 ? ncpu : 1), &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (i % 1024 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
				break;
		}
		close((int)(base + i++));
	}
	return 0;
}

/* N prctl(PR_SET_NAME): N sys_enter_prctl samples and N COMM records. With
 * "wait", it then prints "renamed N" and lives on, its COMMs still current,
 * until SIGUSR1, and spins 0.2 s of CPU time: a tracking log that only grows, and samples
 * after whatever the test did meanwhile. */
static int workload_prctl(int argc, const char **argv)
{
	unsigned long n = arg_or(argc, argv, 0, 100);
	int wait = argc > 1 && !strcmp(argv[1], "wait"), sig;
	char name[16];
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (wait)
		sigprocmask(SIG_BLOCK, &usr1, NULL);
	for (unsigned long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "wl-%u", (unsigned)(i % 1000000000));
		prctl(PR_SET_NAME, name);
	}
	if (!wait)
		return 0;
	printf("renamed %lu\n", n);
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		return 1;
	test_spin_loop(CLOCK_THREAD_CPUTIME_ID, 0.2);
	return 0;
}

/* N children that spin briefly and exit */
static int workload_forks(int argc, const char **argv)
{
	unsigned long n = arg_or(argc, argv, 0, 10);

	for (unsigned long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			test_spin_loop(CLOCK_MONOTONIC, 0.01);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}

int test_workload(const char *name, int argc, const char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, const char **);
	} wl[] = {
		{ "closes", workload_closes },
		{ "spin", workload_spin },
		{ "spin-cpu", workload_spin_cpu },
		{ "prctl", workload_prctl },
		{ "forks", workload_forks },
		{ "hop", workload_hop },
		{ "closebad", workload_closebad },
		{ "paced", workload_paced },
	};

	for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++)
		if (!strcmp(wl[i].name, name))
			return wl[i].fn(argc, argv);
	fprintf(stderr, "perf test: unknown workload '%s' (closes, spin, spin-cpu, prctl, forks, hop, closebad, paced)\n", name);
	return 1;
}
