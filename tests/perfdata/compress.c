/* -z (perfdata/compress.c): ring data through the zstd writer into a
 * perf.data and back through this perf's reader, exactly; and the reader
 * on cut and corrupt compressed data and on zstd bombs: one line naming
 * the file and the record's offset, and memory bounded by the file's size. */
#include "tests/tests.h"
#include "perfdata/compress.h"
#include "perfdata/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "perfdata/reader.h"
#include "script/script.h"
#include "record/synthetic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define NR_SAMPLES 5000		/* 56 bytes each: 280K, many records */
#define MMAP_LEN (12 * 1024)	/* records stand for 12K: samples straddle them */
#define LEVEL 3

struct walk {
	u64 next;		/* the sample expected next */
	int comms, bad;
};

static int check(struct perf_reader *r, const struct perf_event_header *h, u64 off, void *arg)
{
	struct walk *w = arg;
	struct sample s;

	(void)off;
	if (h->type == PERF_RECORD_COMM)
		w->comms++;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	/* every sample, in order, with its own values */
	if (reader__parse_sample(r, h, &s) || s.ip != 0x400000 + w->next * 4 ||
	    s.time != 1000 + w->next || s.tid != 7 + w->next % 3 || s.cpu != w->next % 2)
		w->bad++;
	w->next++;
	return 0;
}

static void put_sample(struct buf *b, u64 i)
{
	size_t at = event__begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	buf__u64(b, 100 + i % 2);			/* IDENTIFIER */
	buf__u64(b, 0x400000 + i * 4);			/* IP */
	buf__u32(b, 7);					/* TID: pid, tid */
	buf__u32(b, 7 + i % 3);
	buf__u64(b, 1000 + i);				/* TIME */
	buf__u32(b, i % 2);				/* CPU, res */
	buf__u32(b, 0);
	buf__u64(b, 1000);				/* PERIOD */
	((struct perf_event_header *)(b->p + at))->size = b->len - at;
}

/* A file as perf record -z writes one: a synthesized COMM as it is, the
 * samples compressed in two ring writes whose pieces split records, a
 * FINISHED_ROUND. The ring bytes in *raw. */
static int write_file(const char *path, struct evlist *l, size_t *raw, char *err, size_t errsz)
{
	struct perf_data d;
	struct header_info info = { .evlist = l };
	struct buf pre = { 0 }, ring = { 0 };
	static const struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	int ret = perf_data__create(&d, path, l, err, errsz);

	if (ret)
		return ret;
	synthesize__comm(&pre, 7, 7, "zstd", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
	for (u64 i = 0; i < NR_SAMPLES; i++)
		put_sample(&ring, i);
	ret = pre.err ? pre.err : ring.err;
	if (!ret)
		ret = perf_data__set_compression(&d, LEVEL, MMAP_LEN);
	if (!ret)
		ret = perf_data__write(&d, pre.p, pre.len);
	for (int half = 0; !ret && half < 2; half++) {
		/* a ring that wrapped: two pieces, cut inside a record */
		size_t from = half ? ring.len / 2 : 0, to = half ? ring.len : ring.len / 2;
		struct iovec iov[2] = { { ring.p + from, 1003 }, { ring.p + from + 1003, to - from - 1003 } };

		ret = perf_data__write_ring(&d, iov, 2);
	}
	if (!ret)
		ret = perf_data__write(&d, &round, sizeof(round));
	*raw = ring.len;
	buf__release(&pre);
	buf__release(&ring);
	if (ret) {
		snprintf(err, errsz, "%s: %s", path, strerror(-ret));
		perf_data__abort(&d);
		return ret;
	}
	return perf_data__commit(&d, &info, 0, err, errsz);
}

/* The offsets of the COMPRESSED records in the file p, up to max. */
static int find_compressed(const char *p, u64 *at, int max)
{
	const struct perf_file_header *fh = (const void *)p;
	int n = 0;

	for (u64 off = fh->data.offset; off < fh->data.offset + fh->data.size;) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.type == PERF_RECORD_COMPRESSED && n < max)
			at[n++] = off;
		if (!h.size)
			break;
		off += h.size;
	}
	return n;
}

