/* Whether a machine-description or BPF feature section holds what its counts
 * say. The stock perf trusts those counts: with a lying one it crashes or
 * reads on and on, so such a file is refused here too. */
#include "perfdata/header-internal.h"
#include "util/bpf-event.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *p;
	u64 left;
	int bad;
	u32 nr_cpus;	/* NRCPUS's available CPUs (0 without it) */
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

struct cpu_range {
	unsigned long start, end;
};

static int cpu_range__cmp(const void *a, const void *b)
{
	const struct cpu_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A CPU list as the stock perf parses it (libperf's perf_cpu_map__new):
 * strtoul's numbers in any base ("0x1", "01"; "09" stops at the 9),
 * N or N-M with M >= N (a missing M is 0), comma-separated, no CPU twice
 * ("0,0", "0-2,1"); after at least one CPU it stops at anything else,
 * before one only an empty list passes (a node without CPUs). Where it
 * fails, the stock reads no later feature: in a -z file, not COMPRESSED's
 * mmap_len, so every COMPRESSED record fails. */
static int cpu_list_ok(const char *s)
{
	/* a range takes a digit and a comma at least, the last no comma */
	struct cpu_range *r = malloc((strlen(s) / 2 + 1) * sizeof(*r));
	size_t n = 0;
	int ok = r != NULL;

	while (ok && isdigit((unsigned char)*s)) {
		char *p;
		unsigned long start = strtoul(s, &p, 0), end = start;

		if (start >= INT_MAX || (*p && *p != ',' && *p != '-')) {
			ok = 0;
		} else if (*p == '-') {
			end = strtoul(p + 1, &p, 0);
			ok = end < INT_MAX && (!*p || *p == ',') && end >= start;
		}
		r[n++] = (struct cpu_range){ start, end };
		s = *p ? p + 1 : p;
	}
	ok = ok && (n || !*s);
	if (ok)
		qsort(r, n, sizeof(*r), cpu_range__cmp);
	for (size_t i = 1; ok && i < n; i++)
		ok = r[i].start > r[i - 1].end;
	free(r);
	return ok;
}

/* a socket or die id: none (-1), or at most the number of CPUs */
static void cursor__cpu_id(struct cursor *c)
{
	u32 id = cursor__u32(c);

	if (id != (u32)-1 && id > c->nr_cpus)
		c->bad = 1;
}

/* BUILD_ID: {header, pid, u8 build_id[24], name} entries; with misc bit
 * 15 the id's length is build_id[20]. The stock perf 6.1 copies that
 * many bytes into a 20-byte id and aborts past 20 ("assertion failed at
 * util/build-id.c", stack smashing). It reads an entry's name, as long
 * as the entry says, into a PATH_MAX array on its stack: a longer one
 * smashes it (it aborts from 8 KB on). Other faults it skips. */
static void check_build_id(struct cursor *c)
{
	const u64 fixed = sizeof(struct perf_event_header) + 4 + 24;
	struct perf_event_header h;

	for (u64 off = 0; off + fixed <= c->left; off += h.size) {
		memcpy(&h, c->p + off, sizeof(h));
		/* the stock reads an entry's fixed part, size byte included,
		 * before it looks at where the entry ends */
		if (((h.misc & (1 << 15)) && (u8)c->p[off + fixed - 4] > 20) ||
		    h.size > fixed + PATH_MAX) {
			c->bad = 1;
			return;
		}
		if (h.size < fixed || h.size > c->left - off)
			return;
	}
}

/* CMDLINE: nr strings. The stock perf reads them on past the section's
 * end and copies them into an array of the section's size: strings that
 * do not fit overrun its heap (it aborts or crashes on a size of 0). */
static void check_cmdline(struct cursor *c)
{
	cursor__strings(c, cursor__u32(c));
}

/* The sibling lists; then, if the section goes on, each CPU's core and
 * socket id, then the dies and each CPU's die id, for as many CPUs as
 * NRCPUS says are available: the stock perf reads that many (past the
 * section if need be) and gives up on every later feature at an id
 * above that number. */
static void check_cpu_topology(struct cursor *c)
{
	cursor__strings(c, cursor__u32(c));
	cursor__strings(c, cursor__u32(c));
	if (c->bad || !c->left)
		return;
	for (u32 n = 0; n < c->nr_cpus && !c->bad; n++) {
		cursor__u32(c);
		cursor__cpu_id(c);
	}
	if (c->bad || !c->left)
		return;
	cursor__strings(c, cursor__u32(c));
	for (u32 n = 0; n < c->nr_cpus && !c->bad; n++)
		cursor__cpu_id(c);
}

/* The stock perf parses each node's CPU list and, at one it cannot, reads
 * no later feature. */
static void check_numa_topology(struct cursor *c)
{
	for (u64 n = cursor__u32(c); n && !c->bad; n--) {
		const char *list;

		cursor__take(c, 4 + 8 + 8);
		list = c->p + 4;
		cursor__string(c);
		if (!c->bad && !cpu_list_ok(list))
			c->bad = 1;
	}
}

static void check_pmu_mappings(struct cursor *c)
{
	for (u64 n = cursor__u32(c); n && !c->bad; n--) {
		cursor__u32(c);
		cursor__string(c);
	}
}

/* The stock perf reads version 1 only, then no later feature. */
static void check_cache(struct cursor *c)
{
	if (cursor__u32(c) != 1)
		c->bad = 1;
	for (u64 n = cursor__u32(c); n && !c->bad; n--) {
		cursor__take(c, 4 * 4);
		cursor__strings(c, 3);
	}
}

/* Version 1 only, as CACHE. */
static void check_mem_topology(struct cursor *c)
{
	if (cursor__u64(c) != 1)
		c->bad = 1;
	cursor__u64(c);
	for (u64 n = cursor__u64(c); n && !c->bad; n--) {
		u64 bits;

		cursor__take(c, 8 + 8);
		bits = cursor__u64(c);
		if (bits > c->left * 8)
			c->bad = 1;
		cursor__take(c, ALIGN_UP(bits, 64) / 8);
	}
}

static void check_cpu_pmu_caps(struct cursor *c)
{
	cursor__caps(c, 0);
}

/* The stock perf gives up on every later feature at an entry longer than
 * it knows or past the section, and follows the arrays' offsets wherever
 * they point. */
static void check_bpf_prog_info(struct cursor *c)
{
	for (u64 n = cursor__u32(c); n && !c->bad; n--) {
		u32 info_len = cursor__u32(c), data_len = cursor__u32(c);
		u64 arrays = cursor__u64(c);
		const char *info = c->p;

		cursor__take(c, info_len);
		cursor__take(c, data_len);
		if (!c->bad && bpf_prog_info__check(info, info_len, arrays, data_len))
			c->bad = 1;
	}
}

/* {u32 id, u32 size, data} each */
static void check_bpf_btf(struct cursor *c)
{
	for (u64 n = cursor__u32(c); n && !c->bad; n--) {
		cursor__u32(c);
		cursor__take(c, cursor__u32(c));
	}
}

static void check_pmu_caps(struct cursor *c)
{
	for (u64 n = cursor__u32(c); n && !c->bad; n--)
		cursor__caps(c, 1);
}

/* The features whose counts the stock perf trusts; others hold nothing
 * that can mislead it. */
static void (*const feature_checks[])(struct cursor *c) = {
	[HEADER_BUILD_ID] = check_build_id,
	[HEADER_CMDLINE] = check_cmdline,
	[HEADER_CPU_TOPOLOGY] = check_cpu_topology,
	[HEADER_NUMA_TOPOLOGY] = check_numa_topology,
	[HEADER_PMU_MAPPINGS] = check_pmu_mappings,
	[HEADER_CACHE] = check_cache,
	[HEADER_MEM_TOPOLOGY] = check_mem_topology,
	[HEADER_BPF_PROG_INFO] = check_bpf_prog_info,
	[HEADER_BPF_BTF] = check_bpf_btf,
	[HEADER_CPU_PMU_CAPS] = check_cpu_pmu_caps,
	[HEADER_PMU_CAPS] = check_pmu_caps,
};

int header__check_feature(int feat, const void *body, u64 size, u32 nr_cpus)
{
	struct cursor c = { .p = body, .left = size, .nr_cpus = nr_cpus };

	if (feat < 0 || feat >= (int)ARRAY_SIZE(feature_checks) || !feature_checks[feat])
		return 0;
	feature_checks[feat](&c);
	return c.bad ? -EINVAL : 0;
}
