/* perf script (script/script.c) on hostile files: a deterministic mutation
 * fuzzer over files recorded at test time. */
#include "tests/tests.h"
#include "util/event.h"
#include "perfdata/header.h"
#include "perfdata/reader.h"
#include "script/script.h"
#include "util/tp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

/* The random variants' share of the campaign, in percent: the campaign
 * runs with the normal build and again with the sanitizers' (make check),
 * where a variant costs several times as much; the normal build makes up
 * what the sanitizers' run leaves out, so that both together try as many
 * random variants as two full campaigns. The deterministic cuts run in
 * full in both. */
#if defined(__SANITIZE_ADDRESS__)
#define RANDOM_SHARE 50
#define MIN_VARIANTS 1250	/* a seed's */
#else
#define RANDOM_SHARE 150
#define MIN_VARIANTS 2500
#endif
#define SHARE(n) ((n) * RANDOM_SHARE / 100)

struct fuzz {
	struct test_ctx *ctx;
	const char *dir, *stock;
	char path[256];
	FILE *devnull;
	u64 rng;
	size_t seed;		/* which seed the variants come from */
	char why[200];		/* the stock's first complaint on the last variant */
	int variants, rejected, truncations, compared, stock_rejected, every;
};

static u64 fuzz__rand(struct fuzz *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}

/* The stock perf's verdict on path: 1 rejected (non-zero exit or one of
 * its errors about the file: it often says "failed to process" and still
 * exits 0), 0 accepted, -1 could not run it, 2 no verdict: it ran over 10
 * s (its own libtraceevent spins for ever on a header_page whose
 * "signed" lost a letter, which ours and this perf read), or it crashed
 * after libtraceevent's complaint. libtraceevent's complaints about a
 * format are no rejection: the stock perf goes on without that event's
 * fields, as we do after a warning. Why, in why. */
