/* perf.data files as perfdata/data.c writes them: writer -> reader round
 * trips, the reader on broken files, room reserved and files made ahead
 * for dumps; output files checked before recording, invisible until
 * complete, never replacing what is not ours, nothing left behind by a
 * crash. */
#include "tests/tests.h"
#include "perfdata/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "perfdata/header.h"
#include "perfdata/reader.h"
#include "record/synthetic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define ST FAKE_EVLIST_ST

static void put_sample(struct buf *b, u64 id, u64 ip, u32 pid, u32 tid, u64 time, u32 cpu)
{
	size_t at = event__begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	buf__u64(b, id);
	buf__u64(b, ip);
	buf__u32(b, pid);
	buf__u32(b, tid);
	buf__u64(b, time);
	buf__u32(b, cpu);
	buf__u32(b, 0);
	buf__u64(b, 1000);
	((struct perf_event_header *)(b->p + at))->size = b->len - at;
}

struct seen {
	int samples, comms;
	u64 ids[8], ips[8], times[8];
	u32 tids[8], cpus[8];
	char comm[16];
};

static int count(struct perf_reader *r, const struct perf_event_header *h, u64 off, void *arg)
{
	struct seen *s = arg;
	struct sample smp;

	(void)off;
	if (h->type == PERF_RECORD_COMM) {
		snprintf(s->comm, sizeof(s->comm), "%s", (const char *)(h + 1) + 8);
		s->comms++;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	if (reader__parse_sample(r, h, &smp) || s->samples >= 8)
		return -EINVAL;
	s->ids[s->samples] = smp.evsel == &r->evsels[1];
	s->ips[s->samples] = smp.ip;
	s->times[s->samples] = smp.time;
	s->tids[s->samples] = smp.tid;
	s->cpus[s->samples++] = smp.cpu;
	return 0;
}

static int write_file(const char *path, struct evlist *l, char *err, size_t errsz)
{
	struct perf_data d;
	struct buf b = { 0 };
	struct header_info info = { .evlist = l, .first_sample_time = 10, .last_sample_time = 30 };
	int ret;

	ret = perf_data__create(&d, path, l, err, errsz);
	if (ret)
		return ret;
	synthesize__comm(&b, 42, 43, "roundtrip", ST);
	put_sample(&b, 100, 0x1000, 42, 43, 10, 1);
	put_sample(&b, 101, 0x2000, 42, 43, 20, 0);
	put_sample(&b, 100, 0x3000, 42, 44, 30, 1);
	ret = b.err ? b.err : perf_data__write(&d, b.p, b.len);
	buf__release(&b);
	if (ret) {
		perf_data__abort(&d);
		return ret;
	}
	return perf_data__commit(&d, &info, 1, err, errsz);
}

static int nr_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.' || strstr(de->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* Every truncation and many single-byte corruptions: the reader must say
 * no to every truncation, and no or read records within bounds to the
 * corruptions; ASan watches that it never strays. */
static int fuzz_reader(const char *path, const char *dir, struct test_ctx *ctx)
{
	size_t len;
	char *orig = read_file(path, &len), bad[512], err[512];
	int rejected = 0, fd;

	TEST_ASSERT(orig, "read back");
	snprintf(bad, sizeof(bad), "%s/bad.data", dir);
	for (size_t cut = 0; cut <= len; cut += (cut < 200 ? 1 : 7)) {
		for (int flip = -1; flip < 3; flip++) {
			struct perf_reader r;
			struct seen s = { 0 };
			size_t at = flip < 0 ? 0 : (cut * 31 + flip * 977) % len;

			fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			TEST_ASSERT(fd >= 0, "create %s", bad);
			if (flip >= 0)
				orig[at] ^= 0x5a;
			TEST_ASSERT(!write_all(fd, orig, flip < 0 ? cut : len), "write");
			if (flip >= 0)
				orig[at] ^= 0x5a;
			close(fd);
			int no = reader__open(&r, bad, err, sizeof(err)) ||
				 reader__for_each(&r, count, &s, err, sizeof(err));

			reader__close(&r);
			/* the feature sections end the file: any cut loses data */
			TEST_ASSERT(no || flip >= 0 || cut == len, "file cut to %zu of %zu accepted",
				    cut, len);
			rejected += no;
		}
	}
	TEST_LOG(ctx, "  %d broken variants rejected\n", rejected);
	TEST_ASSERT(rejected > 0, "no broken file was rejected");
	free(orig);
	unlink(bad);
	return TEST_OK;
}

/* A dump asks for its room before it writes (perf_data__reserve()); the
 * file it leaves holds its bytes, not the room it asked for. */
static int check_reserve(const char *dir, struct evlist *l, struct test_ctx *ctx)
{
	enum { ROOM = 8 << 20 };
	char path[256], err[512] = "";
	struct header_info info = { .evlist = l, .first_sample_time = 10, .last_sample_time = 10 };
	struct perf_data d = { .fd = -1 };
	struct perf_reader r;
	struct buf b = { 0 };
	struct stat st;
	struct statvfs vfs;
	int fd, can, ret = TEST_FAIL;

	/* can this filesystem allocate past a file's end at all, and has it
	 * twice the room free (the reserve asks for at most half)? */
	snprintf(path, sizeof(path), "%s/probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	TEST_ASSERT(fd >= 0, "create %s", path);
	can = !fstatvfs(fd, &vfs) && (u64)vfs.f_bavail * vfs.f_frsize / 2 > 2 * (u64)ROOM &&
	      !fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, ROOM);
	close(fd);
	unlink(path);

	snprintf(path, sizeof(path), "%s/reserve.data", dir);
	TEST_ASSERT(!perf_data__create(&d, path, l, err, sizeof(err)), "%s", err);
	perf_data__reserve(&d, ROOM);
	if (fstat(d.fd, &st))
		goto out;
	if (can && ((u64)st.st_blocks * 512 < ROOM || (u64)st.st_size != d.data_offset)) {
		snprintf(err, sizeof(err), "reserve: %llu bytes allocated, size %llu",
			 (unsigned long long)st.st_blocks * 512, (unsigned long long)st.st_size);
		goto out;
	}
	if (!can)
		TEST_LOG(ctx, "  no fallocate on %s, or under 32M free: the room asked for is "
			 "not checked\n", dir);
	put_sample(&b, 100, 0x1000, 42, 43, 10, 1);
	if (b.err || perf_data__write(&d, b.p, b.len)) {
		snprintf(err, sizeof(err), "write");
		goto out;
	}
	if (perf_data__commit(&d, &info, 0, err, sizeof(err)))
		goto out;
	if (stat(path, &st) || (u64)st.st_blocks * 512 >= ROOM / 8) {
		snprintf(err, sizeof(err), "the file keeps %llu bytes allocated for its %llu",
			 (unsigned long long)st.st_blocks * 512, (unsigned long long)st.st_size);
		goto out;
	}
	if (reader__open(&r, path, err, sizeof(err)))
		goto out;
	reader__close(&r);
	ret = TEST_OK;
out:
	if (ret != TEST_OK)
		fprintf(stderr, "  FAILED: check_reserve: %s\n", err);
	perf_data__abort(&d);	/* commit left nothing to undo: a no-op then */
	buf__release(&b);
	unlink(path);
	return ret;
}

/* Pages of fd's first bytes in the page cache. */
static u64 resident_pages(int fd, u64 bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	u64 pages = (bytes + page - 1) / page, n = 0;
	unsigned char *vec = malloc(pages);
	void *p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);

	if (vec && p != MAP_FAILED && !mincore(p, bytes, vec))
		for (u64 i = 0; i < pages; i++)
			n += vec[i] & 1;
	if (p != MAP_FAILED)
		munmap(p, bytes);
	free(vec);
	return n;
}

