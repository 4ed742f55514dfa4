/* A perf ring buffer (a control page and its data pages), forward or
 * backward, and the reading of its records. */
#ifndef PERF_MMAP_H
#define PERF_MMAP_H

#include <linux/perf_event.h>
#include <sys/uio.h>
#include "lib/util.h"

/* One ring buffer: a control page followed by 2^n data pages. */
struct mmap {
	struct perf_event_mmap_page *pc;
	char *data;
	u64 mask;		/* data size - 1 */
	size_t map_len;		/* the kernel's pages; a backward ring's mirror follows */
	int fd;			/* the event it was mapped from: SET_OUTPUT's target */
	int own_fd;		/* fd is the ring's to close: its event was replaced
				 * (evlist__revive_cpu()), the ring lives on in it */
	int cpu;
	int backward;		/* write_backward ring, mapped read-only */
	u64 enabled_ns;		/* CLOCK_MONOTONIC before a twin switch enabled its events */
	u64 switched_ns;	/* CLOCK_MONOTONIC once the switch away from this ring's
				 * events had every twin on, before it disabled them;
				 * 0 while they sample */
	u64 tail;		/* forward: where we read up to (backward: unused) */
	void *scratch;		/* forward: a record that wraps the end, made whole */
};

/* Maps fd's ring with data_bytes (a power of two >= page) of data. A forward
 * ring is mapped read-write (so the kernel honours data_tail) and gets a
 * scratch for the largest record (64K), a backward one read-only (so it
 * overwrites), followed by MMAP_MIRROR bytes of private memory (see
 * mmap__mirror()). 0 or -errno. */
int mmap__init(struct mmap *m, int fd, int cpu, size_t data_bytes, int backward);
/* Unmaps the ring, and closes its fd if it is the ring's own. */
void mmap__munmap(struct mmap *m);

/* The largest record: what a backward ring's mirror holds. */
#define MMAP_MIRROR (1U << 16)
/* Copies the first MMAP_MIRROR bytes of a backward ring's data (all of a
 * smaller ring) to just past its end, so that while the ring stands still
 * every record, the one crossing the end too, reads in one piece at
 * data + (pos & mask). */
void mmap__mirror(struct mmap *m);

static inline u64 mmap__read_head(const struct mmap *m)
{
	return __atomic_load_n(&m->pc->data_head, __ATOMIC_ACQUIRE);
}

static inline void mmap__write_tail(struct mmap *m, u64 tail)
{
	__atomic_store_n(&m->pc->data_tail, tail, __ATOMIC_RELEASE);
}

/* The readable bytes [start, end) of a forward ring, as one or two iovecs
 * pointing into the mapped pages (no copy). Returns the iovec count. */
int mmap__span_iov(const struct mmap *m, u64 start, u64 end, struct iovec iov[2]);

/* Copies len bytes at ring position pos (wrapping) into dst. */
void mmap__copy(const struct mmap *m, u64 pos, void *dst, size_t len);
/* The same for a whole ring's worth (a capture): memcpy_stream(), whose
 * stores bypass the caches. */
void mmap__copy_bulk(const struct mmap *m, u64 pos, void *dst, size_t len);

/* The record header at ring position pos (headers never straddle the end:
 * records are 8-byte aligned and the data size is a power of two). */
static inline const struct perf_event_header *mmap__header(const struct mmap *m, u64 pos)
{
	return (const struct perf_event_header *)(m->data + (pos & m->mask));
}

/* Walks the complete records of a forward ring span, calling cb for each
 * with its ring position. Stops early at a malformed size (returns -EINVAL)
 * or a non-zero cb return. */
typedef int (*mmap_record_cb)(const struct mmap *m, u64 pos,
			      const struct perf_event_header *h, void *arg);
int mmap__for_each(const struct mmap *m, u64 start, u64 end, mmap_record_cb cb, void *arg);

#endif
