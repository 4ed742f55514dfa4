/* A dump (flight/dump.c) of a compressed history: chunks whose last record
 * is older than the one before, and a dump readied ahead. */
#include "tests/tests.h"
#include "flight/dump.h"
#include "util/evlist.h"
#include "flight/history.h"
#include "util/parse-events.h"
#include "perfdata/reader.h"
#include "flight/tracking.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DUMP_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A dump of a history of two slots, per_slot records each, every fourth
 * older than the two before it (as a CPU's records can be: an interrupt
 * between a sample's time and its place in the ring writes a later one
 * first), into a file of a temporary directory. */
struct history_dump {
	struct evlist *evlist;
	struct history *h;
	struct tracking trk;
	struct dump *d;
	char dir[32], path[64];
};

enum { HD_RINGS = 2 };

static void history_dump__delete(struct history_dump *hd)
{
	if (hd->d) {
		history__release(hd->h, &hd->d->take);
		if (hd->d->placed[0])
			unlink(hd->d->placed);
	}
	if (hd->dir[0])
		rmdir(hd->dir);
	dump__delete(hd->d);
	history__delete(hd->h);
	tracking__exit(&hd->trk);
	evlist__delete(hd->evlist);
}

/* 0, or -1 after a FAILED line and history_dump__delete(). */
static int history_dump__new(struct history_dump *hd, u64 per_slot)
{
	struct dump_opts opts = { .last = 1, .history_slots = HD_RINGS };
	u64 rec[16] = { 0 };	/* 128 bytes: a 512K chunk ends on record 4095, an older one */
	struct perf_event_header *h = (void *)rec;
	char err[256];
	int added;

	memset(hd, 0, sizeof(*hd));
	strcpy(hd->dir, "/tmp/perf-history-dump.XXXXXX");
	tracking__init(&hd->trk, 0, DUMP_ST);
	hd->evlist = evlist__new();
	hd->h = history__new(HD_RINGS, 8 << 20, 1);
	if (!mkdtemp(hd->dir))
		hd->dir[0] = 0;
	if (!hd->dir[0] || !hd->evlist || !hd->h ||
	    parse_events(hd->evlist, "cpu-clock", err, sizeof(err)) ||
	    !(hd->d = dump__new(hd->evlist, DUMP_ST, &opts))) {
		fprintf(stderr, "  FAILED: history dump set-up: %s\n", strerror(errno));
		history_dump__delete(hd);
		return -1;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(rec);
	for (u64 k = 0; k < per_slot; k++)
		for (int s = 0; s < HD_RINGS; s++) {
			u64 t = 1000000 + 30000 * k - (k % 4 == 3 ? 75000 : 0) + s;
			u32 pid = 1000 + s;

			memcpy((char *)rec + SAMPLE_TIME_OFFSET, &t, sizeof(t));
			memcpy((char *)rec + SAMPLE_PID_OFFSET, &pid, sizeof(pid));
			rec[5] = s;
			while ((added = history__add(hd->h, s, h, t)) == -EAGAIN)
				;
			if (added) {
				fprintf(stderr, "  FAILED: history add: %s\n", strerror(-added));
				history_dump__delete(hd);
				return -1;
			}
		}
	snprintf(hd->path, sizeof(hd->path), "%s/h.data", hd->dir);
	return 0;
}

/* Captures, takes the history and writes the file: 0 or -1 with a FAILED
 * line. A dump that goes round for ever is ended by SIGALRM. */
static int history_dump__run(struct history_dump *hd)
{
	struct header_info info = { .evlist = hd->evlist };
	struct buf pending = { 0 };
	int err;

	alarm(20);
	err = dump__capture(hd->d, &hd->trk, &pending, hd->path, 0, &info, now_ns()) ||
	      history__take(hd->h, &hd->d->take) || dump__write(hd->d);
	alarm(0);
	if (err)
		fprintf(stderr, "  FAILED: dump: %s\n", hd->d->errbuf);
	return err ? -1 : 0;
}

/* A dump of a history whose every chunk ends on a record older than the
 * one before it merges every record, once, and ends. The merge's rounds
 * stop at the time the history has been read to; a binary search up to
 * it found nothing to merge, and the dump went round for ever. */
static int test_history_unordered(struct test_ctx *ctx)
{
	enum { PER_SLOT = 20000 };
	struct history_dump hd;
	int ret = TEST_FAIL;

	if (history_dump__new(&hd, PER_SLOT))
		return TEST_FAIL;
	if (history_dump__run(&hd))
		goto out;
	if (hd.h->st.dropped_records || hd.d->st.samples != (u64)HD_RINGS * PER_SLOT) {
		fprintf(stderr, "  FAILED: %llu of %d samples dumped (%llu dropped)\n",
			(unsigned long long)hd.d->st.samples, HD_RINGS * PER_SLOT,
			(unsigned long long)hd.h->st.dropped_records);
		goto out;
	}
	TEST_LOG(ctx, "  unordered chunk ends: %llu samples dumped\n",
		 (unsigned long long)hd.d->st.samples);
	ret = TEST_OK;
out:
	history_dump__delete(&hd);
	return ret;
}

/* A dump readied as the writer thread readies the next one
 * (dump__ready_next()) takes the features made then: a TOTAL_MEM planted
 * in them is what its file says. */
static int test_dump_features_ahead(struct test_ctx *ctx)
{
	const u64 planted = 0x5eed5eedULL;
	struct history_dump hd;
	struct perf_reader r;
	const void *mem;
	u64 size;
	char err[256];
	int ret = TEST_FAIL;

	if (history_dump__new(&hd, 100))
		return TEST_FAIL;
	dump__ready_next(hd.d, hd.path);
	if (!hd.d->feats_ready) {
		fprintf(stderr, "  FAILED: the features ahead not made: %s\n", strerror(ENOMEM));
		goto out;
	}
	hd.d->feats_ahead.body[HEADER_TOTAL_MEM].len = 0;
	buf__u64(&hd.d->feats_ahead.body[HEADER_TOTAL_MEM], planted);
	if (history_dump__run(&hd))
		goto out;
	if (reader__open(&r, hd.d->placed, err, sizeof(err))) {
		fprintf(stderr, "  FAILED: %s: %s\n", hd.d->placed, err);
		goto out;
	}
	if (!(mem = reader__feature(&r, HEADER_TOTAL_MEM, &size)) || size != sizeof(u64) ||
	    memcmp(mem, &planted, sizeof(planted)))
		fprintf(stderr, "  FAILED: the dump's TOTAL_MEM is not the one made ahead\n");
	else
		ret = TEST_OK;
	reader__close(&r);
	if (!ret)
		TEST_LOG(ctx, "  a dump readied ahead: its file has the features made then\n");
out:
	history_dump__delete(&hd);
	return ret;
}

TEST_SUITE(suite_flight_dump, "flight/dump",
	   "Dump of a history: chunks whose last record is older than the one before merge once "
	   "and end; a dump readied ahead takes the features made then",
	   test_history_unordered, test_dump_features_ahead);
