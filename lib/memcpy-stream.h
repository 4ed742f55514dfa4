/* Copies whose stores bypass the caches: big captures, and records a
 * thread on another CPU reads next. */
#ifndef PERF_MEMCPY_STREAM_H
#define PERF_MEMCPY_STREAM_H

#include <stddef.h>

/* memcpy() for copies far bigger than the caches, such as a ring's capture:
 * from 1 MiB on, the stores bypass the caches (non-temporal, on x86-64),
 * so the copy neither reads the destination's lines first nor evicts what
 * the recorder and the workload still use. Returns dst. Smaller copies,
 * and copies elsewhere, are memcpy()'s. */
void *memcpy_stream(void *dst, const void *src, size_t n);

/* A record of n bytes (perf records are whole 8-byte words) copied with
 * stores that bypass the caches, at any size: for a buffer filled record
 * by record that a thread on another CPU reads next (a dump's stages). A
 * cached store there must first take the line back from the reader's
 * cache, which in a VM whose CPUs sit far apart can make the merge
 * several times slower. The stores are weakly ordered: memcpy_stream_fence()
 * before the buffer is handed over. */
void memcpy_stream_record(void *dst, const void *src, size_t n);
void memcpy_stream_fence(void);

#endif
