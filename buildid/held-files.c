/* The flight recorder's binaries held open from their MMAP2 on, so that a
 * deleted binary still reaches the build-id cache. */
#include "buildid/held-files.h"
#include "buildid/dso-hits.h"
#include "buildid/dso-hits-internal.h"
#include "buildid/mapped-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define HELD_MAX 256
#define MMAP2_NAME 72	/* the filename's offset in an MMAP2 record */

struct held_files *held_files__new(void)
{
	struct held_files *h = calloc(1, sizeof(*h));
	struct rlimit rl;

	if (!h)
		return NULL;
	h->max = HELD_MAX;
	/* the events need their fds far more */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur / 8 < HELD_MAX)
		h->max = rl.rlim_cur / 8;
	h->f = calloc(h->max + 1, sizeof(*h->f));
	if (!h->f) {
		held_files__delete(h);
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

void held_files__delete(struct held_files *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nr; i++) {
		free(h->f[i].name);
		close(h->f[i].fd);
	}
	free(h->f);
	free(h);
}

/* The file an MMAP2 record maps, if it is an executable map of a file. */
static const char *mmap2_file(const struct perf_event_header *rec, const u8 **bid, int *bid_len)
{
	const char *p = (const char *)rec, *name = p + MMAP2_NAME;
	u32 prot;

	if (rec->type != PERF_RECORD_MMAP2 || rec->size <= MMAP2_NAME ||
	    (rec->misc & PERF_RECORD_MISC_MMAP_DATA) ||
	    (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return NULL;
	memcpy(&prot, p + 64, 4);
	if (!(prot & PROT_EXEC) || name[0] != '/' || !memchr(name, '\0', rec->size - MMAP2_NAME))
		return NULL;
	*bid_len = 0;
	*bid = (const u8 *)p + 44;
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		*bid_len = MIN((u8)p[40], BUILD_ID_SIZE);
	return name;
}

/* The entry of the file name (bid, or device and inode where id has them). */
static int held__find(const struct held_files *h, int nr, const char *name, const u8 *bid,
		      int bid_len, const struct mapped_file_id *id)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(h->f[i].name, name) && h->f[i].bid_len == bid_len &&
		    !memcmp(h->f[i].bid, bid, bid_len) && mapped_file_id__same(&h->f[i].id, id))
			return i;
	return -1;
}

void held_files__see(struct held_files *h, const struct perf_event_header *rec)
{
	const u8 *bid;
	int bid_len, fd;
	const char *name = mmap2_file(rec, &bid, &bid_len);
	struct mapped_file_id id;
	struct held_file *f;

	if (!name)
		return;
	mapped_file_id__from_record(rec, &id);
	if (held__find(h, h->nr, name, bid, bid_len, &id) >= 0)
		return;
	if (h->nr == h->max) {
		h->refused++;
		return;
	}
	/* the file mapped or none: a link, a FIFO or a device a user put
	 * under the name since is never opened, nor held as the binary */
	fd = mapped_file__open(name, &id);
	f = &h->f[h->nr];
	if (fd < 0 || !(f->name = strdup(name))) {
		if (fd >= 0)
			close(fd);
		h->refused++;
		return;
	}
	memcpy(f->bid, bid, bid_len);
	f->bid_len = bid_len;
	f->id = id;
	f->fd = fd;
	h->nr++;
}

void held_files__prune(struct held_files *h, const struct buf *log)
{
	unsigned char used[HELD_MAX] = { 0 };
	int n = 0;

	for (size_t off = 0; off + sizeof(struct perf_event_header) <= log->len; ) {
		const struct perf_event_header *rec = (const void *)(log->p + off);
		struct mapped_file_id id;
		const u8 *bid;
		int bid_len, i;
		const char *name;

		if (rec->size < sizeof(*rec))
			break;
		name = mmap2_file(rec, &bid, &bid_len);
		if (name)
			mapped_file_id__from_record(rec, &id);
		if (name && (i = held__find(h, h->nr, name, bid, bid_len, &id)) >= 0)
			used[i] = 1;
		off += rec->size;
	}
	for (int i = 0; i < h->nr; i++) {
		if (used[i]) {
			h->f[n++] = h->f[i];
			continue;
		}
		free(h->f[i].name);
		close(h->f[i].fd);
	}
	h->nr = n;
}

void held_files__lend(const struct held_files *h, int nr, struct dso_hits *s)
{
	for (int i = 0; i < s->nr; i++) {
		struct hit_dso *d = &s->d[i];
		int k;

		if (d->fd >= 0 || d->kernel || !dso_hits__wanted(s, d))
			continue;
		k = held__find(h, nr, d->name, d->bid, d->bid_len, &d->id);
		if (k < 0 && d->bid_len)	/* mapped before build ids were known */
			k = held__find(h, nr, d->name, d->bid, 0, &d->id);
		if (k >= 0)
			d->fd = fcntl(h->f[k].fd, F_DUPFD_CLOEXEC, 0);
	}
}
