/* Whether a machine-description or BPF feature section holds what its counts
 * say. The stock perf trusts those counts: with a lying one it crashes or
 * reads for minutes, so such a file is refused here too. */
#include "perfdata/header.h"
#include "util/bpf-event.h"

#include <ctype.h>
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

/* A CPU list as sysfs writes it: N or N-M, comma-separated, or empty (a
 * node without CPUs). */
static int cpu_list_ok(const char *s)
{
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s == '-') {
			if (!isdigit((unsigned char)*++s))
				return 0;
			while (isdigit((unsigned char)*s))
				s++;
		}
		if (*s == ',' && !*++s)
			return 0;
		else if (*s && !isdigit((unsigned char)*s))
			return 0;
	}
	return 1;
}

/* a socket or die id: none (-1), or at most the number of CPUs */
static void cursor__cpu_id(struct cursor *c, u32 nr_cpus)
{
	u32 id = cursor__u32(c);

	if (id != (u32)-1 && id > nr_cpus)
		c->bad = 1;
}

/* BUILD_ID: {header, pid, u8 build_id[24], name} entries; with misc bit
 * 15 the id's length is build_id[20]. The stock perf 6.1 copies that
 * many bytes into a 20-byte id and aborts past 20 ("assertion failed at
 * util/build-id.c", stack smashing). Other faults it skips. */
static int build_id_feature__check(const char *p, u64 size)
{
	struct perf_event_header h;

	for (u64 off = 0; off + sizeof(h) + 4 + 24 <= size; off += h.size) {
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) + 4 + 24 || h.size > size - off)
			return 0;
		if ((h.misc & (1 << 15)) && (u8)p[off + sizeof(h) + 4 + 20] > 20)
			return -EINVAL;
	}
	return 0;
}

int header__check_feature(int feat, const void *body, u64 size, u32 nr_cpus)
{
	struct cursor c = { .p = body, .left = size };
	u64 n;

	switch (feat) {
	case HEADER_CPU_TOPOLOGY:
		/* the sibling lists; then, if the section goes on, each CPU's
		 * core and socket id, then the dies and each CPU's die id, for
		 * as many CPUs as NRCPUS says are available: the stock perf
		 * reads that many (past the section if need be) and gives up
		 * on every later feature at an id above that number */
		cursor__strings(&c, cursor__u32(&c));
		cursor__strings(&c, cursor__u32(&c));
		if (c.bad || !c.left)
			break;
		for (n = 0; n < nr_cpus && !c.bad; n++) {
			cursor__u32(&c);
			cursor__cpu_id(&c, nr_cpus);
		}
		if (c.bad || !c.left)
			break;
		cursor__strings(&c, cursor__u32(&c));
		for (n = 0; n < nr_cpus && !c.bad; n++)
			cursor__cpu_id(&c, nr_cpus);
		break;
	case HEADER_NUMA_TOPOLOGY:
		/* the stock perf parses each node's CPU list and, at one it
		 * cannot, reads no later feature */
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			const char *list;

			cursor__take(&c, 4 + 8 + 8);
			list = c.p + 4;
			cursor__string(&c);
			if (!c.bad && !cpu_list_ok(list))
				c.bad = 1;
		}
		break;
	case HEADER_PMU_MAPPINGS:
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__u32(&c);
			cursor__string(&c);
		}
		break;
	case HEADER_CACHE:	/* the stock perf reads version 1 only, then no later feature */
		if (cursor__u32(&c) != 1)
			c.bad = 1;
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__take(&c, 4 * 4);
			cursor__strings(&c, 3);
		}
		break;
	case HEADER_MEM_TOPOLOGY:	/* version 1 only, as CACHE */
		if (cursor__u64(&c) != 1)
			c.bad = 1;
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
	case HEADER_BPF_PROG_INFO:
		/* the stock perf gives up on every later feature at an entry
		 * longer than it knows or past the section, and follows the
		 * arrays' offsets wherever they point */
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			u32 info_len = cursor__u32(&c), data_len = cursor__u32(&c);
			u64 arrays = cursor__u64(&c);
			const char *info = c.p;

			cursor__take(&c, info_len);
			cursor__take(&c, data_len);
			if (!c.bad && bpf_prog_info__check(info, info_len, arrays, data_len))
				c.bad = 1;
		}
		break;
	case HEADER_BPF_BTF:	/* {u32 id, u32 size, data} each */
		for (n = cursor__u32(&c); n && !c.bad; n--) {
			cursor__u32(&c);
			cursor__take(&c, cursor__u32(&c));
		}
		break;
	case HEADER_PMU_CAPS:
		for (n = cursor__u32(&c); n && !c.bad; n--)
			cursor__caps(&c, 1);
		break;
	case HEADER_BUILD_ID:
		return build_id_feature__check(body, size);
	}
	return c.bad ? -EINVAL : 0;
}