/* A dump's file made ahead (perf_data__open_ahead(), __warm()): a stop
 * faults nothing in; otherwise every page is in the page cache, the file
 * a dump of its directory then creates is that one, and it ends with the
 * dump's bytes. A file ahead of another directory is closed, not used. */
static int check_ahead(const char *dir, struct evlist *l, struct test_ctx *ctx)
{
	enum { AHEAD = 4 << 20 };
	char path[256], sub[256], err[512] = "";
	struct header_info info = { .evlist = l, .first_sample_time = 10, .last_sample_time = 10 };
	struct perf_data a = { .fd = -1 }, d = { .fd = -1 };
	struct perf_reader r;
	struct seen s = { 0 };
	struct buf b = { 0 };
	struct stat st, st_ahead;
	u64 gone;
	int stop = 1, werr;

	snprintf(path, sizeof(path), "%s/ahead.data", dir);
	TEST_ASSERT(!perf_data__open_ahead(&a, path), "open ahead");
	TEST_ASSERT(nr_files(dir) == 0, "a file ahead has no name");
	werr = perf_data__warm(&a, AHEAD, &stop);
	if (werr == -ENOSPC || werr == -ENOMEM || werr == -EOPNOTSUPP) {
		TEST_LOG(ctx, "  nothing made ahead in %s (%s: no room, or a tmpfs): the making "
			 "is not checked\n", dir, strerror(-werr));
		perf_data__abort(&a);
		return TEST_OK;
	}
	TEST_ASSERT(!werr && a.warm == 0, "told to stop, it faulted %llu bytes in (%s)",
		    (unsigned long long)a.warm, strerror(-werr));
	/* only a file made whole is read again (the writer's timer) */
	TEST_ASSERT(!perf_data__warmed(&a), "a file not made is said to be");
	stop = 0;
	TEST_ASSERT(!perf_data__warm(&a, AHEAD, &stop) && a.warm == AHEAD, "made %llu of %d",
		    (unsigned long long)a.warm, AHEAD);
	TEST_ASSERT(perf_data__warmed(&a), "a file made is not said to be");
	TEST_ASSERT(resident_pages(a.fd, AHEAD) == AHEAD / (u64)sysconf(_SC_PAGESIZE),
		    "%llu pages of %d in the page cache", (unsigned long long)
		    resident_pages(a.fd, AHEAD), AHEAD / (int)sysconf(_SC_PAGESIZE));
	/* pages the kernel takes back are faulted in again by the next call
	 * (the writer thread makes one every 20 s while idle) */
	TEST_ASSERT(!posix_fadvise(a.fd, 0, AHEAD, POSIX_FADV_DONTNEED), "fadvise");
	gone = AHEAD / sysconf(_SC_PAGESIZE) - resident_pages(a.fd, AHEAD);
	TEST_ASSERT(gone > 0, "POSIX_FADV_DONTNEED took no page back: the reading again would "
		    "go unchecked");
	TEST_ASSERT(!perf_data__warm(&a, AHEAD, &stop) && a.warm == AHEAD, "read again");
	TEST_ASSERT(resident_pages(a.fd, AHEAD) == AHEAD / (u64)sysconf(_SC_PAGESIZE),
		    "%llu pages of %d in the page cache after %llu were taken and it was read "
		    "again", (unsigned long long)resident_pages(a.fd, AHEAD),
		    AHEAD / (int)sysconf(_SC_PAGESIZE), (unsigned long long)gone);
	TEST_ASSERT(!fstat(a.fd, &st_ahead), "fstat");

	snprintf(path, sizeof(path), "%s/ahead.data.2026", dir);
	TEST_ASSERT(!perf_data__create_ahead(&d, &a, path, l, err, sizeof(err)), "%s", err);
	TEST_ASSERT(a.fd == -1 && !perf_data__warmed(&a), "the file ahead was not handed over");
	TEST_ASSERT(!fstat(d.fd, &st) && st.st_ino == st_ahead.st_ino && d.warm == AHEAD,
		    "the dump did not write into the file made ahead");
	put_sample(&b, 100, 0x1000, 42, 43, 10, 1);
	TEST_ASSERT(!b.err && !perf_data__write(&d, b.p, b.len), "write");
	buf__release(&b);
	TEST_ASSERT(!perf_data__commit(&d, &info, 0, err, sizeof(err)), "%s", err);
	TEST_ASSERT(!stat(path, &st) && (u64)st.st_size < 64 << 10 && (st.st_mode & 0777) == 0600,
		    "the file made ahead ends at %llu bytes, mode %o", (unsigned long long)st.st_size,
		    st.st_mode & 0777);
	TEST_ASSERT(!reader__open(&r, path, err, sizeof(err)), "%s", err);
	TEST_ASSERT(!reader__for_each(&r, count, &s, err, sizeof(err)) && s.samples == 1 &&
		    s.ips[0] == 0x1000, "read back: %d samples", s.samples);
	reader__close(&r);
	unlink(path);
	perf_data__abort(&d);

	/* made ahead for another directory: of no use, and closed */
	snprintf(path, sizeof(path), "%s/ahead.data", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	TEST_ASSERT(!mkdir(sub, 0700), "mkdir %s", sub);
	TEST_ASSERT(!perf_data__open_ahead(&a, path) && !perf_data__warm(&a, 1 << 20, &stop) &&
		    a.warm == 1 << 20, "open ahead");
	snprintf(path, sizeof(path), "%s/sub/x.data", dir);
	TEST_ASSERT(!perf_data__create_ahead(&d, &a, path, l, err, sizeof(err)), "%s", err);
	/* (not by inode: the one closed may be the one given again) */
	TEST_ASSERT(a.fd == -1 && d.warm == 0, "a file ahead of %s was used for %s", dir, path);
	perf_data__abort(&d);
	rmdir(sub);
	TEST_LOG(ctx, "  4M made ahead, every page in the page cache (%llu taken back, faulted in "
		 "again), and written into\n", (unsigned long long)gone);
	return TEST_OK;
}

static int test_data(struct test_ctx *ctx)
{
	char dir[] = "/tmp/perf-test-data-XXXXXX", path[256], err[512];
	struct evlist *l = fake_evlist();
	struct perf_reader r;
	struct seen s = { 0 };
	struct stat st;
	u64 size;
	const void *sec;
	u64 times[2] = { 0 };
	int ret;

	TEST_ASSERT(l && mkdtemp(dir), "setup");
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	TEST_ASSERT(!write_file(path, l, err, sizeof(err)), "%s", err);
	TEST_ASSERT(!stat(path, &st) && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	TEST_ASSERT(nr_files(dir) == 1, "temporary files left behind");

	TEST_ASSERT(!reader__open(&r, path, err, sizeof(err)), "%s", err);
	TEST_ASSERT(r.nr_evsels == 2 && !strcmp(r.evsels[0].name, "cpu-clock") &&
		    !strcmp(r.evsels[1].name, "task-clock"), "names from EVENT_DESC");
	TEST_ASSERT(r.evsels[1].nr_ids == 1 && r.evsels[1].ids[0] == 101, "ids");
	TEST_ASSERT(!reader__for_each(&r, count, &s, err, sizeof(err)), "%s", err);
	TEST_ASSERT(s.samples == 3 && s.comms == 1 && !strcmp(s.comm, "roundtrip"), "records");
	TEST_ASSERT(s.ids[0] == 0 && s.ids[1] == 1 && s.ids[2] == 0, "ids map to events");
	TEST_ASSERT(s.ips[2] == 0x3000 && s.times[1] == 20 && s.tids[2] == 44 && s.cpus[0] == 1,
		    "sample fields");
	/* sections are 4-byte aligned at most (strings are padded to 4) */
	sec = reader__feature(&r, HEADER_SAMPLE_TIME, &size);
	if (sec && size == 16)
		memcpy(times, sec, sizeof(times));
	TEST_ASSERT(sec && size == 16 && times[0] == 10 && times[1] == 30, "SAMPLE_TIME");
	TEST_ASSERT(reader__feature(&r, HEADER_HOSTNAME, &size) && size >= 4 + 1, "HOSTNAME");
	reader__close(&r);

	/* a second file at the same path moves the first to .old */
	TEST_ASSERT(!write_file(path, l, err, sizeof(err)), "%s", err);
	snprintf(path + strlen(path), 8, ".old");
	TEST_ASSERT(!access(path, F_OK), "perf.data.old kept");
	unlink(path);
	path[strlen(path) - 4] = '\0';

	ret = fuzz_reader(path, dir, ctx);
	unlink(path);
	if (ret == TEST_OK)
		ret = check_reserve(dir, l, ctx);
	if (ret == TEST_OK)
		ret = check_ahead(dir, l, ctx);
	/* an unwritable place is refused with the file named */
	TEST_ASSERT(write_file("/nonexistent-dir/x.data", l, err, sizeof(err)) == -ENOENT &&
		    strstr(err, "/nonexistent-dir/x.data"), "%s", err);
	rmdir(dir);
	evlist__delete(l);
	return ret;
}

/* Entries of dir, dot files included ("." and ".." not). */
static int nr_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static struct evlist *empty_evlist(void)
{
	return evlist__new();
}

static int write_data(const char *path, int keep_old, char *placed, size_t placed_sz)
{
	struct evlist *l = empty_evlist();
	struct header_info info = { .evlist = l };
	struct perf_data d;
	char err[512];
	int ret = l ? perf_data__create(&d, path, l, err, sizeof(err)) : -ENOMEM;

	if (!ret)
		ret = perf_data__write(&d, "12345678", 8);
	if (!ret)
		ret = perf_data__commit(&d, &info, keep_old, err, sizeof(err));
	else if (l)
		perf_data__abort(&d);
	if (!ret)
		snprintf(placed, placed_sz, "%s", d.placed);
	evlist__delete(l);
	return ret;
}

static int check_refused(const char *path, int timestamped, const char *want)
{
	char err[512];
	int ret = perf_data__check_path(path, timestamped, err, sizeof(err));

	TEST_ASSERT(ret < 0 && strstr(err, want), "'%s': %d '%s' lacks '%s'", path, ret, err, want);
	return TEST_OK;
}

static int test_check_path(const char *dir)
{
	char p[256], q[256], err[512];
	struct stat st;

	TEST_ASSERT(check_refused("", 0, "empty file name") == TEST_OK, "empty");
	TEST_ASSERT(check_refused("-", 0, "pipe") == TEST_OK, "pipe");
	snprintf(p, sizeof(p), "%s/link.data", dir);
	snprintf(q, sizeof(q), "%s/victim", dir);
	TEST_ASSERT(!symlink(q, p), "symlink");
	TEST_ASSERT(check_refused(p, 0, "symbolic link") == TEST_OK, "symlink");
	TEST_ASSERT(!lstat(p, &st) && S_ISLNK(st.st_mode) && access(q, F_OK), "link untouched");
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo.data", dir);
	TEST_ASSERT(!mkfifo(p, 0600), "mkfifo");
	TEST_ASSERT(check_refused(p, 0, "not a regular file") == TEST_OK, "fifo");
	unlink(p);
	snprintf(p, sizeof(p), "%s/nodir/x.data", dir);
	TEST_ASSERT(check_refused(p, 0, "No such file or directory") == TEST_OK, "no dir");
	TEST_ASSERT(check_refused(p, 1, "No such file or directory") == TEST_OK, "no dir, timestamped");
	/* a directory moves aside at once, as the stock perf does */
	snprintf(p, sizeof(p), "%s/d.data", dir);
	snprintf(q, sizeof(q), "%s/d.data.old", dir);
	TEST_ASSERT(!mkdir(p, 0700), "mkdir");
	TEST_ASSERT(!perf_data__check_path(p, 0, err, sizeof(err)), "%s", err);
	TEST_ASSERT(access(p, F_OK) && !stat(q, &st) && S_ISDIR(st.st_mode), "dir moved to .old");
	rmdir(q);
	TEST_ASSERT(nr_entries(dir) == 0, "the check left something: %d entries", nr_entries(dir));
	return TEST_OK;
}

/* Named temporaries of dead runs go; a live run's stay. */
static int test_leftovers(const char *dir)
{
	char dead[300], live[300], p[256], err[512];
	pid_t pid = fork();

	TEST_ASSERT(pid >= 0, "fork");
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(dead, sizeof(dead), "%s/.x.data.tmp.%d.AbCdEf", dir, (int)pid);
	snprintf(live, sizeof(live), "%s/.x.data.tmp.%d.AbCdEf", dir, (int)getppid());
	close(open(dead, O_CREAT | O_WRONLY, 0600));
	close(open(live, O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof(p), "%s/x.data", dir);
	TEST_ASSERT(!perf_data__check_path(p, 0, err, sizeof(err)), "%s", err);
	TEST_ASSERT(access(dead, F_OK) && !access(live, F_OK), "dead run's leftover removed, "
		    "live one's kept");
	unlink(live);
	return TEST_OK;
}

/* A file being written has no name; kill -9 then leaves nothing. */
static int test_unnamed(const char *dir)
{
	char p[256], err[512];
	int sync[2], status, fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	pid_t pid;

	if (fd < 0) {
		fprintf(stderr, "  SKIP: %s has no O_TMPFILE: %s\n", dir, strerror(errno));
		return TEST_SKIP;
	}
	close(fd);

	snprintf(p, sizeof(p), "%s/k.data", dir);
	TEST_ASSERT(!pipe(sync), "pipe");
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (pid == 0) {
		struct evlist *l = empty_evlist();
		struct perf_data d;

		if (!l || perf_data__create(&d, p, l, err, sizeof(err)) ||
		    perf_data__write(&d, p, sizeof(p)))
			_exit(1);
		if (write(sync[1], "c", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	TEST_ASSERT(read(sync[0], err, 1) == 1, "child could not create its file");
	TEST_ASSERT(nr_entries(dir) == 0, "a file being written is visible: %d entries",
		    nr_entries(dir));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(sync[0]);
	TEST_ASSERT(nr_entries(dir) == 0, "kill -9 left %d entries", nr_entries(dir));
	return TEST_OK;
}

/* Timestamped names never replace a file: a taken name gets a suffix. */
static int test_no_replace(const char *dir)
{
	char p[256], placed[PATH_MAX], decoy_text[8] = "";
	int fd;

	snprintf(p, sizeof(p), "%s/t.data.2000010100000000", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	TEST_ASSERT(fd >= 0 && write(fd, "decoy", 5) == 5, "decoy");
	close(fd);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "first");
	TEST_ASSERT(!strcmp(placed + strlen(p), "-1"), "placed as %s", placed);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "second");
	TEST_ASSERT(!strcmp(placed + strlen(p), "-2"), "placed as %s", placed);
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "third");
	/* every predictable name taken: a random suffix, never a lost file */
	TEST_ASSERT(!write_data(p, 0, placed, sizeof(placed)), "fourth");
	TEST_ASSERT(placed[strlen(p)] == '-' && strlen(placed) == strlen(p) + 7 &&
		    strspn(placed + strlen(p) + 1, "abcdefghijklmnopqrstuvwxyz0123456789") == 6,
		    "placed as %s", placed);
	fd = open(p, O_RDONLY);
	TEST_ASSERT(fd >= 0 && read(fd, decoy_text, 5) == 5 && !strcmp(decoy_text, "decoy"),
		    "the decoy was replaced");
	close(fd);
	/* the plain name keeps perf's PATH.old, and replaces an empty file */
	snprintf(p, sizeof(p), "%s/plain.data", dir);
	close(open(p, O_CREAT | O_WRONLY, 0600));
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed, p), "plain");
	strcat(p, ".old");
	TEST_ASSERT(access(p, F_OK), "an empty file was kept as .old");
	p[strlen(p) - 4] = '\0';
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed, p), "plain again");
	strcat(p, ".old");
	TEST_ASSERT(!access(p, F_OK), "no .old");
	/* .old cannot be replaced (a directory there): the data goes to a
	 * suffixed name instead of being lost */
	unlink(p);
	TEST_ASSERT(!mkdir(p, 0700), "mkdir .old");
	p[strlen(p) - 4] = '\0';
	TEST_ASSERT(!write_data(p, 1, placed, sizeof(placed)) && !strcmp(placed + strlen(p), "-1"),
		    "placed as %s", placed);
	return TEST_OK;
}

static void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[600];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (unlink(p))
			rmdir(p);
	}
	if (d)
		closedir(d);
}

static int test_output(struct test_ctx *ctx)
{
	char dir[] = "/tmp/frtest-out-XXXXXX";
	int (*const steps[])(const char *) = {
		test_check_path, test_leftovers, test_unnamed, test_no_replace,
	};
	int ret = TEST_OK;

	TEST_ASSERT(mkdtemp(dir), "mkdtemp");
	int skipped = 0;

	for (size_t i = 0; i < ARRAY_SIZE(steps) && ret != TEST_FAIL; i++) {
		ret = steps[i](dir);
		skipped |= ret == TEST_SKIP;
		clean_dir(dir);
	}
	rmdir(dir);
	if (ret != TEST_FAIL && skipped)
		TEST_SKIP_BECAUSE(ctx, "no O_TMPFILE in /tmp: the unnamed-file step did not run");
	return ret;
}

TEST_SUITE(suite_perfdata_data, "perfdata/data",
	   "perf.data writer/reader round trip and broken files; output files: checked first, "
	   "unnamed until complete, never replacing",
	   test_data, test_output);
