/* Whether a machine-description feature section holds what its counts
 * say. The stock perf trusts those counts: with a lying one it crashes or
 * reads for minutes, so such a file is refused here too. */
#include "util/header.h"

#include <errno.h>
#include <string.h>

struct cursor {
	const char *p;
	u64 left;
	int bad;
};

/* Steps over n bytes; the value of the first 8 or fewer, 0 past the end. */
static u64 cursor__take(struct cursor *c, u64 n)
{
	u64 v = 0;

	if (c->bad || n > c->left) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, MIN(n, sizeof(v)));
	c->p += n;
	c->left -= n;
	return v;
}

static u64 cursor__u32(struct cursor *c) { return cursor__take(c, 4); }
static u64 cursor__u64(struct cursor *c) { return cursor__take(c, 8); }

/* a perf_header_string: its length in the section, a NUL inside */
static void cursor__string(struct cursor *c)
{
	u64 len = cursor__u32(c);

	if (!c->bad && (len == 0 || len > c->left || !memchr(c->p, 0, len)))
		c->bad = 1;
	cursor__take(c, len);
}

static void cursor__strings(struct cursor *c, u64 n)
{
	for (u64 i = 0; i < n && !c->bad; i++)
		cursor__string(c);
}

static void cursor__caps(struct cursor *c, int with_name)
{
	cursor__strings(c, 2 * cursor__u32(c));
	if (with_name)
		cursor__string(c);
}

int header__check_feature(int feat, const void *body, u64 size)
{
	struct cursor c = { .p = body, .left = size };
	u64 n;

	switch (feat) {
	case HEADER_CPU_TOPOLOGY:	/* the per-CPU ids after the lists: any length */
		cursor__strings(&c, cursor__u32(&c));
		cursor__strings(&c, cursor__u32(&c));
		break;
	case HEADER_NUMA_TOPOLOGY:
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__take(&c, 4 + 8 + 8);
			cursor__string(&c);
		}
		break;
	case HEADER_PMU_MAPPINGS:
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__u32(&c);
			cursor__string(&c);
		}
		break;
	case HEADER_CACHE:
		cursor__u32(&c);
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__take(&c, 4 * 4);
			cursor__strings(&c, 3);
		}
		break;
	case HEADER_MEM_TOPOLOGY:
		cursor__u64(&c);
		cursor__u64(&c);
		for (n = cursor__u64(&c); n && !c.bad; n--) {
			u64 bits;

			cursor__take(&c, 8 + 8);
			bits = cursor__u64(&c);
			if (bits > c.left * 8)
				c.bad = 1;
			cursor__take(&c, ALIGN_UP(bits, 64) / 8);
		}
		break;
	case HEADER_CPU_PMU_CAPS:
		cursor__caps(&c, 0);
		break;
	case HEADER_PMU_CAPS:
		for (n = cursor__u32(&c); n && !c.bad; n--)
			cursor__caps(&c, 1);
		break;
	}
	return c.bad ? -EINVAL : 0;
}
