/* What a dump of a full --history costs, without waiting minutes for a
 * real one to fill:
 *   bench/history-dump [-d DIR] [-r ROUNDS] [-z LEVEL] RINGSxMB...   (e.g. 2x256)
 * For each configuration, in a child of its own (its peak RSS is its own),
 * a history of MB megabytes over RINGS rings is filled until it has
 * dropped some chunks, with 88-byte samples whose ips, tasks and time
 * steps vary as a profile's do; then it is taken and written as a dump
 * (util/dump.c: decompress, index, window, merge, file; with -z as zstd
 * COMPRESSED records). One line per configuration: the fill's rate and
 * ratio, the dump's time from take to file in place, its size, peak RSS. */
#include "flight/dump.h"
#include "util/event.h"
#include "util/evlist.h"
#include "flight/history.h"
#include "util/parse-events.h"
#include "flight/tracking.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD_SIZE 88
#define ID_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* xorshift: the same profile every run */
static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fills h until it dropped a tenth of what it took in: a full history. */
static u64 fill(struct history *h, int nr)
{
	u64 rec[RECORD_SIZE / 8] = { 0 }, seed = 88172645463325252ULL, t = 1000000, n = 0;
	struct perf_event_header *hd = (void *)rec;
	int err;

	hd->type = PERF_RECORD_SAMPLE;
	hd->size = RECORD_SIZE;
	for (;;) {
		u64 r = next_rand(&seed);
		/* a hot spot: most samples in a few hundred ips of one binary */
		u64 ip = 0x400000 + ((r & 7) ? (r >> 8) % 512 : (r >> 8) % 65536) * 4;
		u32 pid = 1000 + (r >> 40) % 50;
		int slot = n % nr;

		t += 20000 + (r >> 50) % 10000;
		memcpy((char *)rec + SAMPLE_TIME_OFFSET, &t, sizeof(t));
		memcpy((char *)rec + SAMPLE_PID_OFFSET, &pid, sizeof(pid));
		memcpy((char *)rec + 16, &ip, sizeof(ip));
		rec[5] = slot;			/* CPU */
		while ((err = history__add(h, slot, hd, t)) == -EAGAIN)
			;	/* the compressor is behind: as the drain, offer it again */
		if (err)
			return 0;
		/* the compressor counts what it drops: look once in a while */
		if (++n % 65536 == 0) {
			history__sync(h);
			if (h->st.dropped_records && h->st.dropped_records * 10 >= h->st.records)
				return n;
		}
	}
}

static int run(const char *dir, int nr, u64 mb, int rounds, int level)
{
	struct dump_opts opts = { .last = 1, .history_slots = nr, .comp_level = level,
				  .comp_mmap_len = 1 << 20 };
	struct evlist *evlist = evlist__new();
	struct history *h = history__new(nr, mb << 20, 1);
	struct tracking trk;
	struct buf pending = { 0 };
	struct header_info info = { 0 };
	struct dump *d = NULL;
	u64 best = UINT64_MAX, fill_ns = 0, n = 0;
	char err[256], path[4096];
	long rss0 = peak_rss_kb();
	struct stat sb;
	int ret = 1;

	tracking__init(&trk, 0, ID_ST);
	if (!evlist || !h || parse_events(evlist, "cpu-clock", err, sizeof(err))) {
		fprintf(stderr, "history-dump: set-up failed: %s\n", h ? err : strerror(errno));
		goto out;
	}
	d = dump__new(evlist, ID_ST, &opts);
	if (!d) {
		fprintf(stderr, "history-dump: %s\n", strerror(errno));
		goto out;
	}
	info.evlist = evlist;
	snprintf(path, sizeof(path), "%s/history.data", dir);
	for (int i = 0; i < rounds; i++) {
		u64 t0 = now_ns();

		n = fill(h, nr);
		fill_ns = now_ns() - t0;
		t0 = now_ns();
		if (dump__capture(d, &trk, &pending, path, 0, &info, t0) ||
		    history__take(h, &d->take) || dump__write(d)) {
			fprintf(stderr, "history-dump: %s\n", d->errbuf);
			goto out;
		}
		best = MIN(best, now_ns() - t0);
		history__release(h, &d->take);
		if (stat(d->placed, &sb))
			sb.st_size = 0;
		unlink(d->placed);
	}
	printf("history %5lluM over %3d rings%s  filled with %llu records (%.0f MB/s, %.1f:1)  dump %8.1f ms  "
	       "file %7.1f MB (%.0f MB/s)  |  peak RSS %7.1f MB\n", (unsigned long long)mb, nr,
	       level ? " -z" : "   ", (unsigned long long)n,
	       h->st.bytes / 1048576.0 / (fill_ns / 1e9),
	       (double)h->st.chunk_bytes_in / h->st.chunk_bytes_out, best / 1e6,
	       sb.st_size / 1048576.0, sb.st_size / 1048576.0 / (best / 1e9),
	       (peak_rss_kb() - rss0) / 1024.0);
	fflush(stdout);
	ret = 0;
out:
	if (d && d->take.slot)
		history__release(h, &d->take);
	dump__delete(d);
	history__delete(h);
	evlist__delete(evlist);
	tracking__exit(&trk);
	return ret;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	int rounds = 1, level = 0, opt, failed = 0;

	while ((opt = getopt(argc, argv, "d:r:z:")) != -1) {
		if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rounds = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (opt == 'z')
			level = atoi(optarg);
		else
			return 2;
	}
	for (int i = optind; i < argc; i++) {
		int nr, status;
		unsigned long long mb;
		pid_t pid;

		if (sscanf(argv[i], "%dx%llu", &nr, &mb) != 2 || nr < 1 || nr > 4096 || !mb ||
		    mb > 65536) {
			fprintf(stderr, "history-dump: bad configuration '%s': expected RINGSxMB "
				"(MB of history in all)\n", argv[i]);
			return 2;
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run(dir, nr, mb, rounds, level));
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	return failed;
}
