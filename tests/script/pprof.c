/* The pprof profile builder (script/pprof.c): samples of one stack and
 * labels added up, every part held once, and the gzipped profile.proto
 * read back with protobuf-c's own decoder. */
#include "tests/tests.h"
#include "script/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pprof/profile.pb-c.h>
#include <zlib.h>

/* fd's content (from 0), gunzipped: malloc'd, *len bytes; NULL on error. */
static unsigned char *gunzip_fd(int fd, size_t *len)
{
	size_t cap = 1 << 20, in_len;
	unsigned char *in = malloc(cap), *out = malloc(cap * 8);
	z_stream z = { 0 };
	ssize_t n;
	int rc;

	if (!in || !out || lseek(fd, 0, SEEK_SET))
		goto fail;
	n = read(fd, in, cap);
	if (n <= 0 || inflateInit2(&z, 15 + 16) != Z_OK)
		goto fail;
	in_len = n;
	z.next_in = in;
	z.avail_in = in_len;
	z.next_out = out;
	z.avail_out = cap * 8;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (rc != Z_STREAM_END)
		goto fail;
	*len = z.total_out;
	free(in);
	return out;
fail:
	free(in);
	free(out);
	return NULL;
}

static const char *str(const Perftools__Profiles__Profile *pr, s64 i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "(bad index)";
}

/* The string label key of s, NULL if it has none. */
static const char *label(const Perftools__Profiles__Profile *pr,
			 const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(pr, s->label[i]->key), key))
			return str(pr, s->label[i]->str);
	return NULL;
}

/* A profile of two columns, three samples of which two have the same
 * stack and labels. */
static struct pprof *build(void)
{
	static const u8 bid[] = { 0xab, 0x01, 0xff };
	struct pprof_mapping m = { 0x400000, 0x401000, 0x1000, "/bin/x", bid, 3 };
	struct pprof_labels l = { .pid = 0, .tid = 7, .cpu = 0, .comm = "x" };
	struct pprof *p = pprof__new();
	u64 map, f1, f2, loc[3];
	s64 one[2] = { 1, 1000 }, more[2] = { 1, 3000 };

	if (!p || pprof__add_type(p, "cpu-clock_samples", "count") != 0 ||
	    pprof__add_type(p, "cpu-clock", "nanoseconds") != 1)
		return NULL;
	pprof__set_default_type(p, 1);
	pprof__set_time(p, 1700000000000000000LL, 2000000000);
	map = pprof__mapping(p, &m);
	f1 = pprof__function(p, "leaf", "/bin/x");
	f2 = pprof__function(p, "main", "/bin/x");
	loc[0] = pprof__location(p, map, 0x400100, f1);
	loc[1] = pprof__location(p, map, 0x400200, f2);
	loc[2] = pprof__location(p, 0, 0xffffffff81000000ULL, 0);
	if (pprof__mapping(p, &m) != map || pprof__function(p, "leaf", "/bin/x") != f1 ||
	    pprof__location(p, map, 0x400100, f1) != loc[0] ||
	    pprof__add(p, loc, 2, &l, 0, one, 2) || pprof__add(p, loc, 2, &l, 0, more, 2) ||
	    pprof__add(p, loc + 1, 2, &l, 0, one, 2)) {
		pprof__delete(p);
		return NULL;
	}
	return p;
}

static int check_profile(const Perftools__Profiles__Profile *pr)
{
	const Perftools__Profiles__Sample *s;

	TEST_ASSERT(pr->n_string_table && !*pr->string_table[0], "string 0 is \"\"");
	TEST_ASSERT(pr->n_sample_type == 2 && !strcmp(str(pr, pr->sample_type[1]->type), "cpu-clock") &&
		    !strcmp(str(pr, pr->sample_type[1]->unit), "nanoseconds"), "sample types");
	TEST_ASSERT(!strcmp(str(pr, pr->default_sample_type), "cpu-clock"), "default type");
	TEST_ASSERT(pr->time_nanos == 1700000000000000000LL && pr->duration_nanos == 2000000000,
		    "time %lld duration %lld", (long long)pr->time_nanos, (long long)pr->duration_nanos);
	TEST_ASSERT(pr->n_mapping == 1 && pr->mapping[0]->memory_start == 0x400000 &&
		    pr->mapping[0]->file_offset == 0x1000 &&
		    !strcmp(str(pr, pr->mapping[0]->build_id), "ab01ff"), "mapping");
	TEST_ASSERT(pr->n_function == 2 && pr->n_location == 3, "%zu functions, %zu locations",
		    pr->n_function, pr->n_location);
	TEST_ASSERT(pr->location[2]->n_line == 0 && pr->location[0]->n_line == 1 &&
		    pr->location[0]->line[0]->function_id == 1, "lines");
	/* the two samples of one stack and labels are one, their values added */
	TEST_ASSERT(pr->n_sample == 2, "%zu samples", pr->n_sample);
	s = pr->sample[0];
	TEST_ASSERT(s->n_location_id == 2 && s->location_id[0] == 1 && s->location_id[1] == 2,
		    "stack leaf first");
	TEST_ASSERT(s->n_value == 2 && s->value[0] == 2 && s->value[1] == 4000, "values %lld %lld",
		    (long long)s->value[0], (long long)s->value[1]);
	/* a pid and a cpu of 0 are there: string labels */
	TEST_ASSERT(label(pr, s, "pid") && !strcmp(label(pr, s, "pid"), "0") &&
		    label(pr, s, "cpu") && !strcmp(label(pr, s, "cpu"), "0") &&
		    !strcmp(label(pr, s, "tid"), "7") && !strcmp(label(pr, s, "comm"), "x"), "labels");
	TEST_ASSERT(pr->sample[1]->location_id[0] == 2 && pr->sample[1]->value[1] == 1000,
		    "second sample");
	return TEST_OK;
}

