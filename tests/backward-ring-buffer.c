/* The kernel's backward (write_backward, read-only) ring as this tool
 * reads it: exact counts, wrap-around, PAUSE_OUTPUT losses, no repeats;
 * and the twin switch a dump will do (see test_twin_switch()). */
#include "tests/tests.h"
#include "util/cpumap.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/mmap.h"
#include "util/parse-events.h"
#include "flight/ring-copy.h"
#include "util/tp.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

struct counts {
	u32 tid;
	u64 id;
	int samples, comms, bad;
	u64 lost;
	int first_comm, last_comm;	/* numbers of the wl-N names seen, oldest/newest */
	int comm_gaps;			/* consecutive COMMs whose numbers don't follow */
	int paused_names;		/* "p-" names, made while paused */
};

static void count_copy(struct ring_copy *rc, struct counts *c)
{
	int prev = -1;

	c->first_comm = c->last_comm = -1;
	for (u64 i = 0; i < rc->idx.nr; i++) {
		const struct perf_event_header *h = (const void *)(rc->buf + rc->idx.offs[i]);
		const u64 *f = (const u64 *)(h + 1);
		const u32 *w = (const u32 *)(h + 1);

		if (h->type == PERF_RECORD_SAMPLE) {
			/* IDENTIFIER, IP, pid/tid, TIME, CPU, PERIOD, RAW */
			if (f[0] != c->id || (u32)(f[2] >> 32) != c->tid || f[5] != 1)
				c->bad++;
			c->samples++;
		} else if (h->type == PERF_RECORD_COMM && w[1] == c->tid) {
			const char *name = (const char *)(w + 2);
			int n;

			if (!strncmp(name, "p-", 2)) {
				c->paused_names++;
				continue;
			}
			if (sscanf(name, "wl-%d", &n) != 1) {
				c->bad++;
				continue;
			}
			if (prev >= 0 && n != prev + 1)
				c->comm_gaps++;
			if (c->first_comm < 0)
				c->first_comm = n;
			c->last_comm = prev = n;
			c->comms++;
		} else if (h->type == PERF_RECORD_LOST) {
			c->lost += f[1];
		}
	}
}

static void rename_n(const char *fmt, int from, int n)
{
	char name[16];

	for (int i = from; i < from + n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		prctl(PR_SET_NAME, name);
	}
}

struct evlist *test__open_backward(const char *event, const char *cpu_list, int twins,
				   void (*tune)(struct perf_event_attr *a), size_t ring_bytes,
				   char *err, size_t errsz, int *ret)
{
	struct evlist *l = evlist__new();
	struct cpu_map *cpus = cpu_list ? cpu_map__new(cpu_list) : cpu_map__new_any();
	struct thread_map *threads = thread_map__new_pid(cpu_list ? -1 : gettid());

	*ret = -ENOMEM;
	if (l && cpus && threads) {
		evlist__set_maps(l, cpus, threads);
		*ret = parse_events(l, event, err, errsz) ? -EINVAL : 0;
		if (!*ret) {
			struct perf_event_attr *a = &l->entries[0]->attr;

			a->write_backward = 1;
			a->disabled = 1;
			tune(a);
			*ret = evlist__open(l, err, errsz, twins ? -1 : 0);
		}
		if (!*ret && twins)
			*ret = evlist__open_twins(l, err, errsz);
		if (!*ret)
			*ret = evlist__mmap(l, 0, ring_bytes, err, errsz);
		if (!*ret && twins && !evlist__twinned(l))
			*ret = -ENOMEM;
	}
	cpu_map__put(cpus);
	thread_map__put(threads);
	if (*ret) {
		evlist__delete(l);
		return NULL;
	}
	return l;
}

/* sys_enter_prctl with COMM tracking on the same backward ring. */
static void tune_prctl(struct perf_event_attr *a)
{
	a->sample_type = ST;
	a->sample_id_all = 1;
	a->comm = 1;
}

