/* The writer's thread: one job at a time, handed over and reaped through
 * an eventfd, and the owner's work ahead while idle, redone now and then. */
#include "flight/writer.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* Seconds between two runs of the work ahead, while nothing else is to
 * do: what it makes (a file in the page cache) is clean page cache, the
 * first memory the kernel takes back, and a pageout scheme such as
 * DAMON's takes page cache once idle for a minute. */
#define REFRESH_S 20

static int writer__has_job(const struct writer *w)
{
	return w->job && !w->done;
}

/* Whether the calling thread runs at a real-time policy. */
static int writer__realtime(void)
{
	int policy = sched_getscheduler(0);

	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static void *writer__thread(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->quit && !writer__has_job(w) && !w->warm_due) {
			struct timespec until;

			/* only work ahead that made something is worth a
			 * timer */
			if (!w->warm_job || !w->ops->ahead_again(w->warm_job)) {
				pthread_cond_wait(&w->cond, &w->lock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += REFRESH_S;
			if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT)
				w->warm_due = 1;	/* do it again */
		}
		if (w->quit)
			break;
		/* read under the lock: writer__wait() clears them */
		void *warm = w->warm_job;
		const void *arg = w->warm_arg;

		if (writer__has_job(w)) {
			void *job = w->job;

			pthread_mutex_unlock(&w->lock);
			w->ops->run(job);
			/* readied before the job is announced done: the
			 * owner gets it back as ready as it handed it over */
			if (warm)
				w->ops->ready(job, arg);
			pthread_mutex_lock(&w->lock);
			w->done = 1;
			w->warm_due = w->warm_job != NULL;
			pthread_cond_broadcast(&w->cond);
			/* cannot fail: one job at a time never fills the counter */
			(void)eventfd_write(w->efd, 1);
			continue;
		}
		w->warm_due = 0;
		/* at real-time priority (-r) the work ahead would take a CPU
		 * from the workload for as long as it lasts: a job's own burst
		 * would not */
		if (!warm || writer__realtime())
			continue;
		w->warming = 1;
		__atomic_store_n(&w->hurry, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w->lock);
		/* what the work ahead fails at, the owner hears of from it */
		w->ops->ahead(warm, &w->hurry);
		pthread_mutex_lock(&w->lock);
		w->warming = 0;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int writer__start(struct writer *w, const struct writer_ops *ops)
{
	pthread_condattr_t attr;
	int err;

	memset(w, 0, sizeof(*w));
	w->ops = ops;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0)
		return -errno;
	pthread_mutex_init(&w->lock, NULL);
	/* the refresh's timeout must not move with the wall clock */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&w->thread, NULL, writer__thread, w);
	if (err)
		return -err;
	w->started = 1;
	return 0;
}

void writer__stop(struct writer *w)
{
	if (w->started) {
		writer__wait(w);
		pthread_mutex_lock(&w->lock);
		w->quit = 1;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		w->started = 0;
	}
	if (w->efd >= 0)
		close(w->efd);
	w->efd = -1;
}

void writer__warm(struct writer *w, void *job, const void *arg)
{
	if (!w->started)
		return;
	/* the thread touches what ready() made only once warm_job is set */
	w->ops->ready(job, arg);
	pthread_mutex_lock(&w->lock);
	w->warm_job = job;
	w->warm_arg = arg;
	w->warm_due = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void writer__hurry(struct writer *w)
{
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
}

void writer__submit(struct writer *w, void *job)
{
	pthread_mutex_lock(&w->lock);
	w->job = job;
	w->done = 0;
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void *writer__reap(struct writer *w)
{
	void *job = NULL;
	eventfd_t v;

	pthread_mutex_lock(&w->lock);
	if (w->job && w->done) {
		job = w->job;
		w->job = NULL;
		w->done = 0;
	}
	pthread_mutex_unlock(&w->lock);
	if (job)
		eventfd_read(w->efd, &v);	/* consumed with the job it announced */
	return job;
}

void *writer__wait(struct writer *w)
{
	if (!w->started)
		return NULL;
	pthread_mutex_lock(&w->lock);
	w->warm_job = NULL;
	w->warm_due = 0;
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
	while (w->warming || writer__has_job(w))
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return writer__reap(w);
}
