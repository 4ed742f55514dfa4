/* The DSO hit model (buildid/dso-hits.c) on synthetic records: maps,
 * forks, execs, samples, records split across iovecs, and the BUILD_ID
 * feature it writes. */
#include "tests/tests.h"
#include "buildid/dso-hits.h"
#include "util/evlist.h"
#include "perfdata/header.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void put_mmap2(struct buf *b, u32 pid, u64 addr, u64 len, const char *name, u8 bid0,
		      u32 prot)
{
	size_t at = event__begin(b, PERF_RECORD_MMAP2,
				 PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	u8 bid[BUILD_ID_SIZE];

	memset(bid, bid0, sizeof(bid));
	buf__u32(b, pid);
	buf__u32(b, pid);
	buf__u64(b, addr);
	buf__u64(b, len);
	buf__u64(b, 0);
	buf__u8(b, BUILD_ID_SIZE);
	buf__zero(b, 3);
	buf__add(b, bid, sizeof(bid));
	buf__u32(b, prot);
	buf__u32(b, MAP_PRIVATE);
	buf__str0(b, name);
	buf__zero(b, ALIGN_UP(b->len - at, 8) - (b->len - at));
	((struct perf_event_header *)(b->p + at))->size = b->len - at;
}

static void put_task(struct buf *b, u32 type, u16 misc, u32 pid, u32 ppid)
{
	size_t at = event__begin(b, type, misc);

	buf__u32(b, pid);
	buf__u32(b, type == PERF_RECORD_COMM ? pid : ppid);
	if (type == PERF_RECORD_COMM) {
		buf__add(b, "x\0\0\0\0\0\0\0", 8);
	} else {
		buf__u32(b, pid);
		buf__u32(b, ppid);
		buf__u64(b, 0);
	}
	((struct perf_event_header *)(b->p + at))->size = b->len - at;
}

/* fake_evlist()'s layout: IDENTIFIER, IP, TID, TIME, CPU, PERIOD */
static void put_sample(struct buf *b, u16 mode, u64 ip, u32 pid)
{
	size_t at = event__begin(b, PERF_RECORD_SAMPLE, mode);

	buf__u64(b, 100);
	buf__u64(b, ip);
	buf__u32(b, pid);
	buf__u32(b, pid);
	buf__u64(b, 1);
	buf__u64(b, 0);
	buf__u64(b, 1000);
	((struct perf_event_header *)(b->p + at))->size = b->len - at;
}

static const struct hit_dso *find(const struct dso_hits *s, const char *name)
{
	for (int i = 0; i < s->nr; i++)
		if (!strcmp(s->d[i].name, name))
			return &s->d[i];
	return NULL;
}

/* The names the feature body lists, space-separated, in order. */
static void feature_names(const struct buf *f, char *out, size_t sz)
{
	out[0] = '\0';
	for (size_t off = 0; off + 36 <= f->len; ) {
		const struct perf_event_header *h = (const void *)(f->p + off);

		snprintf(out + strlen(out), sz - strlen(out), "%s%s", *out ? " " : "", f->p + off + 36);
		off += h->size;
	}
}

static int feed_split(struct dso_hits *s, const struct buf *b, size_t cut)
{
	struct iovec iov[2] = { { b->p, cut }, { b->p + cut, b->len - cut } };

	dso_hits__feed(s, iov, 2);
	return 0;
}

/* One task with 300 binaries mapped in no order, then a map over two and
 * a half of them: every lookup finds the map that holds the ip now. */
static int many_maps(struct test_ctx *ctx, struct evlist *l)
{
	enum { NR = 300, BASE = 0x10000000, STEP = 0x10000, LEN = 0x8000 };
	struct dso_hits *s = dso_hits__new(l, 0);
	struct buf b = { 0 };
	char name[32];
	size_t at;

	TEST_ASSERT(s, "dso_hits__new");
	for (int i = 0; i < NR; i++) {
		int n = (i * 7919) % NR;	/* 7919 is prime: each n once */

		snprintf(name, sizeof(name), "/lib/lib%d.so", n);
		put_mmap2(&b, 20, BASE + (u64)n * STEP, LEN, name, n & 0xff, PROT_READ | PROT_EXEC);
	}
	/* over lib10's upper half, all of lib11, lib12's lower half */
	put_mmap2(&b, 20, BASE + 10 * STEP + LEN / 2, 2 * STEP, "/lib/big.so", 0x33,
		  PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 0x10, 20);			/* lib0 */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 299 * STEP + LEN - 1, 20);	/* lib299 */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 150 * STEP + 0x100, 20);	/* lib150 */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 10 * STEP + 0x100, 20);	/* lib10's rest */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 11 * STEP + 0x100, 20);	/* big */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 12 * STEP + LEN - 1, 20);	/* lib12's rest */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + 13 * STEP + LEN, 20);	/* a gap */
	/* lib1 replaced at its address between two samples of one ip: the
	 * second hits the new file */
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + STEP + 0x10, 20);
	put_mmap2(&b, 20, BASE + STEP, LEN, "/lib/new1.so", 0x44, PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, BASE + STEP + 0x10, 20);
	at = event__begin(&b, PERF_RECORD_FINISHED_ROUND, 0);
	((struct perf_event_header *)(b.p + at))->size = sizeof(struct perf_event_header);
	feed_split(s, &b, 8);
	TEST_ASSERT(s->err == 0, "err %d", s->err);
	for (int n = 0; n < NR; n++) {
		int want = n == 0 || n == 299 || n == 150 || n == 10 || n == 12 || n == 1;

		snprintf(name, sizeof(name), "/lib/lib%d.so", n);
		TEST_ASSERT(find(s, name) && find(s, name)->hit == want, "%s: hit %d, want %d", name,
			    find(s, name) ? find(s, name)->hit : -1, want);
	}
	/* two tasks in one slot of the recent hits (pids 16 apart), the
	 * same address in each: each sample is its own task's */
	b.len = 0;
	put_mmap2(&b, 40, 0x900000, 0x1000, "/lib/forty.so", 0x40, PROT_READ | PROT_EXEC);
	put_mmap2(&b, 56, 0x900000, 0x1000, "/lib/fiftysix.so", 0x56, PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x900010, 40);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x900010, 40);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x900010, 56);
	feed_split(s, &b, 8);
	TEST_ASSERT(find(s, "/lib/forty.so") && find(s, "/lib/forty.so")->hit &&
		    find(s, "/lib/fiftysix.so") && find(s, "/lib/fiftysix.so")->hit,
		    "two tasks, one address, one slot of the recent hits");
	TEST_ASSERT(find(s, "/lib/big.so") && find(s, "/lib/big.so")->hit, "the map over three");
	TEST_ASSERT(find(s, "/lib/new1.so") && find(s, "/lib/new1.so")->hit,
		    "an ip sampled again after its map was replaced");
	TEST_ASSERT(s->unresolved == 1, "unresolved %llu", (unsigned long long)s->unresolved);
	TEST_LOG(ctx, "  %d maps of one task, one over three of them: each sample's own\n", NR + 1);
	buf__release(&b);
	dso_hits__delete(s);
	return TEST_OK;
}