static struct evlist *open_backward(size_t ring_bytes, char *err, size_t errsz, int *ret)
{
	return test__open_backward("syscalls:sys_enter_prctl", NULL, 0, tune_prctl, ring_bytes, err,
				   errsz, ret);
}

static int capture(struct ring_copy *rc, struct counts *c, u64 id)
{
	memset(c, 0, sizeof(*c));
	c->tid = gettid();
	c->id = id;
	ring_copy__capture(rc, 0);
	if (ring_copy__index(rc, ST))
		return -1;
	count_copy(rc, c);
	return 0;
}

/* The twin switch: a dump enables a second event for the same tracepoint
 * and CPU, with a backward ring of its own, before it disables the first,
 * so no hit is lost; the hits of the overlap land in both rings, and a cut
 * by time is to keep one copy. Which twin stamps a shared hit first is not
 * the one enabled last: PERF_EVENT_IOC_ENABLE reschedules all of the CPU's
 * events in the order they were opened, each put at the head of the
 * tracepoint's list, so the twin opened later stamps first (6.18). The cut
 * "keep from the ring enabled later what is newer than all the other's" is
 * exact on a switch to the twin opened later; on a switch back it keeps the
 * overlap's last hit twice, and no cut by time tells that hit from the next
 * one. Ring 1 is opened after ring 0. So the recorder's switch goes only
 * to events opened after those it leaves: the set left is opened anew
 * once read (evlist__reopen_twins()). */
#define TWIN_BASE	1000000		/* close() numbers: far above our fds */
#define TWIN_SWITCHES	6
#define TWIN_EPOCH	3000		/* numbers an epoch has at least: a few ms */
#define TWIN_RING	(8 << 20)
#define TWIN_MAX	120000		/* 56-byte records: both rings stay unwrapped */
#define TWIN_ST		(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

struct twin_loop {
	pid_t tid;
	int stop;
	long issued;	/* close(TWIN_BASE + i) returned for every i < issued */
};

/* Where a number was seen in one ring: time 0 is not seen (the times are
 * CLOCK_MONOTONIC's, as a dump's). */
struct twin_hit {
	u64 time;
	int epoch;
};