/* perf script on path, its output thrown away: 0 when it failed with
 * exactly one line of messages holding path and each of want[] (NULL
 * ended), else -1 with what it said in *said (the caller frees it). */
static int script_fails_once(const char *path, const char *const *want, char **said)
{
	struct script_opts o = { .input = path };
	size_t msglen = 0;
	int rc;

	*said = NULL;
	o.out = fopen("/dev/null", "w");
	o.msg = open_memstream(said, &msglen);
	if (!o.out || !o.msg)
		return -1;
	rc = script__run(&o);
	fclose(o.out);
	fclose(o.msg);
	if (!rc || !*said || !strstr(*said, path) || strchr(*said, '\n') != *said + msglen - 1)
		return -1;
	for (; *want; want++)
		if (!strstr(*said, *want))
			return -1;
	return 0;
}

/* Reads variant (len bytes of p) both with the reader and with perf
 * script: each must fail with one line naming the record at offset want
 * (and, for perf script, the file). */
static int expect_error(const char *path, const char *p, size_t len, u64 want, const char *what)
{
	char err[512], off[40], *msg = NULL;
	struct perf_reader r;
	struct walk w = { 0 };
	FILE *f = fopen(path, "w");
	int rc;

	TEST_ASSERT(f && fwrite(p, 1, len, f) == len && !fclose(f), "write %s", path);
	rc = reader__open(&r, path, err, sizeof(err));
	TEST_ASSERT(!rc, "%s: %s", what, err);
	rc = reader__for_each(&r, check, &w, err, sizeof(err));
	reader__close(&r);
	snprintf(off, sizeof(off), "record at offset %#llx", (unsigned long long)want);
	TEST_ASSERT(rc == -EINVAL && strstr(err, off), "%s: rc %d, '%s', want '%s'", what, rc,
		    rc ? err : "", off);
	rc = script_fails_once(path, (const char *const[]){ off, NULL }, &msg);
	TEST_ASSERT(!rc, "%s: perf script said '%s'", what, msg ? msg : "");
	free(msg);
	return TEST_OK;
}