static int stock_rejects(const char *stock, const char path[256], char *why, size_t whysz)
{
	char errpath[300], *text;
	char *const argv[] = { (char *)stock, "report", "--stats", "-i", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	int status, rejected, rc;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s.err", path);
	/* spawned, not forked: a fork copies this process's page tables, which
	 * under ASan map terabytes of shadow, and its pages are then copied on
	 * write; that was most of the campaign's time under ASan */
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
	     posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600) ||
	     posix_spawn(&pid, stock, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	/* the stock perf spins for ever on some files: see above */
	for (int ms = 0; waitpid(pid, &status, WNOHANG) == 0; ms += 10) {
		if (ms == 10000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			unlink(errpath);
			snprintf(why, whysz, "it ran over 10 s");
			return 2;
		}
		usleep(10000);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -1;
	text = read_file(errpath, NULL);
	/* its libtraceevent complained of a format, then it crashed (a double
	 * free in perf 6.1): had it lived, it would have gone on, see above */
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL && text &&
	    strstr(text, "libtraceevent")) {
		free(text);
		unlink(errpath);
		snprintf(why, whysz, "it crashed after libtraceevent's complaint");
		return 2;
	}
	rejected = !WIFEXITED(status) || WEXITSTATUS(status) ||
		   (text && (strstr(text, "failed to process") || strstr(text, "Can't parse") ||
			     strstr(text, "incompatible file format")));
	snprintf(why, whysz, "%s", text ? text : "");
	why[strcspn(why, "\n")] = 0;
	free(text);
	unlink(errpath);
	return rejected;
}

/* Writes len bytes of data as one variant and runs perf script on it. */
static int fuzz__run(struct fuzz *f, const char *data, size_t len, size_t orig_len)
{
	/* the default lines without what symbols take: the kernel's symbols
	 * are read again for each run, minutes in all under ASan */
	struct script_opts o = { .input = f->path, .show_task = 1, .show_mmap = 1,
				 .fields = "-ip,-sym,-symoff,-dso",
				 .out = f->devnull, .msg = f->devnull };
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc, stock;

	TEST_ASSERT(fd >= 0 && !write_all(fd, data, len), "write %s", f->path);
	close(fd);
	rc = script__run(&o);
	/* now and then with symbols: the maps and DSO names come from the
	 * mutated MMAP records (not every time: each run reads kallsyms) */
	if (f->variants % 64 == 1) {
		o.fields = "ip,sym,dso,symoff";
		script__run(&o);	/* may refuse more: a mutated attr without IP */
	}
	f->variants++;
	f->rejected += rc != 0;
	if (len < orig_len) {
		f->truncations++;
		TEST_ASSERT(rc, "a file cut to %zu of %zu bytes was accepted", len, orig_len);
	}
	if (!f->stock || f->variants % f->every)
		return TEST_OK;
	stock = stock_rejects(f->stock, f->path, f->why, sizeof(f->why));
	if (stock < 0) {
		TEST_LOG(f->ctx, "  stock perf did not run: no comparison\n");
		f->stock = NULL;
		return TEST_OK;
	}
	if (stock == 2) {
		TEST_LOG(f->ctx, "  variant %d of seed %zu: %s: no comparison\n", f->variants,
			 f->seed, f->why);
		return TEST_OK;
	}
	f->compared++;
	f->stock_rejected += stock;
	if (stock && !rc) {
		char keep[300];

		snprintf(keep, sizeof(keep), "%s.kept", f->path);
		rename(f->path, keep);
		TEST_ASSERT(0, "variant %d of seed %zu: the stock perf rejects it (\"%s\", exit "
			    "status or message), we accept it (kept as %s)", f->variants, f->seed,
			    f->why, keep);
	}
	return TEST_OK;
}

struct region {
	u64 off, len;
};

/* The file's parts, from its own header: header, attrs, each event's ids,
 * data, the feature table, each feature (what the seed says is trusted:
 * we recorded it). */
static int seed_regions(const char *p, size_t len, struct region *r, int max)
{
	const struct perf_file_header *h = (const void *)p;
	u64 table = h->data.offset + h->data.size, nfeat = 0;
	int n = 0;

	r[n++] = (struct region){ 0, sizeof(*h) };
	r[n++] = (struct region){ h->attrs.offset, h->attrs.size };
	for (u64 a = 0; a < h->attrs.size / h->attr_size && n < max; a++) {
		const struct perf_file_section *ids = (const void *)(p + h->attrs.offset +
			(a + 1) * h->attr_size - sizeof(*ids));

		r[n++] = (struct region){ ids->offset, ids->size };
	}
	r[n++] = (struct region){ h->data.offset, h->data.size };
	for (int b = 0; b < HEADER_FEAT_BITS; b++)
		nfeat += feature__isset(h->adds_features, b);
	r[n++] = (struct region){ table, nfeat * sizeof(struct perf_file_section) };
	for (u64 i = 0; i < nfeat && n < max; i++) {
		struct perf_file_section s;

		/* after COMPRESSED records, not aligned */
		memcpy(&s, p + table + i * sizeof(s), sizeof(s));
		r[n++] = (struct region){ s.offset, s.size };
	}
	for (int i = 0; i < n; i++)
		if (r[i].off > len || r[i].len > len - r[i].off)
			return -1;
	return n;
}

static const u64 nasty[] = { 0, 1, 3, 7, 8, 0xffff, 0x7fffffff, 0xffffffff, 1ULL << 40,
			     ~0ULL, ~0ULL - 7 };

/* Records of the seed orig: headers with lying sizes and types, bodies
 * with lies, each in a copy at p. */
static int fuzz_records(struct fuzz *f, const char *orig, char *p, size_t len)
{
	const struct perf_file_header *h = (const void *)orig;

	for (int k = 0; k < SHARE(400); k++) {
		u64 off = h->data.offset, end = off + h->data.size, pick = fuzz__rand(f) % 64;
		struct perf_event_header eh;

		for (; pick && off + sizeof(eh) <= end; pick--) {
			memcpy(&eh, orig + off, sizeof(eh));
			if (eh.size < sizeof(eh) || off + eh.size + sizeof(eh) > end)
				break;
			off += eh.size;
		}
		if (off + sizeof(eh) > end)
			continue;
		memcpy(p, orig, len);
		memcpy(&eh, p + off, sizeof(eh));
		switch (k % 4) {
		case 0: eh.size = nasty[fuzz__rand(f) % 6] + fuzz__rand(f) % 2; break;
		case 1: eh.type = fuzz__rand(f) % 100; break;
		case 2: eh.misc = fuzz__rand(f); break;
		default: {
			u64 v = nasty[fuzz__rand(f) % ARRAY_SIZE(nasty)];
			u64 at = off + sizeof(eh) + fuzz__rand(f) % (eh.size > 8 ? (eh.size - 8) / 8 : 1) * 8;

			if (at + 8 <= len)
				memcpy(p + at, &v, 8);
		}
		}
		memcpy(p + off, &eh, sizeof(eh));
		if (fuzz__run(f, p, len, len))
			return TEST_FAIL;
	}
	return TEST_OK;
}

/* Every truncation point that matters, flips and lies in every region,
 * records with lying headers: 1000+ variants from one seed. */
static int fuzz_seed(struct fuzz *f, const char *seed)
{
	size_t len;
	char *orig = read_file(seed, &len), *p;
	struct region reg[64];
	int nreg, ret = TEST_FAIL;

	TEST_ASSERT(orig && len > sizeof(struct perf_file_header), "read %s", seed);
	nreg = seed_regions(orig, len, reg, ARRAY_SIZE(reg));
	p = malloc(len);
	TEST_ASSERT(nreg > 0 && p, "seed %s makes no sense", seed);

	/* cuts: around every region's start and end, and evenly in between */
	for (int i = 0; i < nreg; i++) {
		for (int d = -9; d <= 9; d++) {
			u64 at = (d < 0 ? reg[i].off : reg[i].off + reg[i].len) + d;

			if (at < len && fuzz__run(f, orig, at, len))
				goto out;
		}
	}
	for (size_t at = 0; at < len; at += len / 300 + 1)
		if (fuzz__run(f, orig, at, len))
			goto out;
	/* single and multiple byte flips, in each region */
	for (int i = 0; i < nreg; i++) {
		for (int k = 0; reg[i].len && k < SHARE(60); k++) {
			memcpy(p, orig, len);
			for (int n = 1 + fuzz__rand(f) % 3; n; n--)
				p[reg[i].off + fuzz__rand(f) % reg[i].len] ^= 1 << (fuzz__rand(f) % 8) |
					(k & 1 ? (u8)fuzz__rand(f) : 0);
			if (fuzz__run(f, p, len, len))
				goto out;
		}
	}
	/* u64 size and offset fields (every aligned word of the header, the
	 * attrs' id sections, the feature table) set to nasty values */
	for (int i = 0; i < nreg; i++) {
		int words = reg[i].len / 8;

		for (int k = 0; words && k < (i == 0 ? 13 * 11 : SHARE(30)); k++) {
			u64 at = reg[i].off + (i == 0 ? (u64)(k / 11) * 8 : fuzz__rand(f) % words * 8);
			u64 v = nasty[i == 0 ? (u64)k % 11 : fuzz__rand(f) % ARRAY_SIZE(nasty)];

			if (fuzz__rand(f) % 4 == 0)	/* or another region's offset: overlap */
				v = reg[fuzz__rand(f) % nreg].off;
			memcpy(p, orig, len);
			memcpy(p + at, &v, 8);
			if (fuzz__run(f, p, len, len))
				goto out;
		}
	}
	if (fuzz_records(f, orig, p, len))
		goto out;
	ret = TEST_OK;
out:
	free(p);
	free(orig);
	return ret;
}

/* perf script on data (written to f->path): its return, its messages in msg. */
static int script_msgs(struct fuzz *f, const char *data, size_t len, char *msg, size_t msgsz)
{
	char *text = NULL;
	size_t textlen = 0;
	FILE *m = open_memstream(&text, &textlen);
	struct script_opts o = { .input = f->path, .out = f->devnull, .msg = m };
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc;

	if (!m || fd < 0 || write_all(fd, data, len))
		return -EIO;
	close(fd);
	rc = script__run(&o);
	fclose(m);
	snprintf(msg, msgsz, "%s", text ? text : "");
	free(text);
	return rc;
}

/* Where feature feat's body is in the file image p, or NULL. */
static char *feature_body(char *p, int feat)
{
	const struct perf_file_header *h = (const void *)p;
	struct perf_file_section sec;
	u64 idx = 0;

	if (!feature__isset(h->adds_features, feat))
		return NULL;
	for (int b = 0; b < feat; b++)
		idx += feature__isset(h->adds_features, b);
	memcpy(&sec, p + h->data.offset + h->data.size + idx * sizeof(sec), sizeof(sec));
	return p + sec.offset;
}

/* The verdicts on precise lies in the tracepoint seed. */
static int targeted(struct fuzz *f, const char *seed)
{
	size_t len;
	char *p = read_file(seed, &len), msg[1024], *at;
	const struct perf_file_header *h = (const void *)p;
	struct perf_event_header *eh;
	u64 off, bad = 0xdeadbeef;
	int rc;

	TEST_ASSERT(p, "read %s", seed);
	/* a format naming a field its event lacks: the count of formats left
	 * out and a warning for the event, not decoded */
	at = memmem(p, len, "REC->fd", 7);
	TEST_ASSERT(at, "no sys_enter_close format in the seed");
	at[6] = 'x';
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	TEST_ASSERT(rc == 0 && strstr(msg, ": 1 of 2 tracepoint formats left out: unsafe") &&
		    strstr(msg, "no usable format for event syscalls:sys_enter_close") &&
		    !strchr(strchr(strchr(msg, '\n') + 1, '\n') + 1, '\n'), "rc %d, said: %s", rc,
		    msg);
	at[6] = 'd';
	/* no feature section at all: tracepoints without their formats */
	u64 features[4];

	memcpy(features, h->adds_features, sizeof(features));
	memset((char *)p + offsetof(struct perf_file_header, adds_features), 0, sizeof(features));
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	TEST_ASSERT(rc && strstr(msg, "tracepoint events but no TRACING_DATA section"),
		    "rc %d, said: %s", rc, msg);
	memcpy((char *)p + offsetof(struct perf_file_header, adds_features), features,
	       sizeof(features));
	/* more CPUs available than CPU_TOPOLOGY describes: the stock perf reads
	 * ids past them, gives up on the later features (COMPRESSED among
	 * them) and then on the file */
	u32 avail;

	at = feature_body(p, HEADER_NRCPUS);
	TEST_ASSERT(at && feature__isset(h->adds_features, HEADER_CPU_TOPOLOGY),
		    "no NRCPUS and CPU_TOPOLOGY in the seed");
	memcpy(&avail, at, 4);
	avail += 4;
	memcpy(at, &avail, 4);
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	TEST_ASSERT(rc && strstr(msg, "feature section 13 (CPU_TOPOLOGY) out of bounds or inconsistent"),
		    "NRCPUS %u: rc %d, said: %s", avail, rc, msg);
	avail -= 4;
	memcpy(at, &avail, 4);
	/* the first record's type made unknown */
	off = h->data.offset;
	eh = (void *)(p + off);
	eh->type += 40;
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	TEST_ASSERT(rc && strstr(msg, "unsupported type"), "rc %d, said: %s", rc, msg);
	eh->type -= 40;
	/* a sample whose id no event has (IDENTIFIER, or ID: two events of
	 * one layout) */
	u64 st;

	memcpy(&st, p + h->attrs.offset + offsetof(struct perf_event_attr, sample_type), 8);
	TEST_ASSERT(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID), "the seed's samples have no id");
	for (eh = (void *)(p + off); eh->type != PERF_RECORD_SAMPLE; eh = (void *)((char *)eh + eh->size))
		TEST_ASSERT(eh->size && (char *)eh + eh->size < p + h->data.offset + h->data.size,
			    "no sample in the seed");
	memcpy((char *)eh + sample__id_offset(st), &bad, 8);
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	TEST_ASSERT(rc && strstr(msg, "has id 3735928559, which no event has"), "rc %d, said: %s",
		    rc, msg);
	free(p);
	return TEST_OK;
}

