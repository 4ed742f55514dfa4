/* The capture crew: one thread per ring, pinned to the ring's CPU, that
 * copies and then indexes its ring at a dump and sleeps between dumps. */
#include "flight/capture.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct helper_arg {
	struct capture_crew *c;
	int index;		/* the rings index + k * threads */
};

/* The job's rings of share index; the only share when there are no
 * helpers. Returns the first -errno of an index. */
static int capture_crew__share(struct capture_crew *c, int index)
{
	int err = 0;

	for (int i = index; i < c->nr; i += c->threads ? c->threads : 1) {
		struct ring_copy *rc = &c->rcs[i];

		if (c->job == CREW_CAPTURE)
			ring_copy__capture(rc, MIN(c->margin, rc->size / 4));
		else if (!err)
			err = ring_copy__index(rc, c->id_sample_type);
	}
	return err;
}

static void *capture_crew__helper(void *arg)
{
	struct helper_arg a = *(struct helper_arg *)arg;
	struct capture_crew *c = a.c;
	u64 seen = 0;
	int err;

	free(arg);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->quit && c->generation == seen)
			pthread_cond_wait(&c->go, &c->lock);
		if (c->quit)
			break;
		seen = c->generation;
		pthread_mutex_unlock(&c->lock);
		err = capture_crew__share(c, a.index);
		pthread_mutex_lock(&c->lock);
		if (err && !c->err)
			c->err = err;
		if (--c->pending == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Starts helper index on the CPU of its first ring (anywhere if that
 * fails: a CPU taken offline or out of the recorder's set). */
static int capture_crew__spawn(struct capture_crew *c, int index)
{
	struct helper_arg *a = malloc(sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	*a = (struct helper_arg){ c, index };
	err = thread__spawn(&c->tid[index], c->rcs[index].cpu, capture_crew__helper, a);
	if (err)
		free(a);
	return err;
}

struct capture_crew *capture_crew__new(struct ring_copy *rcs, int nr, int cpus)
{
	struct capture_crew *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	c->rcs = rcs;
	c->nr = nr;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->go, NULL);
	pthread_cond_init(&c->done, NULL);
	c->threads = MIN(nr, cpus > 0 ? cpus : 1);
	if (c->threads <= 1) {
		c->threads = 0;
		return c;
	}
	c->tid = calloc(c->threads, sizeof(*c->tid));
	if (!c->tid) {
		err = ENOMEM;
		goto fail;
	}
	for (int i = 0; i < c->threads; i++) {
		err = -capture_crew__spawn(c, i);
		if (err) {
			c->threads = i;	/* the ones running are joined */
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

/* Every helper does its share of the job; the recorder's thread waits. */
static int capture_crew__go(struct capture_crew *c)
{
	int err;

	if (!c->threads)
		return capture_crew__share(c, 0);
	pthread_mutex_lock(&c->lock);
	c->err = 0;
	c->pending = c->threads;
	c->generation++;
	pthread_cond_broadcast(&c->go);
	while (c->pending)
		pthread_cond_wait(&c->done, &c->lock);
	err = c->err;
	pthread_mutex_unlock(&c->lock);
	return err;
}

void capture_crew__run(struct capture_crew *c, u64 margin)
{
	c->job = CREW_CAPTURE;
	c->margin = margin;
	capture_crew__go(c);
}

int capture_crew__index(struct capture_crew *c, u64 id_sample_type)
{
	c->job = CREW_INDEX;
	c->id_sample_type = id_sample_type;
	return capture_crew__go(c);
}