static int test_pprof_roundtrip(struct test_ctx *ctx)
{
	char path[] = "/tmp/pprof-test.XXXXXX";
	struct pprof *p = build();
	Perftools__Profiles__Profile *pr;
	unsigned char *raw;
	size_t len = 0;
	int fd = mkstemp(path), rc;

	(void)ctx;
	TEST_ASSERT(p && fd >= 0, "build, mkstemp");
	unlink(path);
	TEST_ASSERT(!pprof__write(p, fd), "write");
	pprof__delete(p);
	raw = gunzip_fd(fd, &len);
	close(fd);
	TEST_ASSERT(raw, "gunzip");
	pr = perftools__profiles__profile__unpack(NULL, len, raw);
	free(raw);
	TEST_ASSERT(pr, "protobuf-c cannot decode it");
	rc = check_profile(pr);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return rc;
}

/* What the profile does not have is refused, and columns are fixed once
 * a sample is in. */
static int test_pprof_refusals(struct test_ctx *ctx)
{
	struct pprof *p = pprof__new();
	struct pprof_labels l = { .comm = "c" };
	s64 v = 1;
	u64 loc, bad = 99;

	(void)ctx;
	TEST_ASSERT(p && pprof__add_type(p, "t", "count") == 0, "new");
	loc = pprof__location(p, 0, 0x10, 0);
	TEST_ASSERT(loc == 1 && !pprof__location(p, 5, 0x10, 0), "a location of no mapping");
	TEST_ASSERT(pprof__add(p, &bad, 1, &l, 0, &v, 1) == -EINVAL, "unknown location");
	TEST_ASSERT(pprof__add(p, &loc, 1, &l, 1, &v, 1) == -EINVAL, "unknown column");
	TEST_ASSERT(!pprof__add(p, &loc, 1, &l, 0, &v, 1), "add");
	TEST_ASSERT(pprof__add_type(p, "late", "count") == -EBUSY, "column after samples");
	pprof__delete(p);
	return TEST_OK;
}

/* Samples that differ in their time label stay apart; a million samples
 * of a few stacks stay a few. */
static int test_pprof_bounded(struct test_ctx *ctx)
{
	struct pprof *p = pprof__new();
	struct pprof_labels l = { .pid = 1, .tid = 1, .comm = "c" };
	u64 loc[4], samples, stacks, locs;
	s64 v = 1;

	(void)ctx;
	TEST_ASSERT(p && pprof__add_type(p, "t", "count") == 0, "new");
	for (int i = 0; i < 4; i++)
		loc[i] = pprof__location(p, 0, 0x100 + i, 0);
	for (int i = 0; i < 1000000; i++)
		TEST_ASSERT(!pprof__add(p, loc + i % 3, 2, &l, 0, &v, 1), "add %d", i);
	pprof__counts(p, &samples, &stacks, &locs);
	TEST_ASSERT(samples == 3 && stacks == 3 && locs == 4, "%llu samples, %llu stacks",
		    (unsigned long long)samples, (unsigned long long)stacks);
	l.has_time = 1;
	l.time = 5;
	TEST_ASSERT(!pprof__add(p, loc, 2, &l, 0, &v, 1), "add timed");
	pprof__counts(p, &samples, &stacks, &locs);
	TEST_ASSERT(samples == 4 && stacks == 3, "a time label is a sample of its own");
	pprof__delete(p);
	return TEST_OK;
}

TEST_SUITE(suite_script_pprof, "script/pprof", "pprof profiles: aggregation and encoding",
	   test_pprof_roundtrip, test_pprof_refusals, test_pprof_bounded);
