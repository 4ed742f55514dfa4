/* Copies with stores that bypass the caches (non-temporal on x86-64), for
 * copies too big for them or read next by another CPU. */
#include "lib/memcpy-stream.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

/* Below this a copy stays in the caches, where whoever reads it next (the
 * index of a capture) finds it: streamed, it would miss on every line. */
#define STREAM_MIN (1U << 20)

void *memcpy_stream(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;
	size_t head = (16 - ((uintptr_t)d & 15)) & 15, blocks;

	if (n < STREAM_MIN)
		return memcpy(dst, src, n);
	/* the stores need 16-byte aligned destinations; the loads do not */
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	blocks = n / 64;
	for (size_t i = 0; i < blocks; i++, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	/* the streamed stores are weakly ordered: visible before what follows */
	_mm_sfence();
	memcpy(d, s, n % 64);
	return dst;
}

void memcpy_stream_record(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	/* movnti takes any alignment; a record's words are 8-byte aligned
	 * when the records before it are whole words */
	for (; n >= 8; n -= 8, d += 8, s += 8) {
		long long w;

		memcpy(&w, s, sizeof(w));
		_mm_stream_si64((long long *)d, w);
	}
	memcpy(d, s, n);
}

void memcpy_stream_fence(void)
{
	_mm_sfence();
}

#else

void *memcpy_stream(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}

void memcpy_stream_record(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

void memcpy_stream_fence(void)
{
	/* cached stores: the hand-over's lock orders them */
}

#endif