/* The hostile variants: each a precise lie in the compressed data. */
static int hostile(const char *dir, const char *orig, size_t len)
{
	char path[300], *p = malloc(len);
	struct perf_file_header *fh = (void *)p;
	u64 at[64], nfeat = 0;
	int n = find_compressed(orig, at, 64), ret;

	TEST_ASSERT(p && n >= 3, "%d COMPRESSED records", n);
	snprintf(path, sizeof(path), "%s/bad.data", dir);

	/* not a zstd frame: its magic number gone */
	memcpy(p, orig, len);
	memset(p + at[0] + 8, 0, 4);
	ret = expect_error(path, p, len, at[0], "no magic");

	/* a block of the reserved type in the middle of the stream */
	memcpy(p, orig, len);
	p[at[1] + 8] |= 3 << 1;
	if (!ret)
		ret = expect_error(path, p, len, at[1], "reserved block");

	/* the last COMPRESSED record cut short by 5 bytes, the rest of the
	 * file moved up so that it is otherwise whole */
	memcpy(p, orig, len);
	{
		struct perf_event_header h;
		char *sec;

		memcpy(&h, p + at[n - 1], sizeof(h));
		h.size -= 5;
		memcpy(p + at[n - 1], &h, sizeof(h));
		memmove(p + at[n - 1] + h.size, p + at[n - 1] + h.size + 5,
			len - (at[n - 1] + h.size + 5));
		fh->data.size -= 5;
		for (int b = 0; b < HEADER_FEAT_BITS; b++)
			nfeat += feature__isset(fh->adds_features, b);
		/* the table follows the data: no alignment to count on */
		sec = p + fh->data.offset + fh->data.size;
		for (u64 i = 0; i < nfeat; i++) {
			struct perf_file_section fs;

			memcpy(&fs, sec + i * sizeof(fs), sizeof(fs));
			fs.offset -= 5;
			memcpy(sec + i * sizeof(fs), &fs, sizeof(fs));
		}
	}
	if (!ret)
		ret = expect_error(path, p, len - 5, at[n - 1], "cut record");

	/* a HOSTNAME longer than its section: the stock perf reads no feature
	 * after it, COMPRESSED neither, and decompresses nothing */
	memcpy(p, orig, len);
	{
		struct perf_file_section hs;
		u32 huge = 1 << 20;

		TEST_ASSERT(feature__isset(fh->adds_features, HEADER_HOSTNAME) &&
			    !feature__isset(fh->adds_features, HEADER_BUILD_ID) &&
			    !feature__isset(fh->adds_features, HEADER_TRACING_DATA), "HOSTNAME first");
		memcpy(&hs, p + fh->data.offset + fh->data.size, sizeof(hs));
		memcpy(p + hs.offset, &huge, sizeof(huge));
	}
	if (!ret)
		ret = expect_error(path, p, len, at[0], "HOSTNAME");

	/* compressed records, but no feature to say how: its bit cleared and
	 * its {offset,size} taken out of the table, the later ones moved up */
	memcpy(p, orig, len);
	TEST_ASSERT(feature__isset(fh->adds_features, HEADER_COMPRESSED), "COMPRESSED feature");
	{
		char *sec = p + fh->data.offset + fh->data.size;
		u64 before = 0, nr = 0;

		for (int b = 0; b < HEADER_FEAT_BITS; b++) {
			nr += feature__isset(fh->adds_features, b);
			before += b < HEADER_COMPRESSED && feature__isset(fh->adds_features, b);
		}
		memmove(sec + before * sizeof(struct perf_file_section),
			sec + (before + 1) * sizeof(struct perf_file_section),
			(nr - before - 1) * sizeof(struct perf_file_section));
	}
	fh->adds_features[HEADER_COMPRESSED / 64] &= ~(1ULL << (HEADER_COMPRESSED % 64));
	if (!ret)
		ret = expect_error(path, p, len, at[0], "no feature");
	unlink(path);
	free(p);
	return ret;
}

/* Bombs: a few kilobytes of zstd that stand for gigabytes of records. */
#define BOMB_RECORDS 32
#define BOMB_BLOCKS 512		/* of 128K each: 64M a record */
#define BOMB_CLAIMS ((u64)BOMB_RECORDS * BOMB_BLOCKS * (128 << 10))
#define GIB (1ULL << 30)

/* A zstd frame of blocks RLE blocks of byte: 128K each (its window). */
static void rle_frame(struct buf *b, int blocks, u8 byte)
{
	static const u8 head[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3 };

	buf__add(b, head, sizeof(head));
	for (int i = 0; i < blocks; i++) {
		u32 h = (128 << 10) << 3 | 1 << 1 | (i == blocks - 1);	/* size, RLE, last */

		buf__add(b, &h, 3);
		buf__u8(b, byte);
	}
}

/* A file of -z whose COMPRESSED records hold frame each, written as is,
 * the feature's mmap_len as large as it goes. */
static int write_bomb(const char *path, struct evlist *l, const struct buf *frame, char *err,
		      size_t errsz)
{
	struct perf_event_header h = { PERF_RECORD_COMPRESSED, 0, sizeof(h) + frame->len };
	struct header_info info = { .evlist = l };
	struct perf_data d;
	int ret = perf_data__create(&d, path, l, err, errsz);

	if (ret)
		return ret;
	ret = perf_data__set_compression(&d, LEVEL, 0xffffffff);
	for (int i = 0; !ret && i < BOMB_RECORDS; i++) {
		ret = perf_data__write(&d, &h, sizeof(h));
		if (!ret)
			ret = perf_data__write(&d, frame->p, frame->len);
	}
	if (ret) {
		snprintf(err, errsz, "%s: %s", path, strerror(-ret));
		perf_data__abort(&d);
		return ret;
	}
	return perf_data__commit(&d, &info, 0, err, errsz);
}