static void *twin_closer(void *arg)
{
	struct twin_loop *l = arg;

	l->tid = gettid();
	for (long i = 0; i < TWIN_MAX && !__atomic_load_n(&l->stop, __ATOMIC_RELAXED); i++) {
		close(TWIN_BASE + i);
		__atomic_store_n(&l->issued, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Waits until the loop has issued n more numbers (or can issue no more). */
static void twin_wait(struct twin_loop *l, long n)
{
	long want = __atomic_load_n(&l->issued, __ATOMIC_ACQUIRE) + n;

	while (__atomic_load_n(&l->issued, __ATOMIC_ACQUIRE) < MIN(want, TWIN_MAX))
		usleep(50);
}

int test__close_fd_field(const char *dir, int *off, int *size)
{
	char path[PATH_MAX], text[4096];
	const char *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_close/format", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	p = strstr(text, " fd;\toffset:");
	if (!p || sscanf(p, " fd;\toffset:%d;\tsize:%d;", off, size) != 2 || *size > 8)
		return -EINVAL;
	return 0;
}

/* Files ring r's samples of the loop into hits by number and epoch (epoch e
 * lives in ring e % 2; began[e] is how many bytes its ring held when it
 * began), and the newest time of each epoch: the loop's alone, as other
 * tasks' hits would make the counts below inexact. Records are whole in
 * place: the ring did not wrap. */
static int twin_walk(const struct mmap *m, int r, const u64 *began, pid_t tid,
		     const int fd_field[2], struct twin_hit *hits, u64 *newest)
{
	u64 head = mmap__read_head(m), held = -head;

	if (held > m->mask + 1)
		return -EOVERFLOW;
	for (u64 off = 0, size; off < held; off += size) {
		const unsigned char *p = (const void *)mmap__header(m, head + off);
		const struct perf_event_header *h = (const void *)p;
		u32 pid_tid[2], raw_size;
		u64 time, fd = 0;
		int e = r;

		size = h->size;
		if (!size)
			break;
		if (h->type != PERF_RECORD_SAMPLE || size < 28)
			continue;
		while (e + 2 <= TWIN_SWITCHES && began[e + 2] < held - off)
			e += 2;
		memcpy(pid_tid, p + 8, 8);
		memcpy(&time, p + 16, 8);
		memcpy(&raw_size, p + 24, 4);
		if (pid_tid[1] != (u32)tid)
			continue;
		newest[e] = MAX(newest[e], time);
		if (raw_size < (u32)(fd_field[0] + fd_field[1]) || 28 + raw_size > size)
			return -EINVAL;
		memcpy(&fd, p + 28 + fd_field[0], fd_field[1]);	/* little-endian */
		if (fd < TWIN_BASE || fd >= TWIN_BASE + TWIN_MAX || hits[fd - TWIN_BASE].time)
			return -EEXIST;		/* never issued, or seen twice */
		hits[fd - TWIN_BASE] = (struct twin_hit){ time, e };
	}
	return 0;
}

static int twin_check(struct test_ctx *ctx, long n, struct twin_hit *hits[2], const u64 *newest)
{
	int both[TWIN_SWITCHES + 1] = { 0 };

	for (long i = 0; i < n; i++) {
		const struct twin_hit *first = &hits[0][i], *later = &hits[1][i];	/* opened */
		int e = MAX(first->epoch, later->epoch), kept = 0, last;

		TEST_ASSERT(first->time || later->time, "number %ld of %ld in neither ring", i, n);
		/* the dump's cut: an epoch keeps what is newer than all of the one before */
		for (int r = 0; r < 2; r++)
			kept += hits[r][i].time && (!hits[r][i].epoch ||
						    hits[r][i].time > newest[hits[r][i].epoch - 1]);
		if (!first->time || !later->time) {
			TEST_ASSERT(kept == 1, "number %ld (epoch %d) kept %d times by the cut", i, e,
				    kept);
			continue;
		}
		TEST_ASSERT(abs(first->epoch - later->epoch) == 1, "number %ld in epochs %d and %d",
			    i, first->epoch, later->epoch);
		TEST_ASSERT(later->time < first->time, "number %ld: the twin opened later stamped it "
			    "at %llu, the other at %llu (enabled last: ring %d)", i,
			    (unsigned long long)later->time, (unsigned long long)first->time, e % 2);
		both[e]++;
		last = i + 1 == n || !hits[0][i + 1].time || !hits[1][i + 1].time;
		TEST_ASSERT(kept == 1 + (e % 2 == 0 && last), "number %ld, in both rings, kept %d "
			    "times by the cut at the switch to ring %d", i, kept, e % 2);
	}
	TEST_LOG(ctx, "  twin switch: %ld numbers; in both rings, by switch:", n);
	for (int e = 1; e <= TWIN_SWITCHES; e++)
		TEST_LOG(ctx, " %d", both[e]);
	TEST_LOG(ctx, "\n");
	TEST_ASSERT(both[1] && both[2], "no hit in both rings at the first switches");
	return TEST_OK;
}

/* Rings 0 and 1 take turns, 0 first: epoch e is ring e % 2's. The loop runs
 * on the events' CPU while this thread switches them. */
static int twin_run(int fd[2], struct mmap ring[2], u64 *began, int cpu, struct twin_loop *l)
{
	pthread_attr_t pa;
	pthread_t t;
	cpu_set_t set;
	int err = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&pa))
		return -1;
	err = pthread_attr_setaffinity_np(&pa, sizeof(set), &set) ||
	      ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0) || pthread_create(&t, &pa, twin_closer, l);
	pthread_attr_destroy(&pa);
	if (err)
		return -1;
	for (int k = 0; k < TWIN_SWITCHES; k++) {
		int to = (k + 1) % 2;

		twin_wait(l, TWIN_EPOCH);
		began[k + 1] = -mmap__read_head(&ring[to]);
		err |= ioctl(fd[to], PERF_EVENT_IOC_ENABLE, 0);
		twin_wait(l, 20);	/* hits for both: what the property is about */
		err |= ioctl(fd[!to], PERF_EVENT_IOC_DISABLE, 0);
	}
	twin_wait(l, TWIN_EPOCH);
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	return ioctl(fd[TWIN_SWITCHES % 2], PERF_EVENT_IOC_DISABLE, 0) | err;
}

