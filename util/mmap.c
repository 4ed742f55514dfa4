#include "util/mmap.h"
#include "util/memcpy-stream.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	base = mmap(NULL, m->map_len, backward ? PROT_READ : PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
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
		munmap(m->pc, m->map_len);
	free(m->scratch);
	m->scratch = NULL;
	m->pc = NULL;
	m->data = NULL;
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