struct stack_at {
	u64 off;	/* of the first sample with a user stack */
	u64 at;		/* of its stack's size */
};

static int find_stack(struct perf_reader *r, const struct perf_event_header *h, u64 off,
		      void *arg)
{
	struct stack_at *sa = arg;
	struct sample s;

	if (h->type != PERF_RECORD_SAMPLE || reader__parse_sample(r, h, &s) || !s.stack_size)
		return 0;
	sa->off = off;
	sa->at = off + (u64)((const char *)s.stack - (const char *)h) - 8;
	return 1;
}

/* A user stack dump's size made larger than its sample, in the dwarf
 * seed: one line naming the file, the record's offset and the part. */
static int targeted_stack(struct fuzz *f, const char *seed)
{
	struct perf_reader r = { 0 };
	struct stack_at sa = { 0 };
	char err[512], msg[1024], want[400];
	u64 lie = 0x7ff8;
	size_t len;
	char *p;
	int rc;

	TEST_ASSERT(!reader__open(&r, seed, err, sizeof(err)), "%s", err);
	reader__for_each(&r, find_stack, &sa, err, sizeof(err));
	reader__close(&r);
	TEST_ASSERT(sa.at, "no sample with a user stack in the dwarf seed");
	p = read_file(seed, &len);
	TEST_ASSERT(p, "read %s", seed);
	memcpy(p + sa.at, &lie, 8);
	rc = script_msgs(f, p, len, msg, sizeof(msg));
	free(p);
	snprintf(want, sizeof(want), "%s: malformed SAMPLE record at offset %#llx: user stack",
		 f->path, (unsigned long long)sa.off);
	TEST_ASSERT(rc && strstr(msg, want) && strchr(msg, '\n') == msg + strlen(msg) - 1,
		    "rc %d, said: %s", rc, msg);
	return TEST_OK;
}