static int test_twin_switch(struct test_ctx *ctx)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				     .sample_period = 1, .sample_type = TWIN_ST, .disabled = 1,
				     .write_backward = 1, .use_clockid = 1,
				     .clockid = CLOCK_MONOTONIC };
	const char *dir = tp__dir();
	int id = tp__id("syscalls", "sys_enter_close"), fd[2] = { -1, -1 }, fd_field[2], cpu = 0;
	struct twin_loop loop = { 0 };
	struct twin_hit *hits[2] = { NULL, NULL };
	struct mmap ring[2] = { 0 };
	u64 began[TWIN_SWITCHES + 1] = { 0 }, newest[TWIN_SWITCHES + 1] = { 0 };
	cpu_set_t set;
	int ret = TEST_FAIL;

	if (!dir || id < 0 || test__close_fd_field(dir, &fd_field[0], &fd_field[1]))
		TEST_SKIP_BECAUSE(ctx, "twin switch: no syscalls:sys_enter_close format in tracefs");
	a.config = id;
	if (!sched_getaffinity(0, sizeof(set), &set))
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
			cpu++;
	for (int r = 0; r < 2; r++) {
		fd[r] = sys_perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[r] < 0) {
			snprintf(ctx->skip_reason, sizeof(ctx->skip_reason), "twin switch: "
				 "sys_enter_close on CPU %d: %s", cpu, strerror(errno));
			ret = TEST_SKIP;
			goto out;
		}
		hits[r] = calloc(TWIN_MAX, sizeof(*hits[r]));
		if (!hits[r] || mmap__init(&ring[r], fd[r], cpu, TWIN_RING, 1)) {
			fprintf(stderr, "  FAILED: twin switch: ring %d: no memory or mmap\n", r);
			goto out;
		}
	}
	if (twin_run(fd, ring, began, cpu, &loop)) {
		fprintf(stderr, "  FAILED: twin switch: enable, disable or the loop's thread\n");
		goto out;
	}
	for (int r = 0; r < 2; r++) {
		int err = twin_walk(&ring[r], r, began, loop.tid, fd_field, hits[r], newest);

		if (err) {
			fprintf(stderr, "  FAILED: twin switch: ring %d: %s\n", r,
				err == -EOVERFLOW ? "wrapped" : err == -EEXIST ?
				"a number never issued or seen twice" : "a malformed sample");
			goto out;
		}
	}
	ret = twin_check(ctx, loop.issued, hits, newest);
out:
	for (int r = 0; r < 2; r++) {
		mmap__munmap(&ring[r]);
		if (fd[r] >= 0)
			close(fd[r]);
		free(hits[r]);
	}
	return ret;
}

