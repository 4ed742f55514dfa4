#include "flight/writer.h"
#include "flight/dump.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* Seconds between two readings of a file made ahead, while nothing else
 * is to do: clean page cache is the first memory the kernel takes back,
 * and a DAMON pageout scheme here takes page cache idle for a minute (a
 * file made ahead: 62 MB in the page cache, 27 three minutes later). */
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

			/* only a file made ahead is worth a timer: not with
			 * -z, -r or a making refused */
			if (!w->warm_dump || !dump__ahead_made(w->warm_dump)) {
				pthread_cond_wait(&w->cond, &w->lock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += REFRESH_S;
			if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT)
				w->warm_due = 1;	/* read it through again */
		}
		if (w->quit)
			break;
		/* read under the lock: writer__wait() clears them */
		struct dump *warm = w->warm_dump;
		const char *path = w->warm_path;

		if (writer__has_job(w)) {
			struct dump *d = w->job;

			pthread_mutex_unlock(&w->lock);
			dump__write(d);
			/* the next file opened before the dump is done: a
			 * session holds as many fds after a dump as before */
			if (warm)
				(void)dump__ready_next(d, path);
			pthread_mutex_lock(&w->lock);
			w->done = 1;
			w->warm_due = w->warm_dump != NULL;
			pthread_cond_broadcast(&w->cond);
			/* cannot fail: one job at a time never fills the counter */
			(void)eventfd_write(w->efd, 1);
			continue;
		}
		w->warm_due = 0;
		/* at real-time priority (-r) the making would take a CPU from
		 * the workload for as long as it lasts: the dump's own burst
		 * would not */
		if (!warm || writer__realtime())
			continue;
		w->warming = 1;
		__atomic_store_n(&w->hurry, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&w->lock);
		/* a failure costs the next dump its speed; the dump says so */
		(void)dump__warm(warm, &w->hurry);
		pthread_mutex_lock(&w->lock);
		w->warming = 0;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int writer__start(struct writer *w)
{
	pthread_condattr_t attr;
	int err;

	memset(w, 0, sizeof(*w));
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

void writer__warm(struct writer *w, struct dump *d, const char *path)
{
	if (!w->started)
		return;
	/* the thread touches d->ahead only once warm_dump is set */
	(void)dump__ready_next(d, path);
	pthread_mutex_lock(&w->lock);
	w->warm_dump = d;
	w->warm_path = path;
	w->warm_due = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void writer__hurry(struct writer *w)
{
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
}

void writer__submit(struct writer *w, struct dump *d)
{
	pthread_mutex_lock(&w->lock);
	w->job = d;
	w->done = 0;
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

struct dump *writer__reap(struct writer *w)
{
	struct dump *d = NULL;
	eventfd_t v;

	pthread_mutex_lock(&w->lock);
	if (w->job && w->done) {
		d = w->job;
		w->job = NULL;
		w->done = 0;
	}
	pthread_mutex_unlock(&w->lock);
	if (d)
		eventfd_read(w->efd, &v);	/* consumed with the job it announced */
	return d;
}

struct dump *writer__wait(struct writer *w)
{
	if (!w->started)
		return NULL;
	pthread_mutex_lock(&w->lock);
	w->warm_dump = NULL;
	w->warm_due = 0;
	__atomic_store_n(&w->hurry, 1, __ATOMIC_RELAXED);
	while (w->warming || writer__has_job(w))
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return writer__reap(w);
}
