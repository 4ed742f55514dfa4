/* The record index (flight/record-index.c) of a buffer holding more
 * records than its arrays foresaw, read newest first and oldest first. */
#include "tests/tests.h"
#include "tests/hand-records.h"
#include "util/event.h"
#include "flight/record-index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of a buffer holding more records than its arrays foresaw:
 * they grow, and records read newest first come out oldest first, every
 * one once, with its time and offset, as records read oldest first do;
 * a LOST record's time comes from its id trailer. */
static int test_index_grows(struct test_ctx *ctx)
{
	enum { NR = 1000 };
	const size_t rec = 56;	/* IDENTIFIER, IP, TID, TIME, CPU */
	char *buf = calloc(NR, rec);
	int ret = TEST_FAIL;

	(void)ctx;
	TEST_ASSERT(buf, "alloc");
	/* newest first: record i holds time NR - i, a LOST (time in its
	 * trailer) every 100th */
	for (u64 i = 0; i < NR; i++) {
		char *r = buf + i * rec;
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = rec };
		u64 t = NR - i;

		if (i % 100 == 7) {
			h.type = PERF_RECORD_LOST;	/* id, lost, then TID, TIME, CPU, IDENTIFIER */
			memcpy(r + 8 + 16 + 8, &t, 8);
		} else {
			memcpy(r + sample__time_offset(ST), &t, 8);
		}
		memcpy(r, &h, sizeof(h));
	}
	for (int from_top = 1; from_top >= 0; from_top--) {
		struct record_index ix;

		TEST_ASSERT(!record_index__init(&ix, 8, 3 * 64 + 8), "index of 8");
		if (record_index__build(&ix, buf, 0, (u64)NR * rec, UINT64_MAX, ST,
					from_top ? INDEX_NEWEST_FIRST | INDEX_TASKS : 0) ||
		    ix.nr != NR || ix.cap < NR) {
			fprintf(stderr, "  FAILED: %s: %llu of %d records indexed\n",
				from_top ? "newest first" : "oldest first", (unsigned long long)ix.nr, NR);
			record_index__exit(&ix);
			goto out;
		}
		for (u64 k = 0; k < NR; k++) {
			u64 i = from_top ? NR - 1 - k : k;

			if (ix.offs[k] != i * rec || ix.times[k] != NR - i) {
				fprintf(stderr, "  FAILED: %s: entry %llu: offset %u time %llu, not "
					"%llu and %llu\n", from_top ? "newest first" : "oldest first",
					(unsigned long long)k, ix.offs[k],
					(unsigned long long)ix.times[k], (unsigned long long)(i * rec),
					(unsigned long long)(NR - i));
				record_index__exit(&ix);
				goto out;
			}
		}
		if (from_top && (ix.samples != NR - NR / 100 || ix.lost_records != NR / 100)) {
			fprintf(stderr, "  FAILED: %llu samples, %llu LOST counted\n",
				(unsigned long long)ix.samples, (unsigned long long)ix.lost_records);
			record_index__exit(&ix);
			goto out;
		}
		record_index__exit(&ix);
	}
	ret = TEST_OK;
out:
	free(buf);
	return ret;
}

const struct test_suite suite_flight_record_index = {
	"flight/record-index", "Record index: arrays that grow, newest first and oldest first, "
	"a LOST record's time from its trailer",
	test_index_grows,
};