static int test_backward(struct test_ctx *ctx)
{
	char err[512] = "", saved[16] = "";
	struct counts c;
	struct evlist *l;
	struct ring_copy rc;
	int ret, n = 1000;

	if (!tp__dir() || tp__id("syscalls", "sys_enter_prctl") < 0)
		TEST_SKIP_BECAUSE(ctx, "no syscalls:sys_enter_prctl tracepoint");
	prctl(PR_GET_NAME, saved);

	/* 1. a big ring: exactly n samples and n COMMs, in order */
	l = open_backward(1 << 20, err, sizeof(err), &ret);
	if (!l && (ret == -EACCES || ret == -EPERM))
		TEST_SKIP_BECAUSE(ctx, "no permission to open the tracepoint");
	TEST_ASSERT(l, "open: %s", err);
	TEST_ASSERT(l->bwd && l->bwd[0].pc && !l->fwd[0].pc, "one backward ring only");
	TEST_ASSERT(!ring_copy__init(&rc, &l->bwd[0]), "capture buffer");
	evlist__enable(l);
	rename_n("wl-%d", 0, n);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture");
	TEST_LOG(ctx, "  big ring: %d samples, %d comms, lost %llu\n", c.samples, c.comms,
		 (unsigned long long)c.lost);
	TEST_ASSERT(c.samples == n && c.comms == n && !c.bad, "samples %d comms %d bad %d",
		    c.samples, c.comms, c.bad);
	TEST_ASSERT(c.first_comm == 0 && c.last_comm == n - 1 && !c.comm_gaps, "comm order");

	/* 2. a second capture holds only what came since: no repeats */
	evlist__enable(l);
	rename_n("wl-%d", n, 10);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture 2");
	TEST_ASSERT(c.samples == 10 && c.comms == 10 && c.first_comm == n, "second capture: "
		    "%d samples %d comms from wl-%d", c.samples, c.comms, c.first_comm);

	/* 3. paused: what happens meanwhile is absent and counted lost */
	evlist__enable(l);
	TEST_ASSERT(!evlist__pause_backward(l, 1), "PAUSE_OUTPUT");
	rename_n("p-%d", 0, 50);
	TEST_ASSERT(!evlist__pause_backward(l, 0), "resume");
	rename_n("wl-%d", n + 10, 1);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture 3");
	TEST_LOG(ctx, "  paused: %d samples, %d comms, lost %llu, paused names %d\n",
		 c.samples, c.comms, (unsigned long long)c.lost, c.paused_names);
	TEST_ASSERT(!c.paused_names, "records made while paused are present");
	TEST_ASSERT(c.lost == 100, "lost %llu, want 100 (50 samples + 50 COMMs)",
		    (unsigned long long)c.lost);
	TEST_ASSERT(c.samples == 1 && c.comms == 1, "after resume: %d samples %d comms",
		    c.samples, c.comms);
	ring_copy__exit(&rc);
	evlist__delete(l);

	/* 4. one page that wraps many times: every record read is intact and
	 * they are the newest ones, without gaps */
	l = open_backward(sysconf(_SC_PAGESIZE), err, sizeof(err), &ret);
	TEST_ASSERT(l, "open one page: %s", err);
	TEST_ASSERT(!ring_copy__init(&rc, &l->bwd[0]), "capture buffer");
	evlist__enable(l);
	rename_n("wl-%d", 0, n);
	evlist__disable(l);
	prctl(PR_SET_NAME, saved);
	TEST_ASSERT(!capture(&rc, &c, l->entries[0]->id[0]), "capture one page");
	TEST_LOG(ctx, "  one page: %d samples, %d comms, newest wl-%d, bad %d\n", c.samples,
		 c.comms, c.last_comm, c.bad);
	TEST_ASSERT(c.samples > 5 && c.comms > 5 && !c.bad, "intact records");
	TEST_ASSERT(c.last_comm == n - 1 && !c.comm_gaps, "newest wl-%d, gaps %d", c.last_comm,
		    c.comm_gaps);
	TEST_ASSERT(c.samples < n, "a one-page ring cannot hold %d samples", c.samples);
	ring_copy__exit(&rc);
	evlist__delete(l);
	return test_twin_switch(ctx);
}

const struct test_suite suite_backward_ring_buffer = {
	"backward-ring-buffer", "Backward ring buffer: counts, wrap, pause, no repeats, tracepoint twins: the one opened later stamps a shared hit first",
	test_backward,
};
