/* The capture crew (flight/capture.c): helper threads copy and index
 * backward ring images as one thread would, pinned or not. */
#include "tests/tests.h"
#include "tests/ring-images.h"
#include "flight/capture.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The capture crew copies and indexes every ring as one thread would: NR
 * rings, each wrapped to a different depth, captured twice; ring r on CPU
 * cpu0 + r. */
static int capture_crew_case(struct test_ctx *ctx, int nr, int cpu0, int cpus)
{
	enum { RINGS = 7 };
	static struct image img[RINGS];
	struct ring_copy rc[RINGS] = { 0 };
	struct capture_crew *crew = NULL;
	u64 seq = 1, last[RINGS], first;
	int ret = TEST_FAIL;

	for (int r = 0; r < nr; r++) {
		image_init(&img[r]);
		img[r].m.cpu = cpu0 + r;
		TEST_ASSERT(!ring_copy__init(&rc[r], &img[r].m), "ring %d", r);
	}
	crew = capture_crew__new(rc, nr, cpus);
	if (!crew) {
		fprintf(stderr, "  FAILED: crew of %d rings on CPUs %d..: %s\n", nr, cpu0,
			strerror(errno));
		goto out;
	}
	TEST_LOG(ctx, "  capture crew: %d helpers for %d rings on CPUs %d..\n", crew->threads,
		 nr, cpu0);
	for (int round = 0; round < 2; round++) {
		for (int r = 0; r < nr; r++)
			for (int k = 0; k < 20 + 13 * r * (round + 1); k++) {
				put_backward(&img[r], 64 + 8 * (k % 5), seq);
				last[r] = seq++;
			}
		capture_crew__run(crew, 0);
		/* a capture leaves no index: the crew's makes one */
		TEST_ASSERT(!capture_crew__index(crew, ST), "crew index");
		for (int r = 0; r < nr; r++) {
			if (check_copy(&rc[r], last[r], &first) ||
			    !rc[r].idx.nr || rc[r].head != img[r].head) {
				fprintf(stderr, "  FAILED: %d rings, round %d ring %d: %llu records\n",
					nr, round, r, (unsigned long long)rc[r].idx.nr);
				goto out;
			}
		}
	}
	ret = TEST_OK;
out:
	capture_crew__delete(crew);
	for (int r = 0; r < nr; r++)
		ring_copy__exit(&rc[r]);
	return ret;
}

/* More rings than CPUs (helpers take several, pinned where the CPUs
 * exist), rings on CPUs that do not exist (helpers run unpinned), one
 * ring, and several on a single CPU (the recorder's thread copies them). */
static int test_capture_crew(struct test_ctx *ctx)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (capture_crew_case(ctx, 7, 0, cpus) || capture_crew_case(ctx, 3, CPU_SETSIZE - 3, cpus) ||
	    capture_crew_case(ctx, 1, 0, cpus) || capture_crew_case(ctx, 5, 0, 1))
		return TEST_FAIL;
	return TEST_OK;
}

const struct test_suite suite_flight_capture = {
	"flight/capture", "Capture crew: more rings than CPUs, rings on CPUs that do not exist, "
	"one ring, several on one CPU",
	test_capture_crew,
};