/* Records a seed with this very perf, or with the stock perf (stock not
 * NULL) running this perf's workloads (the -c periods keep files small). */
static int record_seed(const char *out, const char *const *args, const char *stock)
{
	const char *argv[24] = { "perf", "record", "-q", "-o", out };
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int n = 5, status, devnull;
	pid_t pid;

	if (len <= 0)
		return -1;
	self[len] = 0;
	/* the stock perf's workload: this perf, by a name it can run */
	for (; *args && n < 22; args++)
		argv[n++] = stock && !strcmp(*args, "/proc/self/exe") ? self : *args;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execv(stock ? stock : "/proc/self/exe", (char **)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return access(out, R_OK) ? -1 : 0;
}

/* The seeds' perf record arguments. */
static const char *const tp[] = { "-e", "syscalls:sys_enter_close", "-e",
	"syscalls:sys_exit_close", "-c", "1", "--", "/proc/self/exe", "test", "-w",
	"closes", "20", NULL };
static const char *const cg[] = { "-e", "cpu-clock", "-g", "-c", "2000000", "--",
	"/proc/self/exe", "test", "-w", "spin", "0.05", NULL };
/* user registers and stack dumps, data addresses and sources */
static const char *const dwarf[] = { "-d", "--call-graph", "dwarf,512", "-c", "2000000",
	"--", "/proc/self/exe", "test", "-w", "spin", "0.05", NULL };
/* two layouts: the tracepoint's trailer has CPU, page-faults' not */
static const char *const mixed[] = { "-e", "page-faults", "-e", "syscalls:sys_enter_close",
	"-c", "1", "--", "/proc/self/exe", "test", "-w", "closes", "20", NULL };
/* -z: COMPRESSED records of a zstd stream, a feature table after them
 * at any offset */
static const char *const zstd[] = { "-z", "-e", "cpu-clock", "-g", "-c", "2000000", "--",
	"/proc/self/exe", "test", "-w", "spin", "0.05", NULL };
/* --off-cpu: offcpu-time samples the recorder rewrote (kernel and user
 * callchains, a period of ns off CPU), in a file with no rounds */
static const char *const offcpu[] = { "--off-cpu", "-e", "dummy", "--", "/bin/sleep",
	"0.05", NULL };
/* the stock's files: ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV...; -z
 * in its layout */
static const char *const stock_cg[] = { "-e", "cpu-clock", "-g", "-c", "2000000", "--",
	"/proc/self/exe", "test", "-w", "spin", "0.05", NULL };
static const char *const stock_zstd[] = { "-z", "-e", "cpu-clock", "-c", "2000000", "--",
	"/proc/self/exe", "test", "-w", "spin", "0.05", NULL };
static const char *const *const seeds[] = { tp, cg, dwarf, mixed, zstd, offcpu, stock_cg,
					    stock_zstd };

static int test_fuzz(struct test_ctx *ctx)
{
	/* the seeds from here on are recorded by the stock perf */
	const size_t first_stock = 6;
	char dir[] = "/tmp/perf-test-fuzz-XXXXXX", seed[PATH_MAX];
	struct fuzz f = { .ctx = ctx, .dir = dir, .rng = 0x2545f4914f6cdd1dULL, .every = 25 };
	int ret = TEST_OK, nseeds = 0, crafted = 0, stock_wanted;

	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	f.devnull = fopen("/dev/null", "w");
	TEST_ASSERT(f.devnull, "/dev/null");
	snprintf(f.path, sizeof(f.path), "%s/variant.data", dir);
	f.stock = getenv("STOCK_PERF") ? getenv("STOCK_PERF") : "/usr/bin/perf";
	if (access(f.stock, X_OK))
		f.stock = NULL;
	stock_wanted = f.stock != NULL;
	for (size_t i = 0; ret == TEST_OK && i < ARRAY_SIZE(seeds); i++) {
		snprintf(seed, sizeof(seed), "%s/seed%zu.data", dir, i);
		if (i >= first_stock && !f.stock) {
			TEST_LOG(ctx, "  no stock perf to record seed %zu\n", i);
			continue;
		}
		if (record_seed(seed, seeds[i], i >= first_stock ? f.stock : NULL)) {
			TEST_LOG(ctx, "  could not record seed %zu\n", i);
			continue;
		}
		nseeds++;
		f.seed = i;
		TEST_LOG(ctx, "  seed %zu: its variants from %d\n", i, f.variants + 1);
		crafted |= i == 0;
		ret = i == 0 ? targeted(&f, seed) : i == 2 ? targeted_stack(&f, seed) : TEST_OK;
		if (ret == TEST_OK)
			ret = fuzz_seed(&f, seed);
		unlink(seed);
	}
	fclose(f.devnull);
	unlink(f.path);
	rmdir(dir);
	if (ret != TEST_OK)
		return ret;
	if (!nseeds)
		TEST_SKIP_BECAUSE(ctx, "cannot record (no perf_event access or no syscalls tracepoints)");
	if (!crafted)
		TEST_SKIP_BECAUSE(ctx, "the tracepoint seed could not be recorded: the crafted "
				  "formats were not tried");
	/* the others were fuzzed, but a kind of file was not: say so */
	if (nseeds < (int)ARRAY_SIZE(seeds))
		TEST_SKIP_BECAUSE(ctx, "%d of %zu seeds could not be recorded (-v names them): "
				  "their kinds of file were not fuzzed", (int)ARRAY_SIZE(seeds) - nseeds,
				  ARRAY_SIZE(seeds));
	/* a stock perf that is there but never ran is a comparison not made */
	TEST_ASSERT(!stock_wanted || f.compared, "the stock perf never ran: no file compared");
	TEST_LOG(ctx, "  %d variants of %d seeds, %d rejected (all %d truncations); "
		 "%d compared with the stock perf, which rejected %d\n", f.variants, nseeds,
		 f.rejected, f.truncations, f.compared, f.stock_rejected);
	TEST_ASSERT(f.variants >= MIN_VARIANTS * nseeds, "only %d variants", f.variants);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return TEST_OK;
}


const struct test_suite suite_script_script = {
	"script/script", "perf script on hostile files: 10000+ mutated files, compared with the "
	"stock perf",
	test_fuzz,
};