/* Two events whose ids share a slot of the id cache (64 apart), the
 * second without IP: its samples are read with its own layout, never with
 * the other's that the slot held. Read with the first one's, a sample of
 * the second would hit /lib/trap.so: its pid/tid words would be taken for
 * the ip (0xa0000000a), its time for the pid (10). */
static int ids_one_slot(struct evlist *l)
{
	struct evsel *second = l->entries[1];
	u64 saved_id = second->id[0], saved_type = second->attr.sample_type;
	struct dso_hits *s;
	struct buf b = { 0 };
	size_t at;
	int ok;

	second->id[0] = l->entries[0]->id[0] + 64;
	second->attr.sample_type &= ~(u64)PERF_SAMPLE_IP;
	s = dso_hits__new(l, 0);
	second->id[0] = saved_id;
	second->attr.sample_type = saved_type;
	if (!s)
		return TEST_FAIL;
	put_mmap2(&b, 10, 0xa00000000ULL, 0x1000, "/lib/trap.so", 0x71, PROT_READ | PROT_EXEC);
	put_mmap2(&b, 10, 0x400000, 0x1000, "/bin/app", 0x72, PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x400010, 10);	/* the first event's */
	/* the second's: IDENTIFIER, TID, TIME, CPU, PERIOD */
	at = event__begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	buf__u64(&b, l->entries[0]->id[0] + 64);
	buf__u32(&b, 10);
	buf__u32(&b, 10);
	buf__u64(&b, 10);
	buf__u64(&b, 0);
	buf__u64(&b, 1000);
	((struct perf_event_header *)(b.p + at))->size = b.len - at;
	feed_split(s, &b, 8);
	ok = s->err == 0 && find(s, "/bin/app") && find(s, "/bin/app")->hit &&
	     find(s, "/lib/trap.so") && !find(s, "/lib/trap.so")->hit;
	buf__release(&b);
	dso_hits__delete(s);
	return ok ? TEST_OK : TEST_FAIL;
}