/* The largest resident set this process had since the last reset, in bytes. */
static u64 peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	u64 kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", (unsigned long long *)&kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

static int count_records(struct perf_reader *r, const struct perf_event_header *h, u64 off,
			 void *arg)
{
	(void)r;
	(void)h;
	(void)off;
	(*(u64 *)arg)++;
	return 0;
}

/* Records of bytes 0x08 (type 0x08080808, 2056 bytes: the reader passes
 * them on), 2G of them: the reader keeps what it decompresses, so it
 * stops where the file could honestly stand for no more, and says where. */
static int bomb_rss(struct test_ctx *ctx, const char *path, struct evlist *l)
{
	struct buf frame = { 0 };
	struct perf_reader r;
	char err[512], want[64];
	u64 base, peak, nr = 0;
	int fd, rc;

	rle_frame(&frame, BOMB_BLOCKS, 0x08);
	TEST_ASSERT(!frame.err && !write_bomb(path, l, &frame, err, sizeof(err)), "%s", err);
	/* 5: the peak resident set starts again from the current one */
	fd = open("/proc/self/clear_refs", O_WRONLY);
	TEST_ASSERT(fd >= 0 && write(fd, "5", 1) == 1, "reset the peak RSS");
	close(fd);
	base = peak_rss();
	TEST_ASSERT(!reader__open(&r, path, err, sizeof(err)), "%s", err);
	rc = reader__for_each(&r, count_records, &nr, err, sizeof(err));
	peak = peak_rss();
	TEST_LOG(ctx, "  bomb: %llu KiB of data claim %llu MiB; %llu records read, peak RSS +%llu "
		 "MiB: %s\n", (unsigned long long)r.hdr.data.size >> 10,
		 (unsigned long long)BOMB_CLAIMS >> 20, (unsigned long long)nr,
		 (unsigned long long)(peak - base) >> 20, rc ? err : "read whole");
	/* 64M a record: the budget, 64M and 2048 times the data, ends at the fourth */
	snprintf(want, sizeof(want), "record at offset %#llx:", (unsigned long long)
		 (r.hdr.data.offset + 3 * (sizeof(struct perf_event_header) + frame.len)));
	reader__close(&r);
	buf__release(&frame);
	TEST_ASSERT(peak - base < GIB, "reading %llu MiB of a bomb took %llu MiB",
		    (unsigned long long)BOMB_CLAIMS >> 20, (unsigned long long)(peak - base) >> 20);
	TEST_ASSERT(rc == -EINVAL && strstr(err, want) && strstr(err, "zstd bomb"),
		    "rc %d, '%s', want '%s'", rc, rc ? err : "", want);
	return TEST_OK;
}

/* FINISHED_ROUNDs, as zstd compresses 64M of them, in every record: perf
 * script says which record ends the file as a bomb, in one line. */
static int bomb_script(const char *path, struct evlist *l)
{
	static const struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	size_t n = (u64)BOMB_BLOCKS * (128 << 10), bound = ZSTD_compressBound(n);
	struct buf frame = { 0 };
	char *rounds = malloc(n), *msg = NULL, err[512];
	int rc;

	buf__zero(&frame, bound);
	TEST_ASSERT(rounds && !frame.err, "malloc");
	for (size_t i = 0; i < n; i += sizeof(round))
		memcpy(rounds + i, &round, sizeof(round));
	frame.len = ZSTD_compress(frame.p, bound, rounds, n, 1);
	free(rounds);
	TEST_ASSERT(!ZSTD_isError(frame.len) && frame.len < 65000, "a frame of %zu bytes",
		    frame.len);
	TEST_ASSERT(!write_bomb(path, l, &frame, err, sizeof(err)), "%s", err);
	buf__release(&frame);
	rc = script_fails_once(path, (const char *const[]){ "record at offset 0x", "zstd bomb",
							   NULL }, &msg);
	TEST_ASSERT(!rc, "perf script said '%s'", msg ? msg : "");
	free(msg);
	return TEST_OK;
}

