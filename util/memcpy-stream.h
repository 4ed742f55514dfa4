#ifndef PERF_MEMCPY_STREAM_H
#define PERF_MEMCPY_STREAM_H

#include <stddef.h>

/* memcpy() for copies far bigger than the caches, such as a ring's capture:
 * from 1 MiB on, the stores bypass the caches (non-temporal, on x86-64),
 * so the copy neither reads the destination's lines first nor evicts what
 * the recorder and the workload still use. Returns dst. Smaller copies,
 * and copies elsewhere, are memcpy()'s. */
void *memcpy_stream(void *dst, const void *src, size_t n);

#endif
