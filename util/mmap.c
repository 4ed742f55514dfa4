/* A perf ring buffer: mapping it, and reading its records in place or
 * copying them out, across the end of the data area. */
#include "util/mmap.h"
#include "lib/memcpy-stream.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the mirror's mapping: MMAP_MIRROR, or the ring's data if smaller */
#define MIRROR_MAP(data_bytes) MIN((size_t)MMAP_MIRROR, (data_bytes))

/* Address room for a backward ring (len: its control page and data) and
 * its mirror, the latter private memory already. */
static void *mmap__reserve_mirrored(size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return mmap(NULL, len + MIRROR_MAP(len - page), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int mmap__init(struct mmap *m, int fd, int cpu, size_t data_bytes, int backward)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *base;

	if (!is_pow2(data_bytes) || data_bytes < page)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->map_len = page + data_bytes;
	if (!backward) {
		m->scratch = malloc(1 << 16);
		if (!m->scratch)
			return -ENOMEM;
	}
	base = backward ? mmap__reserve_mirrored(page + data_bytes) :
			  mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (backward && base != MAP_FAILED &&
	    mmap(base, m->map_len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		int err = -errno;

		munmap(base, m->map_len + MIRROR_MAP(data_bytes));
		return err;
	}
	if (base == MAP_FAILED) {
		int err = -errno;

		free(m->scratch);
		m->scratch = NULL;
		return err;
	}
	m->pc = base;
	m->data = (char *)base + page;
	m->mask = data_bytes - 1;
	m->fd = fd;
	m->cpu = cpu;
	m->backward = backward;
	return 0;
}

void mmap__munmap(struct mmap *m)
{
	if (m->pc)
		munmap(m->pc, m->map_len + (m->backward ? MIRROR_MAP(m->mask + 1) : 0));
	free(m->scratch);
	if (m->own_fd)
		close(m->fd);
	m->own_fd = 0;
	m->scratch = NULL;
	m->pc = NULL;
	m->data = NULL;
}

void mmap__mirror(struct mmap *m)
{
	memcpy(m->data + m->mask + 1, m->data, MIRROR_MAP(m->mask + 1));
}

int mmap__span_iov(const struct mmap *m, u64 start, u64 end, struct iovec iov[2])
{
	u64 size = m->mask + 1, off = start & m->mask, len = end - start;

	if (!len)
		return 0;
	iov[0].iov_base = m->data + off;
	if (off + len <= size) {
		iov[0].iov_len = len;
		return 1;
	}
	iov[0].iov_len = size - off;
	iov[1].iov_base = m->data;
	iov[1].iov_len = len - (size - off);
	return 2;
}

static void mmap__copy_with(const struct mmap *m, u64 pos, void *dst, size_t len,
			    void *(*copy)(void *, const void *, size_t))
{
	u64 size = m->mask + 1, off = pos & m->mask;
	size_t first = MIN(len, size - off);

	copy(dst, m->data + off, first);
	if (len > first)
		copy((char *)dst + first, m->data, len - first);
}

void mmap__copy(const struct mmap *m, u64 pos, void *dst, size_t len)
{
	mmap__copy_with(m, pos, dst, len, memcpy);
}

void mmap__copy_bulk(const struct mmap *m, u64 pos, void *dst, size_t len)
{
	mmap__copy_with(m, pos, dst, len, memcpy_stream);
}

int mmap__for_each(const struct mmap *m, u64 start, u64 end, mmap_record_cb cb, void *arg)
{
	u64 pos = start;

	while (pos < end) {
		const struct perf_event_header *h = mmap__header(m, pos);
		int err;

		if (!event__size_ok(h->size, end - pos))
			return -EINVAL;
		err = cb(m, pos, h, arg);
		if (err)
			return err;
		pos += h->size;
	}
	return 0;
}
