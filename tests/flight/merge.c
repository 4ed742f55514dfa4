/* The time merge of a dump (flight/merge.c) on hand-made streams: ties,
 * windows, many streams, slices of every shape and slices that overflow. */
#include "tests/tests.h"
#include "tests/hand-records.h"
#include "util/event.h"
#include "flight/merge.h"

#include <stdlib.h>
#include <string.h>

static int test_merge(struct test_ctx *ctx)
{
	/* three sorted streams with ties across them */
	static const u64 times[3][4] = { { 10, 20, 20, 40 }, { 5, 20, 30, 0 }, { 20, 25, 0, 0 } };
	static const int lens[3] = { 4, 3, 2 };
	static const int want[][2] = { { 1, 0 }, { 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 1 },
				       { 2, 0 }, { 2, 1 }, { 1, 2 }, { 0, 3 } };
	struct buf b[3] = { 0 };
	u32 offs[3][4];
	struct merge m = { 0 };
	const struct perf_event_header *h;
	struct timed_ref refs[6], scratch[6];
	u64 t, n;
	int k = 0;

	(void)ctx;
	TEST_ASSERT(!merge__reserve(&m, 3), "reserve");
	for (int s = 0; s < 3; s++) {
		n = 0;
		for (int i = 0; i < lens[s]; i++)
			put_sample(&b[s], offs[s], &n, times[s][i], s * 100 + i);
	}
	for (int s = 0; s < 3; s++)
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s]
		};
	m.nr_streams = 3;
	merge__start(&m, 0);
	while ((h = merge__next(&m, &t))) {
		u32 pid;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		TEST_ASSERT(k < 9 && pid == (u32)(want[k][0] * 100 + want[k][1]),
			    "record %d: stream %u #%u, want %d #%d", k, pid / 100, pid % 100,
			    want[k][0], want[k][1]);
		k++;
	}
	TEST_ASSERT(k == 9, "%d records merged", k);
	/* a window leaves out the older samples of the trimmed streams only */
	m.streams[1].trim = m.streams[2].trim = 1;
	merge__start(&m, 21);
	for (k = 0; merge__next(&m, &t); k++)
		;
	TEST_ASSERT(k == 6 && m.trimmed == 3, "window: %d kept, %llu trimmed", k,
		    (unsigned long long)m.trimmed);
	merge__exit(&m);
	for (int s = 0; s < 3; s++)
		buf__release(&b[s]);

	/* the log sort: by time, ties in log order */
	static const u64 lt[6] = { 30, 10, 20, 10, 0, 20 };

	for (u32 i = 0; i < 6; i++)
		refs[i] = (struct timed_ref){ lt[i], i };
	merge__sort_refs(refs, scratch, 6);
	TEST_ASSERT(refs[0].off == 4 && refs[1].off == 1 && refs[2].off == 3 &&
		    refs[3].off == 2 && refs[4].off == 5 && refs[5].off == 0,
		    "time order, ties in log order");
	return TEST_OK;
}

/* Many streams, a count that is not a power of two, empty streams, ties
 * everywhere and a record at the largest time: the merge gives what a stable
 * sort by (time, stream) gives. */
static int test_merge_many(struct test_ctx *ctx)
{
	enum { NR = 37, MAX_LEN = 40 };
	struct buf b[NR] = { 0 };
	u64 times[NR][MAX_LEN], t, n, seed = 12345;
	u32 offs[NR][MAX_LEN], lens[NR], next_pos[NR] = { 0 }, total = 0, k = 0, last_stream = 0;
	u64 last_time = 0;
	struct merge m = { 0 };
	const struct perf_event_header *h;
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < NR; s++) {
		u64 now = 0;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		lens[s] = s % 9 == 4 ? 0 : (seed >> 33) % MAX_LEN;
		n = 0;
		for (u32 i = 0; i < lens[s]; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			now += (seed >> 33) % 3;	/* many equal times */
			times[s][i] = s == 7 && i == lens[s] - 1 ? UINT64_MAX : now;
			put_sample(&b[s], offs[s], &n, times[s][i], s * 100 + i);
		}
		total += lens[s];
	}
	/* reserve grows what an earlier reserve made */
	if (merge__reserve(&m, 2) || merge__reserve(&m, NR)) {
		fprintf(stderr, "  FAILED merge_many: reserve\n");
		goto out;
	}
	for (int s = 0; s < NR; s++)
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s]
		};
	m.nr_streams = NR;
	merge__start(&m, 0);
	while ((h = merge__next(&m, &t))) {
		u32 pid, stream, pos;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		stream = pid / 100;
		pos = pid % 100;
		if (stream >= NR || pos != next_pos[stream]++ || t != times[stream][pos] ||
		    t < last_time ||
		    (k && t == last_time && stream < last_stream)) {
			fprintf(stderr, "  FAILED merge_many: record %u: stream %u #%u at %llu "
				"after stream %u at %llu\n",
				k, stream, pos, (unsigned long long)t, last_stream,
				(unsigned long long)last_time);
			goto out;
		}
		last_time = t;
		last_stream = stream;
		k++;
	}
	if (k != total) {
		fprintf(stderr, "  FAILED merge_many: %u of %u records merged\n", k, total);
		goto out;
	}
	ret = TEST_OK;
