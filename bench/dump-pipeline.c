/* The dump pipeline on synthetic ring images, to know what a dump costs on
 * a host with many CPUs rather than guess it from this one:
 *   bench/dump-pipeline [-d DIR] [-r ROUNDS] RINGSxMB...   (e.g. 8x8 128x8)
 * For each configuration, in a child of its own (so that its peak RSS is
 * its own), full wrapped rings of 88-byte samples whose times interleave
 * across the rings at random are captured, indexed, trimmed, merged and
 * written to a perf.data in DIR, as a dump does (util/dump.c). One line
 * per configuration: time and peak RSS per GB of ring, and peak RSS
 * against its bound (rings + capture buffers, indexes, merge slices and
 * stages). */
#include "flight/dump.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "flight/tracking.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD_SIZE 88
#define ID_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct image {
	struct perf_event_mmap_page pc;
	u64 head;
};

/* Copies len bytes to ring position pos, wrapping at the end. */
static void ring_write(struct mmap *m, u64 pos, const void *src, size_t len)
{
	u64 off = pos & m->mask, first = MIN(len, m->mask + 1 - off);

	memcpy(m->data + off, src, first);
	memcpy(m->data, (const char *)src + first, len - first);
}

/* Writes records into a backward ring as the kernel does: the head moves
 * down by the size and the record goes at the new head. Every ring's
 * times step by 1 to 2 nr at random (a seed of its own), nr on average:
 * the rings keep pace and interleave as CPUs sampling at one rate do, in
 * no fixed order, so that a merge can predict nothing. */
