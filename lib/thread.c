/* Starts the recorder's helper threads, which take no signals and are
 * pinned where asked. */
#include "lib/thread.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>

int thread__spawn(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t cpus;
	sigset_t all, old;
	int err;

	pthread_attr_init(&attr);
	if (cpu >= 0 && cpu < CPU_SETSIZE) {
		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(tid, &attr, fn, arg);
	if (err == EINVAL && cpu >= 0) {	/* that CPU is not ours to run on */
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		err = pthread_create(tid, &attr, fn, arg);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}
