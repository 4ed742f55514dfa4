/* The feature sections (perfdata/header.c): those made ahead for a dump
 * are the ones made at once, and a dump takes them as they were made. */
#include "tests/tests.h"
#include "util/evlist.h"
#include "perfdata/header.h"

#include <stdio.h>
#include <string.h>

/* The feature section of info, built at once or with what ahead holds. */
static int features_of(struct buf *out, u64 bits[4], const struct header_info *info)
{
	out->len = 0;
	memset(bits, 0, 4 * sizeof(u64));
	return header__build_features(out, 4096, bits, info);
}

/* Features made ahead (a dump's, between dumps) are the ones made at
 * once, byte for byte; the dump takes them as they were made, and leaves
 * out one the machine could not give then. */
static int check_features_ahead(struct evlist *l, struct test_ctx *ctx)
{
	struct header_info info = { .evlist = l, .first_sample_time = 10,
				    .last_sample_time = 30 };
	struct header_ahead ahead = { 0 };
	struct buf now = { 0 }, made = { 0 };
	u64 bits_now[4], bits_made[4], mem = 0x123456789ULL, seen = 0;
	struct perf_file_section sec;
	int n = 0, err, ret = TEST_FAIL;

	if ((err = features_of(&now, bits_now, &info)) ||
	    (err = header_ahead__make(&ahead, &info))) {
		fprintf(stderr, "  FAILED: features ahead: building them: %s\n", strerror(-err));
		goto out;
	}
	if (!feature__isset(ahead.tried, HEADER_CPU_TOPOLOGY) ||
	    !feature__isset(ahead.tried, HEADER_TOTAL_MEM) ||
	    feature__isset(ahead.tried, HEADER_SAMPLE_TIME) ||
	    feature__isset(ahead.tried, HEADER_EVENT_DESC)) {
		fprintf(stderr, "  FAILED: features ahead: not the machine's\n");
		goto out;
	}
	info.ahead = &ahead;
	if (features_of(&made, bits_made, &info) || memcmp(bits_now, bits_made, sizeof(bits_now)) ||
	    now.len != made.len) {
		fprintf(stderr, "  FAILED: features ahead: %zu bytes, %zu at once\n", made.len,
			now.len);
		goto out;
	}
	/* section by section; NUMA_TOPOLOGY holds each node's free memory,
	 * which moves between two readings: its size only */
	for (int f = 0, k = 0; f < HEADER_FEAT_BITS; f++) {
		struct perf_file_section a, b;

		if (!feature__isset(bits_now, f))
			continue;
		memcpy(&a, now.p + k * sizeof(a), sizeof(a));
		memcpy(&b, made.p + k++ * sizeof(b), sizeof(b));
		if (a.offset != b.offset || a.size != b.size ||
		    (f != HEADER_NUMA_TOPOLOGY &&
		     memcmp(now.p + a.offset - 4096, made.p + b.offset - 4096, a.size))) {
			fprintf(stderr, "  FAILED: features ahead: feature %d not the one made at "
				"once\n", f);
			goto out;
		}
	}
	/* taken as made: a dump reads no sysfs */
	ahead.body[HEADER_TOTAL_MEM].len = 0;
	buf__u64(&ahead.body[HEADER_TOTAL_MEM], mem);
	if (features_of(&made, bits_made, &info))
		goto out;
	for (int f = 0; f < HEADER_TOTAL_MEM; f++)
		n += feature__isset(bits_made, f);
	memcpy(&sec, made.p + n * sizeof(sec), sizeof(sec));
	if (sec.size == sizeof(seen) && sec.offset >= 4096)
		memcpy(&seen, made.p + sec.offset - 4096, sizeof(seen));
	if (seen != mem) {
		fprintf(stderr, "  FAILED: features ahead: TOTAL_MEM %#llx, made ahead as %#llx\n",
			(unsigned long long)seen, (unsigned long long)mem);
		goto out;
	}
	/* not given by the machine when made: left out */
	ahead.made[HEADER_CACHE / 64] &= ~(1ULL << (HEADER_CACHE % 64));
	if (features_of(&made, bits_made, &info) || !feature__isset(bits_now, HEADER_CACHE) ||
	    feature__isset(bits_made, HEADER_CACHE)) {
		fprintf(stderr, "  FAILED: features ahead: a CACHE the machine did not give written\n");
		goto out;
	}
	TEST_LOG(ctx, "  features made ahead: %zu bytes, the same as made at once\n", now.len);
	ret = TEST_OK;
out:
	buf__release(&now);
	buf__release(&made);
	header_ahead__release(&ahead);
	return ret;
}

static int test_header(struct test_ctx *ctx)
{
	struct evlist *l = fake_evlist();
	int ret;

	TEST_ASSERT(l, "fake evlist");
	ret = check_features_ahead(l, ctx);
	evlist__delete(l);
	return ret;
}

const struct test_suite suite_perfdata_header = {
	"perfdata/header", "Header features made ahead: the ones made at once, byte for byte, "
	"taken as made, one the machine did not give left out",
	test_header,
};