out:
	merge__exit(&m);
	for (int s = 0; s < NR; s++)
		buf__release(&b[s]);
	return ret;
}

enum { MERGE_CHECK_MAX = 8 };

/* Merges nr streams of the given times (samples below window trimmed in
 * the streams trim names) and checks that every record not trimmed comes
 * out once, that the trimmed ones are counted, and that the streams not
 * named loose (those in time order) come out in (time, stream, position)
 * order. TEST_OK, or TEST_FAIL with a line saying why. */
static int merge_check(const char *what, int nr, u64 *const *times, const u32 *lens,
		       const int *trim, const int *loose, u64 window)
{
	struct buf b[MERGE_CHECK_MAX] = { 0 };
	u32 *offs[MERGE_CHECK_MAX] = { 0 }, next_pos[MERGE_CHECK_MAX] = { 0 }, last_stream = 0;
	u64 t, n, k = 0, want = 0, trimmed = 0, last_time = 0;
	u8 *seen[MERGE_CHECK_MAX] = { 0 };
	struct merge m = { 0 };
	const struct perf_event_header *h;
	const char *why = "set-up";
	int ret = TEST_FAIL;

	if (nr > MERGE_CHECK_MAX)
		goto out;
	for (int s = 0; s < nr; s++) {
		offs[s] = calloc(lens[s] + 1, sizeof(u32));
		seen[s] = calloc(lens[s] + 1, 1);
		if (!offs[s] || !seen[s])
			goto out;
		n = 0;
		for (u32 i = 0; i < lens[s]; i++) {
			put_sample(&b[s], offs[s], &n, times[s][i], s * 1000000 + i);
			if (trim[s] && times[s][i] < window)
				trimmed++;
			else
				want++;
		}
		if (b[s].err)
			goto out;
	}
	if (merge__reserve(&m, nr))
		goto out;
	for (int s = 0; s < nr; s++) {
		m.streams[s] = (struct merge_stream){
			.base = b[s].p, .offs = offs[s], .times = times[s], .nr = lens[s],
			.trim = trim[s],
		};
		while (trim[s] && next_pos[s] < lens[s] && times[s][next_pos[s]] < window)
			next_pos[s]++;
	}
	m.nr_streams = nr;
	merge__start(&m, window);
	why = NULL;
	while ((h = merge__next(&m, &t))) {
		u32 pid, stream, pos;

		memcpy(&pid, (const char *)h + SAMPLE_PID_OFFSET, 4);
		stream = pid / 1000000;
		pos = pid % 1000000;
		if (stream >= (u32)nr || pos >= lens[stream])
			why = "not a record";
		else if (seen[stream][pos])
			why = "twice";
		else if (t != times[stream][pos])
			why = "wrong time";
		else if (trim[stream] && t < window)
			why = "trimmed";
		else if (!loose[stream] && (pos != next_pos[stream] || t < last_time ||
					    (t == last_time && stream < last_stream)))
			why = "out of order";
		if (why) {
			fprintf(stderr, "  FAILED merge %s: record %llu: stream %u #%u at %llu, after "
				"stream %u at %llu: %s\n", what, (unsigned long long)k, stream, pos,
				(unsigned long long)t, last_stream, (unsigned long long)last_time,
				why);
			goto out;
		}
		seen[stream][pos] = 1;
		k++;
		if (loose[stream])
			continue;
		next_pos[stream] = pos + 1;
		last_time = t;
		last_stream = stream;
	}
	if (k != want || m.trimmed != trimmed) {
		fprintf(stderr, "  FAILED merge %s: %llu of %llu records, %llu of %llu trimmed\n",
			what, (unsigned long long)k, (unsigned long long)want,
			(unsigned long long)m.trimmed, (unsigned long long)trimmed);
		goto out;
	}
	ret = TEST_OK;
out:
	if (why && !strcmp(why, "set-up"))
		fprintf(stderr, "  FAILED merge %s: set-up\n", what);
	merge__exit(&m);
	for (int s = 0; s < nr && s < MERGE_CHECK_MAX; s++) {
		buf__release(&b[s]);
		free(offs[s]);
		free(seen[s]);
	}
	return ret;
}

