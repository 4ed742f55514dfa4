/* The stage pipe (flight/stage-pipe.c): a dump's stages written in order,
 * whole, by its own thread, a failed write reported, CPUs kept apart. */
#include "tests/tests.h"
#include "perfdata/data.h"
#include "flight/stage-pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The stage pipe writes every stage handed over, in order, whole, while
 * the next is filled; a write that fails is reported by the next put and
 * by finish, and nothing after it is written. */
static int test_stage_pipe(struct test_ctx *ctx)
{
	enum { STAGE = 4096, STAGES = 500 };
	struct stage_pipe pipe;
	struct perf_data out = { .fd = -1 };
	char tmpl[] = "/tmp/perf-stage-pipe.XXXXXX", *back = NULL;
	size_t total = 0, len;
	int spread_checked = 0;
	int ret = TEST_FAIL, err = 0;

	/* the stages are in memory before the first dump: a first dump's
	 * merge paid a page fault every 4K of them (malloc and memset were
	 * compiled into a calloc, which touches nothing) */
	TEST_ASSERT(!stage_pipe__init(&pipe, 1 << 20), "stage pipe: %s", strerror(errno));
	for (int i = 0; i < STAGE_PIPE_DEPTH; i++) {
		uintptr_t page = sysconf(_SC_PAGESIZE), lo = (uintptr_t)pipe.buf[i] & ~(page - 1);
		uintptr_t hi = ((uintptr_t)pipe.buf[i] + (1 << 20) + page - 1) & ~(page - 1);
		unsigned char in[(1 << 20) / 4096 + 1];
		size_t pages = (hi - lo) / page, resident = 0;

		if (pages > sizeof(in) || mincore((void *)lo, hi - lo, in)) {
			fprintf(stderr, "  FAILED: stage pipe: mincore: %s\n", strerror(errno));
			goto out;
		}
		for (size_t k = 0; k < pages; k++)
			resident += in[k] & 1;
		if (resident != pages) {
			fprintf(stderr, "  FAILED: stage %d: %zu of %zu pages in memory\n", i,
				resident, pages);
			goto out;
		}
	}
	stage_pipe__exit(&pipe);
	TEST_ASSERT(!stage_pipe__init(&pipe, STAGE), "stage pipe: %s", strerror(errno));
	out.fd = mkstemp(tmpl);
	if (out.fd < 0)
		goto out;
	unlink(tmpl);
	stage_pipe__start(&pipe, &out, 0);
	for (int i = 0; i < STAGES && !err; i++) {
		char *stage = stage_pipe__stage(&pipe);

		len = 8 + (size_t)(i * 37) % (STAGE - 8);
		for (size_t k = 0; k < len; k++)
			stage[k] = (char)(i + k);
		total += len;
		err = stage_pipe__put(&pipe, len);
	}
	if (err || stage_pipe__finish(&pipe) || out.data_size != total) {
		fprintf(stderr, "  FAILED: stage pipe: %s, %llu of %zu bytes\n", strerror(-err),
			(unsigned long long)out.data_size, total);
		goto out;
	}
	back = malloc(total);
	if (!back || pread(out.fd, back, total, 0) != (ssize_t)total)
		goto out;
	total = 0;
	for (int i = 0; i < STAGES; i++) {
		len = 8 + (size_t)(i * 37) % (STAGE - 8);
		for (size_t k = 0; k < len; k++)
			if (back[total + k] != (char)(i + k)) {
				fprintf(stderr, "  FAILED: stage %d byte %zu\n", i, k);
				goto out;
			}
		total += len;
	}
	/* a file that cannot be written: the failure comes back, once */
	close(out.fd);
	out.fd = open("/dev/null", O_RDONLY);
	out.data_size = 0;
	stage_pipe__start(&pipe, &out, 0);
	for (int i = 0; i < STAGES && !err; i++) {
		memset(stage_pipe__stage(&pipe), 0, 64);
		err = stage_pipe__put(&pipe, 64);
	}
	if (stage_pipe__finish(&pipe) != -EBADF || out.data_size) {
		fprintf(stderr, "  FAILED: a write to a read-only fd: put said %d\n", err);
		goto out;
	}
	/* during a dump the merge (this thread) stays on one CPU and the
	 * pipe's thread keeps off it; after it, both have their CPUs back
	 * (skipped with one CPU) */
	{
		cpu_set_t mine, home, me_during, its, me_after, its_after;
		int cpu = -1;

		if (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) ||
		    pthread_getaffinity_np(pipe.tid, sizeof(home), &home) || CPU_COUNT(&mine) < 2)
			goto pinned_done;
		stage_pipe__start(&pipe, &out, 0);
		pthread_getaffinity_np(pthread_self(), sizeof(me_during), &me_during);
		pthread_getaffinity_np(pipe.tid, sizeof(its), &its);
		for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
			if (CPU_ISSET(c, &me_during))
				cpu = c;
		stage_pipe__finish(&pipe);
		pthread_getaffinity_np(pthread_self(), sizeof(me_after), &me_after);
		pthread_getaffinity_np(pipe.tid, sizeof(its_after), &its_after);
		pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
		if (CPU_COUNT(&me_during) != 1 || CPU_ISSET(cpu, &its) || !CPU_COUNT(&its) ||
		    !CPU_EQUAL(&me_after, &mine) || !CPU_EQUAL(&its_after, &home)) {
			fprintf(stderr, "  FAILED: during a dump the merge on %d CPUs (want 1), the "
				"pipe's thread on the merge's CPU %d: %s, on no CPU: %s; after it, "
				"the merge's CPUs back: %s, the thread's: %s\n",
				CPU_COUNT(&me_during), cpu, CPU_ISSET(cpu, &its) ? "yes" : "no",
				CPU_COUNT(&its) ? "no" : "yes",
				CPU_EQUAL(&me_after, &mine) ? "yes" : "no",
				CPU_EQUAL(&its_after, &home) ? "yes" : "no");
			goto out;
		}
		spread_checked = 1;
	}
pinned_done:
	TEST_LOG(ctx, "  stage pipe: %d stages in order; a failed write reported; %s\n", STAGES,
		 spread_checked ? "the merge on one CPU and the thread on the others for a dump" :
		 "NOT checked that the merge and the thread keep to CPUs of their own: one CPU "
		 "allowed here");
	ret = TEST_OK;
out:
	if (out.fd >= 0)
		close(out.fd);
	free(back);
	stage_pipe__exit(&pipe);
	return ret;
}

const struct test_suite suite_flight_stage_pipe = {
	"flight/stage-pipe", "Stage pipe: stages in memory before the first dump, written in order "
	"and whole, a failed write reported once, the merge and the pipe on CPUs of their own",
	test_stage_pipe,
};
