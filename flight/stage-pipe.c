/* The stage pipe's thread: writes the stages a dump's merge fills to the
 * file, while the merge fills the next. */
#include "flight/stage-pipe.h"
#include "perfdata/data.h"
#include "lib/thread.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *stage_pipe__writer(void *arg)
{
	struct stage_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct iovec iov;
		int err;

		while (!p->quit && !p->count)
			pthread_cond_wait(&p->filled, &p->lock);
		if (!p->count)
			break;		/* quit, and all written */
		iov = (struct iovec){ p->buf[p->tail], p->len[p->tail] };
		pthread_mutex_unlock(&p->lock);
		/* after a failure the rest is dropped: the file is abandoned */
		if (p->err)
			err = 0;
		else if (p->feeds)
			err = perf_data__write_ring(p->out, &iov, 1);
		else
			err = perf_data__put_ring(p->out, &iov, 1);
		pthread_mutex_lock(&p->lock);
		if (err && !p->err)
			p->err = err;
		p->tail = (p->tail + 1) % STAGE_PIPE_DEPTH;
		p->count--;
		pthread_cond_signal(&p->freed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int stage_pipe__init(struct stage_pipe *p, size_t size)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->size = size;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->freed, NULL);
	/* faulted in now, not by the first dump's merge */
	for (int i = 0; i < STAGE_PIPE_DEPTH; i++) {
		p->buf[i] = mmap_faulted(size);
		if (!p->buf[i])
			return -ENOMEM;
	}
	err = thread__spawn(&p->tid, -1, stage_pipe__writer, p);
	if (err)
		return err;
	p->running = 1;
	return 0;
}

/* Keeps the thread and the merge (the caller) on CPUs of their own, for
 * one dump. Woken at every stage, the thread is woken onto the waker's
 * CPU, nearly always, where it preempts the merge: the two take turns
 * instead of working side by side. Keeping the thread off the caller's
 * CPU is not enough: the caller, free to move, goes over to the thread's
 * CPU now and then, the other CPU idle. So the caller stays on its CPU
 * and the thread gets the others; both get their CPUs back at the dump's
 * end. Best effort: with one CPU allowed, or none known, they go where
 * the scheduler puts them. */
static void stage_pipe__spread(struct stage_pipe *p)
{
	cpu_set_t others, here;
	int cpu = sched_getcpu();

	p->spread = 0;
	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    pthread_getaffinity_np(p->tid, sizeof(p->home), &p->home) ||
	    pthread_getaffinity_np(pthread_self(), sizeof(p->caller_home), &p->caller_home) ||
	    !CPU_ISSET(cpu, &p->home) || CPU_COUNT(&p->home) < 2)
		return;
	others = p->home;
	CPU_CLR(cpu, &others);
	CPU_ZERO(&here);
	CPU_SET(cpu, &here);
	if (pthread_setaffinity_np(pthread_self(), sizeof(here), &here))
		return;
	p->spread = !pthread_setaffinity_np(p->tid, sizeof(others), &others);
	if (!p->spread)
		pthread_setaffinity_np(pthread_self(), sizeof(p->caller_home), &p->caller_home);
}

void stage_pipe__exit(struct stage_pipe *p)
{
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->quit = 1;
		pthread_cond_signal(&p->filled);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->tid, NULL);
	}
	for (int i = 0; i < STAGE_PIPE_DEPTH; i++)
		if (p->buf[i])
			munmap(p->buf[i], p->size);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}

void stage_pipe__start(struct stage_pipe *p, struct perf_data *out, int feeds)
{
	/* the thread is idle: nothing handed over, nothing to read these */
	p->out = out;
	p->feeds = feeds;
	p->err = 0;
	stage_pipe__spread(p);
}

char *stage_pipe__stage(struct stage_pipe *p)
{
	char *stage;

	pthread_mutex_lock(&p->lock);
	while (p->count == STAGE_PIPE_DEPTH)
		pthread_cond_wait(&p->freed, &p->lock);
	stage = p->buf[(p->tail + p->count) % STAGE_PIPE_DEPTH];
	pthread_mutex_unlock(&p->lock);
	return stage;
}

int stage_pipe__put(struct stage_pipe *p, size_t len)
{
	int err;

	pthread_mutex_lock(&p->lock);
	p->len[(p->tail + p->count) % STAGE_PIPE_DEPTH] = len;
	p->count++;
	pthread_cond_signal(&p->filled);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

int stage_pipe__finish(struct stage_pipe *p)
{
	int err;

	pthread_mutex_lock(&p->lock);
	while (p->count)
		pthread_cond_wait(&p->freed, &p->lock);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	if (p->spread) {
		pthread_setaffinity_np(p->tid, sizeof(p->home), &p->home);
		pthread_setaffinity_np(pthread_self(), sizeof(p->caller_home), &p->caller_home);
	}
	p->spread = 0;
	return err;
}