static void fill_ring(struct image *img, struct mmap *m, int r, int nr, u64 bytes)
{
	u64 rec[RECORD_SIZE / 8] = { 0 }, seed = 0x9e3779b97f4a7c15ULL * (r + 1), t = 1000000;
	struct perf_event_header *h = (void *)rec;
	u32 pid = 1000 + r % 50;

	h->type = PERF_RECORD_SAMPLE;
	h->size = RECORD_SIZE;
	memcpy((char *)rec + SAMPLE_PID_OFFSET, &pid, sizeof(pid));
	for (u64 k = 0; k * RECORD_SIZE < bytes; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		t += 1 + (seed >> 33) % (2 * (u64)nr);
		memcpy((char *)rec + SAMPLE_TIME_OFFSET, &t, sizeof(t));
		img->head -= RECORD_SIZE;
		ring_write(m, img->head, rec, RECORD_SIZE);
	}
	img->pc.data_head = img->head;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* The floor: as many bytes, taken from the rings in turn (1M at a time,
 * in ring order: no merge), written into a new file beside the dump. ns,
 * or 0 when the file could not be written whole. */
static u64 write_floor(const char *dir, const struct mmap *maps, int nr, u64 size, u64 bytes)
{
	char path[4096];
	u64 t0 = now_ns(), t, off = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/pipeline-floor.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	while (off < bytes) {
		u64 in_ring = off % size, len = MIN(MIN(bytes - off, 1 << 20), size - in_ring);

		if (write_all(fd, maps[(off / size) % nr].data + in_ring, len))
			break;
		off += len;
	}
	close(fd);
	t = now_ns() - t0;
	unlink(path);
	return off == bytes ? t : 0;
}

static int run(const char *dir, int nr, u64 ring_mb, int rounds)
{
	u64 size = ring_mb << 20, best_capture = UINT64_MAX, best_write = UINT64_MAX;
	u64 best_prepare = UINT64_MAX, best_floor = UINT64_MAX, best_total = UINT64_MAX;
	struct dump_opts opts = { .margin = 0, .last = 1 };
	struct image *img = calloc(nr, sizeof(*img));
	struct mmap *maps = calloc(nr, sizeof(*maps));
	struct evlist *evlist = evlist__new();
	struct tracking trk;
	struct buf pending = { 0 };
	struct header_info info = { 0 };
	struct dump *d = NULL;
	char err[256], path[4096];
	long rss0 = peak_rss_kb();
	int ret = 1;

	tracking__init(&trk, 0, ID_ST);
	if (!img || !maps || !evlist || parse_events(evlist, "cpu-clock", err, sizeof(err))) {
		fprintf(stderr, "dump-pipeline: set-up failed\n");
		goto out;
	}
	for (int r = 0; r < nr; r++) {
		maps[r].data = mmap(NULL, size, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (maps[r].data == MAP_FAILED) {
			fprintf(stderr, "dump-pipeline: %d rings of %lluM: %s\n", nr,
				(unsigned long long)ring_mb, strerror(errno));
			maps[r].data = NULL;
			goto out;
		}
		maps[r].pc = &img[r].pc;
		maps[r].mask = size - 1;
		maps[r].cpu = r;
		maps[r].backward = 1;
		/* wrapped: a torn oldest record, and every ring trimmed to the window */
		fill_ring(&img[r], &maps[r], r, nr, size + size / 2 + 8 * r);
	}
	evlist->bwd = maps;
	evlist->nr_mmaps = nr;
	d = dump__new(evlist, ID_ST, &opts);
	if (!d) {
		fprintf(stderr, "dump-pipeline: capture buffers: %s\n", strerror(errno));
		goto out;
	}
	info.evlist = evlist;
	snprintf(path, sizeof(path), "%s/pipeline.data", dir);
	for (int i = 0; i < rounds; i++) {
		int no_stop = 0;
		u64 t0;

		/* as the writer thread does between dumps: the file made ahead */
		if (dump__ready_next(d, path) || dump__warm(d, &no_stop))
			fprintf(stderr, "dump-pipeline: no file made ahead: %s\n",
				strerror(-d->ahead_err));

		/* everything in the rings is new again */
		for (int r = 0; r < nr; r++)
			d->rc[r].last_head = img[r].head + 2 * size;
		t0 = now_ns();
		if (dump__capture(d, &trk, &pending, path, 0, &info, t0) || dump__write(d)) {
			fprintf(stderr, "dump-pipeline: %s\n", d->errbuf);
			goto out;
		}
		/* each phase's best, and the best whole dump (one round's) */
		best_capture = MIN(best_capture, d->capture_ns);
		best_write = MIN(best_write, d->write_ns);
		best_prepare = MIN(best_prepare, d->prepare_ns);
		best_total = MIN(best_total, d->capture_ns + d->write_ns);
		unlink(d->placed);
		u64 floor = write_floor(dir, maps, nr, size, d->file_bytes);

		if (!floor) {
			fprintf(stderr, "dump-pipeline: %s: the floor file could not be written\n", dir);
			goto out;
		}
		best_floor = MIN(best_floor, floor);
	}
	double gb = (double)nr * size / (1ULL << 30), ms = best_total / 1e6;
	double rss_mb = (peak_rss_kb() - rss0) / 1024.0;
	double bound_mb = (nr * size + d->memory) / 1048576.0;

	printf("rings %3d x %3lluM  %6.3f GB  ms/GB: capture %6.1f  index+prelude %6.1f  "
	       "merge+write %6.1f  total %6.1f  write floor %6.1f (%4.2fx)  |  samples %llu  "
	       "peak RSS %7.1f MB (%4.2f GB/GB, bound %7.1f MB)\n", nr, (unsigned long long)ring_mb, gb, best_capture / 1e6 / gb,
	       best_prepare / 1e6 / gb, (best_write - best_prepare) / 1e6 / gb, ms / gb,
	       best_floor / 1e6 / gb, (double)(best_write - best_prepare) / best_floor,
	       (unsigned long long)d->st.samples, rss_mb, rss_mb / 1024 / gb, bound_mb);
	fflush(stdout);
	ret = 0;
out:
	dump__delete(d);
	for (int r = 0; r < nr; r++)
		if (maps && maps[r].data)
			munmap(maps[r].data, size);
	if (evlist) {
		evlist->bwd = NULL;
		evlist->nr_mmaps = 0;
	}
	evlist__delete(evlist);
	tracking__exit(&trk);
	free(maps);
	free(img);
	return ret;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	int rounds = 3, opt, failed = 0;

	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rounds = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else
			return 2;
	}
	for (int i = optind; i < argc; i++) {
		int nr;
		unsigned long long mb;
		pid_t pid;
		int status;

		if (sscanf(argv[i], "%dx%llu", &nr, &mb) != 2 || nr < 1 || nr > 4096 || !mb ||
		    mb > 4096 || (mb & (mb - 1))) {
			fprintf(stderr, "dump-pipeline: bad configuration '%s': expected RINGSxMB, "
				"MB a power of two\n", argv[i]);
			return 2;
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run(dir, nr, mb, rounds));
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	return failed;
}