/* Slices of every shape: one time held by more records than a slice has
 * room for, a dense stream trimmed to a window, a stream a little out of
 * order, times far apart up to the largest, an empty stream, and two
 * streams of bursts far apart, the second 1 ns ahead of the first (its
 * records gathered after the first's and sorted before them, a few or
 * many in a bucket). */
static int test_merge_slices(struct test_ctx *ctx)
{
	enum { NR = 7, SAME = 30000, DENSE = 20000, SHUFFLED = 9000, FAR = 201, BURSTS = 20000 };
	static const u32 lens[NR] = { SAME, DENSE, SHUFFLED, FAR, BURSTS, 0, BURSTS };
	static const int trim[NR] = { [1] = 1 }, loose[NR] = { [2] = 1 };
	u64 *times[NR] = { 0 }, seed = 42, burst = 100000, t;
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < NR; s++) {
		if (!(times[s] = calloc(lens[s] + 1, sizeof(u64))))
			goto out;
		for (u32 i = 0; i < lens[s]; i++) {
			switch (s) {
			case 0: t = 1000; break;
			case 1: t = 1000 + i; break;
			/* every tenth record swapped with the one before */
			case 2: t = 500 + 3 * (i % 10 == 9 ? i - 1 : i % 10 == 8 ? i + 1 : i); break;
			case 3: t = i < 100 ? i : i < 200 ? (1ULL << 62) + i : UINT64_MAX; break;
			case 4:
				/* 40 records 0-2 ns apart, then 10 up to 200 us apart */
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				burst += i % 50 < 40 ? (seed >> 33) % 3 : (seed >> 33) % 200000;
				t = burst;
				break;
			default: t = times[4][i] - 1; break;
			}
			times[s][i] = t;
		}
	}
	ret = merge_check("slices", NR, times, lens, trim, loose, 5000);
out:
	for (int s = 0; s < NR; s++)
		free(times[s]);
	return ret;
}

/* Slices that overflow: one time that fills a slice but is not the
 * earliest at a cursor (a later stream holds earlier records, which must
 * not come after it), at 1000 and at UINT64_MAX, and a slice undone after an earlier stream gave it
 * records and trimmed samples (every cursor and the count go back). */
static int test_merge_overflow(struct test_ctx *ctx)
{
	enum { SAME = 8193, DENSE = 20000, SPREAD = 20001 };
	u64 *t[3] = { 0 };
	int ret = TEST_FAIL;

	(void)ctx;
	for (int s = 0; s < 3; s++)
		if (!(t[s] = calloc(SPREAD, sizeof(u64))))
			goto out;
	/* stream 0: 8193 records at 1000; stream 1: at 0 and 501 */
	for (u32 i = 0; i < SAME; i++)
		t[0][i] = 1000;
	t[1][0] = 0;
	t[1][1] = 501;
	if (merge_check("one time", 2, t, (const u32[]){ SAME, 2 }, (const int[]){ 0, 0 },
			(const int[]){ 0, 0 }, 0))
		goto out;
	/* the same at the largest time, where a slice's end is clamped to it */
	for (u32 i = 0; i < SAME; i++)
		t[0][i] = UINT64_MAX;
	t[1][0] = (1ULL << 63) + 10;
	t[1][1] = (1ULL << 63) + 20;
	if (merge_check("the largest time", 2, t, (const u32[]){ SAME, 2 },
			(const int[]){ 0, 0 }, (const int[]){ 0, 0 }, 0))
		goto out;
	/* stream 0: one a ns, its first 100 trimmed; stream 1: a burst of
	 * 9000 in 9 ns, then one every 10 ns, so that the first slices, as
	 * wide as the density of its middle half says, overflow in stream 1
	 * after stream 0 gave them records and trimmed samples */
	for (u32 i = 0; i < SPREAD; i++)
		t[0][i] = i;
	for (u32 i = 0; i < DENSE; i++)
		t[1][i] = i < 9000 ? i / 1000 : 10 + 10 * (u64)(i - 9000);
	if (merge_check("undone", 2, t, (const u32[]){ SPREAD, DENSE }, (const int[]){ 1, 0 },
			(const int[]){ 0, 0 }, 100))
		goto out;
	ret = TEST_OK;
out:
	for (int s = 0; s < 3; s++)
		free(t[s]);
	return ret;
}

TEST_SUITE(suite_flight_merge, "flight/merge",
	   "Time merge: ties across streams, a window, the log sort, many streams, slices of "
	   "every shape, slices that overflow",
	   test_merge, test_merge_many, test_merge_slices, test_merge_overflow);
