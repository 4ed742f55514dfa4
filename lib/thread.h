/* Starting a helper thread that takes no signals, pinned to a CPU. */
#ifndef PERF_THREAD_H
#define PERF_THREAD_H

#include <pthread.h>

/* Starts fn(arg) on a thread of the recorder's that takes no signals (the
 * recorder's thread reads them all from its signalfd), pinned to cpu when
 * cpu >= 0 and that CPU is one the process may run on, else anywhere.
 * 0 or -errno; the caller joins *tid. */
int thread__spawn(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg);

#endif