static int test_bomb(struct test_ctx *ctx)
{
	char dir[] = "/tmp/perf-test-bomb-XXXXXX", path[300];
	struct evlist *l = fake_evlist();
	int ret;

	TEST_ASSERT(l && mkdtemp(dir), "setup");
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	ret = bomb_rss(ctx, path, l);
	unlink(path);
	if (ret == TEST_OK)
		ret = bomb_script(path, l);
	unlink(path);
	rmdir(dir);
	evlist__delete(l);
	return ret;
}

static int test_compress(struct test_ctx *ctx)
{
	char dir[] = "/tmp/perf-test-compress-XXXXXX", path[300], err[512];
	struct evlist *l = fake_evlist();
	struct perf_reader r;
	struct walk w = { 0 };
	const void *fp;
	u32 feat[5];
	u64 size, at[1024];
	size_t raw = 0, len;
	char *orig;
	int ret, n;

	TEST_ASSERT(l && mkdtemp(dir), "setup");
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	TEST_ASSERT(!write_file(path, l, &raw, err, sizeof(err)), "%s", err);

	TEST_ASSERT(!reader__open(&r, path, err, sizeof(err)), "%s", err);
	TEST_ASSERT(!reader__for_each(&r, check, &w, err, sizeof(err)), "%s", err);
	TEST_ASSERT(w.next == NR_SAMPLES && !w.bad && w.comms == 1, "%llu samples (%d wrong), "
		    "%d comms", (unsigned long long)w.next, w.bad, w.comms);
	/* after data of any length: not aligned */
	fp = reader__feature(&r, HEADER_COMPRESSED, &size);
	TEST_ASSERT(fp && size == sizeof(feat), "COMPRESSED feature");
	memcpy(feat, fp, sizeof(feat));
	/* version 0, as the stock writes: perfparser refuses any other */
	TEST_ASSERT(feat[0] == 0 && feat[1] == PERF_COMP_ZSTD && feat[2] == LEVEL &&
		    feat[4] == MMAP_LEN, "version %u type %u level %u mmap_len %u", feat[0],
		    feat[1], feat[2], feat[4]);
	/* the ratio, rounded, of what went in to what came out */
	TEST_ASSERT(feat[3] >= 2 && r.hdr.data.size < raw / 2, "ratio %u, %llu bytes for %zu",
		    feat[3], (unsigned long long)r.hdr.data.size, raw);
	reader__close(&r);

	orig = read_file(path, &len);
	TEST_ASSERT(orig, "read %s", path);
	/* no record stands for more than the room the stock reader gives it */
	n = find_compressed(orig, at, 1024);
	TEST_LOG(ctx, "  %zu ring bytes in %d COMPRESSED records, %llu bytes of data\n", raw, n,
		 (unsigned long long)((struct perf_file_header *)orig)->data.size);
	TEST_ASSERT(n >= (int)(raw / MMAP_LEN), "%d COMPRESSED records for %zu bytes", n, raw);
	ret = hostile(dir, orig, len);
	free(orig);
	unlink(path);
	rmdir(dir);
	evlist__delete(l);
	return ret;
}

TEST_SUITE(suite_perfdata_compress, "perfdata/compress",
	   "-z: zstd COMPRESSED records written and read back; cut and corrupt frames; bombs "
	   "read in bounded memory",
	   test_compress, test_bomb);