static int test_dso_hits(struct test_ctx *ctx)
{
	struct evlist *l = fake_evlist();
	struct buf b = { 0 }, f = { 0 };
	struct dso_hits *s;
	char names[512];
	size_t cut;

	TEST_ASSERT(l, "fake evlist");
	s = dso_hits__new(l, 0);
	TEST_ASSERT(s, "dso_hits__new");
	put_mmap2(&b, 10, 0x400000, 0x1000, "/bin/app", 0xaa, PROT_READ | PROT_EXEC);
	put_mmap2(&b, 10, 0x500000, 0x1000, "/lib/data", 0xbb, PROT_READ);	/* not code */
	put_mmap2(&b, 10, 0x7000, 0x1000, "[vdso]", 0xcc, PROT_READ | PROT_EXEC);
	put_mmap2(&b, 10, 0x600000, 0x1000, "/lib/libunhit.so", 0xdd, PROT_READ | PROT_EXEC);
	/* a child process inherits its parent's maps; its exec drops them */
	put_task(&b, PERF_RECORD_FORK, 0, 11, 10);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x400010, 11);
	put_task(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 11, 0);
	put_mmap2(&b, 11, 0x400000, 0x2000, "/bin/other", 0xee, PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x401000, 11);
	/* a map splits an older one: the middle is the new file's */
	put_mmap2(&b, 10, 0x400400, 0x100, "/lib/patch.so", 0x11, PROT_READ | PROT_EXEC);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x400450, 10);
	put_sample(&b, PERF_RECORD_MISC_USER, 0x123, 10);	/* in no map */
	/* another ring's older MMAP2 written after the sample, in the same round */
	put_sample(&b, PERF_RECORD_MISC_USER, 0x800010, 10);
	put_mmap2(&b, 10, 0x800000, 0x1000, "/lib/late.so", 0x22, PROT_READ | PROT_EXEC);
	cut = event__begin(&b, PERF_RECORD_FINISHED_ROUND, 0);
	((struct perf_event_header *)(b.p + cut))->size = sizeof(struct perf_event_header);
	cut = b.len - 20;	/* the last record split across two iovecs */
	put_sample(&b, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ULL, 10);
	feed_split(s, &b, cut);

	TEST_ASSERT(s->err == 0, "err %d", s->err);
	TEST_ASSERT(find(s, "/bin/app") && find(s, "/bin/app")->hit, "the forked child's sample hits the parent's binary");
	TEST_ASSERT(find(s, "/bin/other") && find(s, "/bin/other")->hit, "after exec");
	TEST_ASSERT(find(s, "/lib/patch.so") && find(s, "/lib/patch.so")->hit, "the split map");
	TEST_ASSERT(!find(s, "/lib/data"), "a data map is no DSO");
	TEST_ASSERT(find(s, "/lib/libunhit.so") && !find(s, "/lib/libunhit.so")->hit, "not hit");
	TEST_ASSERT(find(s, "/lib/late.so") && find(s, "/lib/late.so")->hit,
		    "a sample before its map's MMAP2 in the same round");
	TEST_ASSERT(s->unresolved == 1, "unresolved %llu", (unsigned long long)s->unresolved);
	TEST_ASSERT(s->kernel >= 0 && s->d[s->kernel].hit, "the kernel sample, split across iovecs");
	TEST_ASSERT(!dso_hits__write_feature(s, &f), "feature");
	feature_names(&f, names, sizeof(names));
	TEST_LOG(ctx, "  feature: %s\n", names);
	/* the kernel first (its build id from sysfs: absent in a container) */
	if (!strncmp(names, "[kernel", 7))
		memmove(names, names + strlen("[kernel.kallsyms] "), strlen(names) - 17);
	TEST_ASSERT(!strcmp(names, "/bin/app [vdso] /bin/other /lib/patch.so /lib/late.so"), "%s",
		    names);
	/* one entry: header, pid -1, the build id and its size, the name padded to 64 */
	TEST_ASSERT(((const struct perf_event_header *)f.p)->misc & 0x8000, "size flag");
	buf__release(&f);
	dso_hits__delete(s);

	/* --buildid-all: every DSO with a build id */
	s = dso_hits__new(l, 1);
	TEST_ASSERT(s, "dso_hits__new");
	feed_split(s, &b, 8);
	TEST_ASSERT(!dso_hits__write_feature(s, &f), "feature");
	feature_names(&f, names, sizeof(names));
	TEST_ASSERT(strstr(names, "/lib/libunhit.so"), "--buildid-all: %s", names);
	buf__release(&f);
	dso_hits__delete(s);
	buf__release(&b);
	if (many_maps(ctx, l) != TEST_OK) {
		evlist__delete(l);
		return TEST_FAIL;
	}
	if (ids_one_slot(l) != TEST_OK) {
		evlist__delete(l);
		TEST_ASSERT(0, "two ids in one slot of the id cache: a sample read with the other's layout");
	}
	evlist__delete(l);
	return TEST_OK;
}

const struct test_suite suite_buildid_dso_hits = {
	"buildid/dso-hits", "Build ids: the DSOs a file's samples hit, from its own records; a task's "
	"maps replaced in part, hundreds of them; two events in one slot of the id cache",
	test_dso_hits,
};
