#include "util/capture.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct helper_arg {
	struct capture_crew *c;
	int index;		/* 1..threads: the rings index % (threads + 1) */
};

/* The rings of share index (0: the recorder's thread). */
static void capture_crew__share(struct capture_crew *c, int index, u64 margin)
{
	for (int i = index; i < c->nr; i += c->threads + 1)
		ring_copy__capture(&c->rcs[i], MIN(margin, c->rcs[i].size / 4));
}

static void *capture_crew__helper(void *arg)
{
	struct helper_arg a = *(struct helper_arg *)arg;
	struct capture_crew *c = a.c;
	u64 seen = 0;

	free(arg);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->quit && c->generation == seen)
			pthread_cond_wait(&c->go, &c->lock);
		if (c->quit)
			break;
		seen = c->generation;
		pthread_mutex_unlock(&c->lock);
		capture_crew__share(c, a.index, c->margin);
		pthread_mutex_lock(&c->lock);
		if (--c->pending == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Starts helper index on the CPU of its first ring (anywhere if that
 * fails: a CPU taken offline or out of the recorder's set). Signals stay
 * the recorder's thread's: it reads them from its signalfd. */
static int capture_crew__spawn(struct capture_crew *c, int index)
{
	struct helper_arg *a = malloc(sizeof(*a));
	pthread_attr_t attr;
	cpu_set_t cpus;
	sigset_t all, old;
	int err;

	if (!a)
		return -ENOMEM;
	*a = (struct helper_arg){ c, index };
	pthread_attr_init(&attr);
	CPU_ZERO(&cpus);
	if (c->rcs[index].cpu >= 0 && c->rcs[index].cpu < CPU_SETSIZE) {
		CPU_SET(c->rcs[index].cpu, &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&c->tid[index - 1], &attr, capture_crew__helper, a);
	if (err == EINVAL) {	/* that CPU is not ours to run on */
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		err = pthread_create(&c->tid[index - 1], &attr, capture_crew__helper, a);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		free(a);
	return -err;
}

struct capture_crew *capture_crew__new(struct ring_copy *rcs, int nr)
{
	struct capture_crew *c = calloc(1, sizeof(*c));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	if (!c)
		return NULL;
	c->rcs = rcs;
	c->nr = nr;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->go, NULL);
	pthread_cond_init(&c->done, NULL);
	c->threads = (int)MIN((long)nr, cpus > 0 ? cpus : 1) - 1;
	if (c->threads <= 0) {
		c->threads = 0;
		return c;
	}
	c->tid = calloc(c->threads, sizeof(*c->tid));
	if (!c->tid) {
		err = ENOMEM;
		goto fail;
	}
	for (int i = 1; i <= c->threads; i++) {
		err = -capture_crew__spawn(c, i);
		if (err) {
			c->threads = i - 1;	/* the ones running are joined */
			goto fail;
		}
	}
	return c;
fail:
	capture_crew__delete(c);
	errno = err;
	return NULL;
}

void capture_crew__delete(struct capture_crew *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; c->tid && i < c->threads; i++)
		pthread_join(c->tid[i], NULL);
	free(c->tid);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void capture_crew__run(struct capture_crew *c, u64 margin)
{
	if (c->threads) {
		pthread_mutex_lock(&c->lock);
		c->margin = margin;
		c->pending = c->threads;
		c->generation++;
		pthread_cond_broadcast(&c->go);
		pthread_mutex_unlock(&c->lock);
	}
	capture_crew__share(c, 0, margin);
	if (!c->threads)
		return;
	pthread_mutex_lock(&c->lock);
	while (c->pending)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}
