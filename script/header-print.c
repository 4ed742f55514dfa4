/* perf script --header, --header-only and -I: the "# ========" block the
 * stock perf 6.1 prints, line for line, from a perf.data's header and its
 * feature sections, one function per feature. The sections come from a
 * hostile file: every count and string is read within its section, and a
 * section that does not parse prints what the stock prints of it, or
 * nothing. */
#include "script/header-print.h"
#include "script/script.h"
#include "perfdata/reader.h"
#include "lib/cursor.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A feature's body, read in order. */
struct hp {
	const struct perf_reader *r;
	FILE *out;
	int full;
};

static u32 cur__u32(struct cursor *c) { return cursor__uint(c, 4); }
static u64 cur__u64(struct cursor *c) { return cursor__uint(c, 8); }

/* A perf string (u32 length, bytes padded with NULs): to its first NUL;
 * "" after a bad read. */
static const char *cur__str(struct cursor *c, int *len)
{
	u32 n = cur__u32(c);
	const char *s = cursor__take(c, n);

	*len = s ? (int)strnlen(s, n) : 0;
	return s ? s : "";
}


/* ---- ranges, as the stock prints a CPU map and a bitmap ---- */

/* The set bits of bits (nbits long) as "a-b,c", at most cap characters,
 * cut as the stock cuts its buffer. */
static void print_ranges(FILE *out, const u64 *bits, u64 nbits, size_t cap)
{
	char buf[1024];
	size_t len = 0;
	u64 i = 0;

	cap = MIN(cap, sizeof(buf) - 1);
	buf[0] = 0;
	while (i < nbits && len < cap) {
		u64 lo, hi;

		if (!(bits[i / 64] >> (i % 64) & 1)) {
			i++;
			continue;
		}
		lo = hi = i;
		while (hi + 1 < nbits && bits[(hi + 1) / 64] >> ((hi + 1) % 64) & 1)
			hi++;
		if (lo == hi)
			len += snprintf(buf + len, cap + 1 - len, "%s%" PRIu64, len ? "," : "", lo);
		else
			len += snprintf(buf + len, cap + 1 - len, "%s%" PRIu64 "-%" PRIu64,
					len ? "," : "", lo, hi);
		i = hi + 1;
	}
	fputs(buf, out);
}

#define MAX_CPUS 65536

/* A CPU list ("0-3,7") printed as the stock reprints it: sorted, without
 * repeats, runs joined; as it is if it is no list. */
static void print_cpu_list(FILE *out, const char *s, int len)
{
	u64 *bits = calloc(MAX_CPUS / 64, sizeof(u64));
	const char *p = s, *end = s + len;
	int ok = bits != NULL;

	while (ok && p < end) {
		char *e;
		unsigned long lo = strtoul(p, &e, 10), hi = lo;

		if (e == p || e > end)
			ok = 0;
		else if (*e == '-' && e + 1 < end)
			hi = strtoul(e + 1, &e, 10);
		if (!ok || lo > hi || hi >= MAX_CPUS || e > end || (e < end && *e != ','))
			ok = 0;
		for (unsigned long c = lo; ok && c <= hi; c++)
			bits[c / 64] |= 1ULL << (c % 64);
		p = e + 1;
	}
	if (ok)
		print_ranges(out, bits, MAX_CPUS, 1023);
	else
		fprintf(out, "%.*s", len, s);
	fputc('\n', out);
	free(bits);
}

/* ---- the features ---- */

static void print_string(const struct hp *h, struct cursor *c, const char *what)
{
	int len;
	const char *s = cur__str(c, &len);

	if (!c->bad)
		fprintf(h->out, "# %s : %.*s\n", what, len, s);
}

static void print_hostname(const struct hp *h, struct cursor *c) { print_string(h, c, "hostname"); }
static void print_osrelease(const struct hp *h, struct cursor *c) { print_string(h, c, "os release"); }
static void print_version(const struct hp *h, struct cursor *c) { print_string(h, c, "perf version"); }
static void print_arch(const struct hp *h, struct cursor *c) { print_string(h, c, "arch"); }
static void print_cpudesc(const struct hp *h, struct cursor *c) { print_string(h, c, "cpudesc"); }
static void print_cpuid(const struct hp *h, struct cursor *c) { print_string(h, c, "cpuid"); }

static void print_nrcpus(const struct hp *h, struct cursor *c)
{
	u32 avail = cur__u32(c), online = cur__u32(c);

	if (!c->bad)
		fprintf(h->out, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
}

static void print_total_mem(const struct hp *h, struct cursor *c)
{
	u64 kb = cur__u64(c);

	if (!c->bad)
		fprintf(h->out, "# total memory : %" PRIu64 " kB\n", kb);
}

/* Each argument and a space; a ' in one is written \'. */
static void print_cmdline(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c);

	fputs("# cmdline : ", h->out);
	for (u32 i = 0; i < nr && !c->bad; i++) {
		int len;
		const char *s = cur__str(c, &len);

		for (int k = 0; k < len; k++) {
			if (s[k] == '\'')
				fputs("\\'", h->out);
			else
				fputc(s[k], h->out);
		}
		fputc(' ', h->out);
	}
	fputc('\n', h->out);
}

/* ---- EVENT_DESC: the attrs, each field that is not zero ---- */

enum attr_fmt { A_UNSIGNED, A_HEX, A_SIGNED, A_SAMPLE_TYPE, A_READ_FORMAT, A_BRANCH };

struct attr_field {
	const char *name;
	u16 off;
	u8 size, shift, bits, fmt;
};

#define ATTR_SIZE_61 128	/* the stock 6.1's struct perf_event_attr */
#define FLAGS_OFF (offsetof(struct perf_event_attr, read_format) + 8)
#define AF(n, f, fmt) { n, offsetof(struct perf_event_attr, f), \
			sizeof(((struct perf_event_attr *)0)->f), 0, 0, fmt }
#define AB(f, shift, bits) { #f, FLAGS_OFF, 8, shift, bits, A_UNSIGNED }

/* The stock's order and spelling. */
static const struct attr_field attr_fields[] = {
	AF("type", type, A_UNSIGNED), AF("size", size, A_UNSIGNED),
	AF("config", config, A_HEX),
	AF("{ sample_period, sample_freq }", sample_period, A_UNSIGNED),
	AF("sample_type", sample_type, A_SAMPLE_TYPE),
	AF("read_format", read_format, A_READ_FORMAT),
	AB(disabled, 0, 1), AB(inherit, 1, 1), AB(pinned, 2, 1), AB(exclusive, 3, 1),
	AB(exclude_user, 4, 1), AB(exclude_kernel, 5, 1), AB(exclude_hv, 6, 1),
	AB(exclude_idle, 7, 1), AB(mmap, 8, 1), AB(comm, 9, 1), AB(freq, 10, 1),
	AB(inherit_stat, 11, 1), AB(enable_on_exec, 12, 1), AB(task, 13, 1),
	AB(watermark, 14, 1), AB(precise_ip, 15, 2), AB(mmap_data, 17, 1),
	AB(sample_id_all, 18, 1), AB(exclude_host, 19, 1), AB(exclude_guest, 20, 1),
	AB(exclude_callchain_kernel, 21, 1), AB(exclude_callchain_user, 22, 1),
	AB(mmap2, 23, 1), AB(comm_exec, 24, 1), AB(use_clockid, 25, 1),
	AB(context_switch, 26, 1), AB(write_backward, 27, 1), AB(namespaces, 28, 1),
	AB(ksymbol, 29, 1), AB(bpf_event, 30, 1), AB(aux_output, 31, 1), AB(cgroup, 32, 1),
	AB(text_poke, 33, 1), AB(build_id, 34, 1), AB(inherit_thread, 35, 1),
	AB(remove_on_exec, 36, 1), AB(sigtrap, 37, 1),
	AF("{ wakeup_events, wakeup_watermark }", wakeup_events, A_UNSIGNED),
	AF("bp_type", bp_type, A_UNSIGNED),
	AF("{ bp_addr, config1 }", bp_addr, A_HEX),
	AF("{ bp_len, config2 }", bp_len, A_HEX),
	AF("branch_sample_type", branch_sample_type, A_BRANCH),
	AF("sample_regs_user", sample_regs_user, A_HEX),
	AF("sample_stack_user", sample_stack_user, A_UNSIGNED),
	AF("clockid", clockid, A_SIGNED),
	AF("sample_regs_intr", sample_regs_intr, A_HEX),
	AF("aux_watermark", aux_watermark, A_UNSIGNED),
	AF("sample_max_stack", sample_max_stack, A_UNSIGNED),
	AF("aux_sample_size", aux_sample_size, A_UNSIGNED),
	AF("sig_data", sig_data, A_UNSIGNED),
};

struct bit_name {
	u64 bit;
	const char *name;
};

#define BN(p, n) { p##n, #n }
static const struct bit_name sample_type_names[] = {
	BN(PERF_SAMPLE_, IP), BN(PERF_SAMPLE_, TID), BN(PERF_SAMPLE_, TIME),
	BN(PERF_SAMPLE_, ADDR), BN(PERF_SAMPLE_, READ), BN(PERF_SAMPLE_, CALLCHAIN),
	BN(PERF_SAMPLE_, ID), BN(PERF_SAMPLE_, CPU), BN(PERF_SAMPLE_, PERIOD),
	BN(PERF_SAMPLE_, STREAM_ID), BN(PERF_SAMPLE_, RAW), BN(PERF_SAMPLE_, BRANCH_STACK),
	BN(PERF_SAMPLE_, REGS_USER), BN(PERF_SAMPLE_, STACK_USER), BN(PERF_SAMPLE_, IDENTIFIER),
	BN(PERF_SAMPLE_, REGS_INTR), BN(PERF_SAMPLE_, DATA_SRC), BN(PERF_SAMPLE_, WEIGHT),
	BN(PERF_SAMPLE_, PHYS_ADDR), BN(PERF_SAMPLE_, AUX), BN(PERF_SAMPLE_, CGROUP),
	BN(PERF_SAMPLE_, DATA_PAGE_SIZE), BN(PERF_SAMPLE_, CODE_PAGE_SIZE),
	BN(PERF_SAMPLE_, WEIGHT_STRUCT), { 0, NULL }
};

static const struct bit_name read_format_names[] = {
	BN(PERF_FORMAT_, TOTAL_TIME_ENABLED), BN(PERF_FORMAT_, TOTAL_TIME_RUNNING),
	BN(PERF_FORMAT_, ID), BN(PERF_FORMAT_, GROUP), BN(PERF_FORMAT_, LOST), { 0, NULL }
};

static const struct bit_name branch_names[] = {
	BN(PERF_SAMPLE_BRANCH_, USER), BN(PERF_SAMPLE_BRANCH_, KERNEL),
	BN(PERF_SAMPLE_BRANCH_, HV), BN(PERF_SAMPLE_BRANCH_, ANY),
	BN(PERF_SAMPLE_BRANCH_, ANY_CALL), BN(PERF_SAMPLE_BRANCH_, ANY_RETURN),
	BN(PERF_SAMPLE_BRANCH_, IND_CALL), BN(PERF_SAMPLE_BRANCH_, ABORT_TX),
	BN(PERF_SAMPLE_BRANCH_, IN_TX), BN(PERF_SAMPLE_BRANCH_, NO_TX),
	BN(PERF_SAMPLE_BRANCH_, COND), BN(PERF_SAMPLE_BRANCH_, CALL_STACK),
	BN(PERF_SAMPLE_BRANCH_, IND_JUMP), BN(PERF_SAMPLE_BRANCH_, CALL),
	BN(PERF_SAMPLE_BRANCH_, NO_FLAGS), BN(PERF_SAMPLE_BRANCH_, NO_CYCLES),
	BN(PERF_SAMPLE_BRANCH_, TYPE_SAVE), BN(PERF_SAMPLE_BRANCH_, HW_INDEX),
	BN(PERF_SAMPLE_BRANCH_, PRIV_SAVE), { 0, NULL }
};

/* The names of v's bits; buf as it was if none is known: the stock
 * formats into a buffer it reuses and prints it whatever was written. */
static void format_bits(char *buf, size_t sz, u64 v, const struct bit_name *names)
{
	size_t len = 0;

	for (; names->name; names++)
		if ((v & names->bit) && len < sz)
			len += snprintf(buf + len, sz - len, "%s%s", len ? "|" : "", names->name);
}

static void format_attr_field(char *buf, size_t sz, const struct attr_field *f, u64 v)
{
	switch (f->fmt) {
	case A_HEX:
		snprintf(buf, sz, "%#" PRIx64, v);
		break;
	case A_SIGNED:	/* clockid, an int */
		snprintf(buf, sz, "%" PRId64, (s64)(s32)v);
		break;
	case A_SAMPLE_TYPE:
		format_bits(buf, sz, v, sample_type_names);
		break;
	case A_READ_FORMAT:
		format_bits(buf, sz, v, read_format_names);
		break;
	case A_BRANCH:
		format_bits(buf, sz, v, branch_names);
		break;
	default:
		snprintf(buf, sz, "%" PRIu64, v);
	}
}

static u64 attr__get(const unsigned char *attr, const struct attr_field *f)
{
	u64 v = 0;

	memcpy(&v, attr + f->off, f->size);
	return f->bits ? (v >> f->shift) & ((1ULL << f->bits) - 1) : v;
}

/* The attr's fields that are not zero, as ", name = value". */
static void print_attr(FILE *out, const unsigned char *attr)
{
	char val[512] = "";

	for (size_t i = 0; i < ARRAY_SIZE(attr_fields); i++) {
		const struct attr_field *f = &attr_fields[i];
		u64 v = attr__get(attr, f);

		if (!v)
			continue;
		format_attr_field(val, sizeof(val), f, v);
		fprintf(out, ", %s = %s", f->name, val);
	}
}

/* What perf 6.1 knows of an attr: it refuses one with reserved bits or
 * sample_type, read_format or branch bits beyond its own. */
#define SAMPLE_MAX_61 (1ULL << 25)
#define FORMAT_MAX_61 (1ULL << 5)
#define BRANCH_MAX_61 (1ULL << 19)

static int attr__known(const unsigned char *a)
{
	u64 flags, st, rf, bst;
	u16 res2;
	u32 res3;

	memcpy(&flags, a + FLAGS_OFF, sizeof(flags));
	memcpy(&st, a + offsetof(struct perf_event_attr, sample_type), sizeof(st));
	memcpy(&rf, a + offsetof(struct perf_event_attr, read_format), sizeof(rf));
	memcpy(&bst, a + offsetof(struct perf_event_attr, branch_sample_type), sizeof(bst));
	memcpy(&res2, a + offsetof(struct perf_event_attr, __reserved_2), sizeof(res2));
	memcpy(&res3, a + offsetof(struct perf_event_attr, __reserved_3), sizeof(res3));
	return !(flags >> 38) && !res2 && !res3 && !(st & ~(SAMPLE_MAX_61 - 1)) &&
	       !(rf & ~(FORMAT_MAX_61 - 1)) &&
	       !((st & PERF_SAMPLE_BRANCH_STACK) && (bst & ~(BRANCH_MAX_61 - 1)));
}

/* One event: attr, u32 nr_ids, name, ids. 0, 1 at an attr of size 0 (the
 * stock's end of the list), -1 if it does not parse. */
static int event_desc__one(struct cursor *c, u32 sz, FILE *out)
{
	unsigned char attr[ATTR_SIZE_61] = { 0 };
	const void *a = cursor__take(c, sz);
	u32 nr_ids = cur__u32(c), size;
	int len;
	const char *name = cur__str(c, &len);
	const u64 *ids = cursor__take(c, (u64)nr_ids * 8);

	if (c->bad)
		return -1;
	memcpy(attr, a, MIN(sz, sizeof(attr)));
	if (!attr__known(attr))
		return -1;
	memcpy(&size, attr + offsetof(struct perf_event_attr, size), sizeof(size));
	if (!out || !size)
		return !size;
	fprintf(out, "# event : name = %.*s, ", len, name);
	if (nr_ids) {
		fputs(", id = {", out);
		for (u32 j = 0; j < nr_ids; j++) {
			u64 id;

			memcpy(&id, ids + j, sizeof(id));
			fprintf(out, "%s %" PRIu64, j ? "," : "", id);
		}
		fputs(" }", out);
	}
	print_attr(out, attr);
	fputc('\n', out);
	return 0;
}

/* The whole section parses or nothing is printed, as with the stock. */
static void print_event_desc(const struct hp *h, struct cursor *c)
{
	struct cursor again;
	u32 nr = cur__u32(c), sz = cur__u32(c);
	int rc = 0;

	again = *c;
	for (u32 i = 0; i < nr && rc >= 0; i++)
		rc = event_desc__one(c, sz, NULL) < 0 ? -1 : 0;
	if (rc < 0 || c->bad) {
		fputs("# event desc: not available or unable to read\n", h->out);
		return;
	}
	for (u32 i = 0; i < nr && !rc; i++)
		rc = event_desc__one(&again, sz, h->out);
}

/* ---- the machine's layout ---- */

static u32 nr_cpus_avail(const struct hp *h)
{
	u64 size = 0;
	const void *p = reader__feature(h->r, HEADER_NRCPUS, &size);
	u32 nr = 0;

	if (p && size >= sizeof(nr))
		memcpy(&nr, p, sizeof(nr));
	return nr;
}

/* A u32 count of strings, then the strings: skipped; the count. */
static u32 skip_strings(struct cursor *c)
{
	u32 nr = cur__u32(c);

	for (u32 i = 0; i < nr && !c->bad; i++)
		cur__str(c, &(int){ 0 });
	return nr;
}

static void print_siblings(const struct hp *h, struct cursor c, const char *what)
{
	u32 nr = cur__u32(&c);

	for (u32 i = 0; i < nr && !c.bad; i++) {
		int len;
		const char *s = cur__str(&c, &len);

		fprintf(h->out, "# sibling %s : %.*s\n", what, len, s);
	}
}

/* Where CPU_TOPOLOGY's parts are: cores and threads, then (newer files)
 * each CPU's core and socket, then dies and each CPU's die. */
struct topology {
	struct cursor cores, threads, dies, ids, die_ids;
	int has_ids;
	u32 nr_dies;
};

static int topology__parse(struct topology *t, struct cursor *c, u32 nr_cpus)
{
	t->cores = *c;
	skip_strings(c);
	t->threads = *c;
	skip_strings(c);
	if (cursor__left(c)) {
		t->has_ids = 1;
		t->ids = *c;
		cursor__take(c, (u64)nr_cpus * 8);
	}
	if (cursor__left(c)) {
		t->dies = *c;
		t->nr_dies = skip_strings(c);
		t->die_ids = *c;
		cursor__take(c, (u64)nr_cpus * 4);
	}
	return c->bad ? -1 : 0;
}

static void print_cpu_topology(const struct hp *h, struct cursor *c)
{
	struct topology t = { .has_ids = 0 };
	u32 nr = nr_cpus_avail(h);

	if (topology__parse(&t, c, nr))
		return;
	print_siblings(h, t.cores, "sockets");
	if (t.nr_dies)
		print_siblings(h, t.dies, "dies   ");
	print_siblings(h, t.threads, "threads");
	if (!t.has_ids) {
		fputs(t.nr_dies ? "# Core ID, Die ID and Socket ID information is not available\n"
		      : "# Core ID and Socket ID information is not available\n", h->out);
		return;
	}
	for (u32 i = 0; i < nr; i++) {
		int core = cur__u32(&t.ids), socket = cur__u32(&t.ids);

		if (t.nr_dies)
			fprintf(h->out, "# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i, core,
				(int)cur__u32(&t.die_ids), socket);
		else
			fprintf(h->out, "# CPU %u: Core ID %d, Socket ID %d\n", i, core, socket);
	}
}

static void print_numa_topology(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c);

	for (u32 i = 0; i < nr && !c->bad; i++) {
		u32 node = cur__u32(c);
		u64 total = cur__u64(c), free_kb = cur__u64(c);
		int len;
		const char *cpus = cur__str(c, &len);

		if (c->bad)
			return;
		fprintf(h->out, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			node, total, free_kb);
		fprintf(h->out, "# node%u cpu list : ", node);
		print_cpu_list(h->out, cpus, len);
	}
}

static void print_branch_stack(const struct hp *h, struct cursor *c)
{
	(void)c;
	fputs("# contains samples with branch stack\n", h->out);
}

static void print_auxtrace(const struct hp *h, struct cursor *c)
{
	(void)c;
	fputs("# contains AUX area data (e.g. instruction trace)\n", h->out);
}

static void print_stat(const struct hp *h, struct cursor *c)
{
	(void)c;
	fputs("# contains stat data\n", h->out);
}

static void print_pmu_mappings(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c);
	const char *sep = "";

	if (!nr) {
		fputs("# pmu mappings: not available\n", h->out);
		return;
	}
	fputs("# pmu mappings: ", h->out);
	for (u32 i = 0; i < nr && !c->bad; i++) {
		u32 type = cur__u32(c);
		int len;
		const char *name = cur__str(c, &len);

		if (!c->bad)
			fprintf(h->out, "%s%.*s = %u", sep, len, name, type);
		sep = ", ";
	}
	fputc('\n', h->out);
}

/* Each group of more than one event: {leader,member...}, named unless
 * anonymous; the events' names are the reader's. */
static void print_group_desc(const struct hp *h, struct cursor *c)
{
	const struct perf_reader *r = h->r;
	u32 nr = cur__u32(c);

	for (u32 i = 0; i < nr && !c->bad; i++) {
		int len;
		const char *name = cur__str(c, &len);
		u32 leader = cur__u32(c), members = cur__u32(c);

		if (c->bad || members < 2 || leader >= (u32)r->nr_evsels ||
		    members > (u32)r->nr_evsels - leader)
			continue;
		if (!strncmp(name, "{anon_group}", MAX(len, 12)))
			len = 0;
		fprintf(h->out, "# group: %.*s{%s", len, name, r->evsels[leader].name);
		for (u32 m = 1; m < members; m++)
			fprintf(h->out, ",%s", r->evsels[leader + m].name);
		fputs("}\n", h->out);
	}
}

static void print_cache(const struct hp *h, struct cursor *c)
{
	u32 version = cur__u32(c), nr = cur__u32(c);

	if (c->bad || version != 1)
		return;
	fputs("# CPU cache info:\n", h->out);
	for (u32 i = 0; i < nr && !c->bad; i++) {
		u32 level = cur__u32(c);
		int tlen, slen, mlen;
		const char *type, *size, *map;

		cursor__take(c, 12);	/* line size, sets, ways */
		type = cur__str(c, &tlen);
		size = cur__str(c, &slen);
		map = cur__str(c, &mlen);
		if (!c->bad)
			fprintf(h->out, "#  L%d %-15.*s %8.*s [%.*s]\n", (int)level, tlen, type, slen,
				size, mlen, map);
	}
}

static void print_usec_time(FILE *out, const char *what, u64 ns)
{
	fprintf(out, "# time of %s sample : %" PRIu64 ".%06" PRIu64 "\n", what,
		ns / 1000000000, ns % 1000000000 / 1000);
}

static void print_sample_time(const struct hp *h, struct cursor *c)
{
	u64 first = cur__u64(c), last = cur__u64(c);

	if (c->bad)
		return;
	print_usec_time(h->out, "first", first);
	print_usec_time(h->out, "last", last);
	fprintf(h->out, "# sample duration : %10.3f ms\n", (double)(last - first) / 1000000);
}

/* A size with the stock's unit: divided while more than 1 of the next. */
static void print_unit(char *buf, size_t sz, u64 n)
{
	static const char unit[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, sz, "%" PRIu64 "%c", n, unit[i]);
}

/* Each node: its id, its size in blocks and the blocks it has. */
static void print_mem_topology(const struct hp *h, struct cursor *c)
{
	u64 version = cur__u64(c), bsize = cur__u64(c), nr = cur__u64(c);

	if (c->bad || version != 1)
		return;
	fprintf(h->out, "# memory nodes (nr %d, block size 0x%llx):\n", (int)nr,
		(unsigned long long)bsize);
	for (u64 i = 0; i < nr && !c->bad; i++) {
		u64 node = cur__u64(c), nbits, words, weight = 0, *set;
		const void *at;
		char size[50];

		cur__u64(c);	/* the size again: the bitmap's own counts */
		nbits = cur__u64(c);
		words = nbits / 64 + !!(nbits % 64);
		at = nbits / 8 <= c->size ? cursor__take(c, words * 8) : NULL;
		set = at ? malloc(words * 8 + 8) : NULL;
		if (!set)
			return;
		memcpy(set, at, words * 8);	/* aligned: the section's are not */
		for (u64 w = 0; w < words; w++)
			weight += __builtin_popcountll(set[w] & (w == nbits / 64 ?
							 (1ULL << (nbits % 64)) - 1 : ~0ULL));
		print_unit(size, sizeof(size), bsize * weight);
		fprintf(h->out, "#  %3" PRIu64 " [%s]: ", node, size);
		print_ranges(h->out, set, nbits, 99);
		fputc('\n', h->out);
		free(set);
	}
}

static void print_clockid(const struct hp *h, struct cursor *c)
{
	u64 res = cur__u64(c);

	if (!c->bad)
		fprintf(h->out, "# clockid frequency: %" PRIu64 " MHz\n", res * 1000);
}

static void print_dir_format(const struct hp *h, struct cursor *c)
{
	u64 version = cur__u64(c);

	if (!c->bad)
		fprintf(h->out, "# directory data version : %" PRIu64 "\n", version);
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Each BTF's id, ascending, once. */
static void print_bpf_btf(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c), *ids = calloc(nr ? nr : 1, sizeof(*ids)), n = 0;

	for (u32 i = 0; ids && i < nr && !c->bad; i++) {
		u32 id = cur__u32(c), size = cur__u32(c);

		if (cursor__take(c, size))
			ids[n++] = id;
	}
	if (ids)
		qsort(ids, n, sizeof(*ids), cmp_u32);
	for (u32 i = 0; ids && i < n; i++)
		if (!i || ids[i] != ids[i - 1])
			fprintf(h->out, "# btf info of id %u\n", ids[i]);
	free(ids);
}

static void print_compressed(const struct hp *h, struct cursor *c)
{
	u32 version = cur__u32(c), type = cur__u32(c), level = cur__u32(c), ratio = cur__u32(c);

	(void)version;
	if (!c->bad)
		fprintf(h->out, "# compressed : %s, level = %d, ratio = %d\n",
			type == 1 ? "Zstd" : "Unknown", (int)level, (int)ratio);
}

/* A PMU's capabilities: "name=value", ", " between. */
static void print_caps(const struct hp *h, struct cursor *c, u32 nr, const char *pmu, int plen)
{
	if (!nr) {
		fprintf(h->out, "# %.*s pmu capabilities: not available\n", plen, pmu);
		return;
	}
	fprintf(h->out, "# %.*s pmu capabilities: ", plen, pmu);
	for (u32 i = 0; i < nr && !c->bad; i++) {
		int nlen, vlen;
		const char *name = cur__str(c, &nlen), *val = cur__str(c, &vlen);

		fprintf(h->out, "%s%.*s=%.*s", i ? ", " : "", nlen, name, vlen, val);
	}
	fputc('\n', h->out);
}

static void print_cpu_pmu_caps(const struct hp *h, struct cursor *c)
{
	struct cursor v = *c;
	u32 nr = cur__u32(c);

	for (u32 i = 0; i < 2 * nr && !c->bad; i++)
		cur__str(c, &(int){ 0 });
	if (c->bad)
		return;
	cur__u32(&v);
	print_caps(h, &v, nr, "cpu", 3);
}

/* Each PMU: u32 count, its name=value pairs, then its name. */
static void print_pmu_caps(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c);

	for (u32 i = 0; i < nr && !c->bad; i++) {
		struct cursor v = *c;
		u32 caps = cur__u32(c);
		int len;
		const char *pmu;

		for (u32 k = 0; k < 2 * caps && !c->bad; k++)
			cur__str(c, &(int){ 0 });
		pmu = cur__str(c, &len);
		if (c->bad)
			return;
		cur__u32(&v);
		print_caps(h, &v, caps, pmu, len);
	}
}

static const char *clockid_name(u32 id)
{
	static const struct { u32 id; const char *name; } names[] = {
		{ CLOCK_MONOTONIC, "monotonic" }, { CLOCK_REALTIME, "realtime" },
		{ CLOCK_MONOTONIC_RAW, "monotonic_raw" }, { CLOCK_BOOTTIME, "boottime" },
		{ CLOCK_TAI, "tai" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].id == id)
			return names[i].name;
	return "(not found)";
}

/* The clock the events use and a time of day read with it. */
static void print_clock_data(const struct hp *h, struct cursor *c)
{
	u32 version = cur__u32(c), clockid = cur__u32(c);
	u64 tod = cur__u64(c), clk = cur__u64(c);
	time_t sec = tod / 1000000000;
	int usec = (int)(tod % 1000000000) / 1000;
	char date[64] = "<error>";
	struct tm tm;

	if (c->bad || version != 1) {
		fputs("# reference time disabled\n", h->out);
		return;
	}
	if (localtime_r(&sec, &tm)) {
		char day[32];

		strftime(day, sizeof(day), "%F %T", &tm);
		snprintf(date, sizeof(date), "%s.%06d", day, usec);
	}
	fprintf(h->out, "# clockid: %s (%u)\n", clockid_name(clockid), clockid);
	fprintf(h->out, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", date,
		(long)sec, usec, (long)(clk / 1000000000), (long)(clk % 1000000000),
		clockid_name(clockid));
}

static void print_hybrid_topology(const struct hp *h, struct cursor *c)
{
	u32 nr = cur__u32(c);

	fputs("# hybrid cpu system:\n", h->out);
	for (u32 i = 0; i < nr && !c->bad; i++) {
		int plen, clen;
		const char *pmu = cur__str(c, &plen), *cpus = cur__str(c, &clen);

		if (!c->bad)
			fprintf(h->out, "# %.*s cpu list : %.*s\n", plen, pmu, clen, cpus);
	}
}

/* ---- the table and the block ---- */

#define HEADER_LAST_FEATURE_61 32	/* the stock 6.1 knows the features below */

struct feature_print {
	void (*print)(const struct hp *h, struct cursor *c);
	int full_only;	/* its lines only with -I, else a line saying so */
};

#define FP(f, fn, full) [HEADER_##f] = { fn, full }
static const struct feature_print features[HEADER_LAST_FEATURE_61] = {
	FP(TRACING_DATA, NULL, 0), FP(BUILD_ID, NULL, 0),
	FP(HOSTNAME, print_hostname, 0), FP(OSRELEASE, print_osrelease, 0),
	FP(VERSION, print_version, 0), FP(ARCH, print_arch, 0),
	FP(NRCPUS, print_nrcpus, 0), FP(CPUDESC, print_cpudesc, 0),
	FP(CPUID, print_cpuid, 0), FP(TOTAL_MEM, print_total_mem, 0),
	FP(CMDLINE, print_cmdline, 0), FP(EVENT_DESC, print_event_desc, 0),
	FP(CPU_TOPOLOGY, print_cpu_topology, 1), FP(NUMA_TOPOLOGY, print_numa_topology, 1),
	FP(BRANCH_STACK, print_branch_stack, 0), FP(PMU_MAPPINGS, print_pmu_mappings, 0),
	FP(GROUP_DESC, print_group_desc, 0), FP(AUXTRACE, print_auxtrace, 0),
	FP(STAT, print_stat, 0), FP(CACHE, print_cache, 1),
	FP(SAMPLE_TIME, print_sample_time, 0), FP(MEM_TOPOLOGY, print_mem_topology, 1),
	FP(CLOCKID, print_clockid, 0), FP(DIR_FORMAT, print_dir_format, 0),
	/* a program's lines need its BTF to name it: none printed yet */
	FP(BPF_PROG_INFO, NULL, 0), FP(BPF_BTF, print_bpf_btf, 0),
	FP(COMPRESSED, print_compressed, 0), FP(CPU_PMU_CAPS, print_cpu_pmu_caps, 0),
	FP(CLOCK_DATA, print_clock_data, 0), FP(HYBRID_TOPOLOGY, print_hybrid_topology, 1),
	FP(PMU_CAPS, print_pmu_caps, 0),
};

void header_print__features(const struct perf_reader *r, FILE *out, int full)
{
	const struct hp h = { r, out, full };

	for (int f = 1; f < HEADER_LAST_FEATURE_61; f++) {
		const struct feature_print *fp = &features[f];
		struct cursor c = { .p = NULL };

		if (!fp->print || !(c.p = reader__feature(r, f, &c.size)))
			continue;
		if (fp->full_only && !full)
			fprintf(out, "# %s info available, use -I to display\n", feature__name(f));
		else
			fp->print(&h, &c);
	}
}

void header_print__block(const struct perf_reader *r, FILE *out, int full)
{
	const struct perf_file_section *data = &r->hdr.data;
	struct stat st;
	time_t when = 0;

	if (!fstat(r->fd, &st))
		when = st.st_mtime;
	fputs("# ========\n", out);
	fprintf(out, "# captured on    : %s", ctime(&when));
	fprintf(out, "# header version : 1\n");
	fprintf(out, "# data offset    : %" PRIu64 "\n", r->pipe ? 0 : data->offset);
	fprintf(out, "# data size      : %" PRIu64 "\n", r->pipe ? 0 : data->size);
	fprintf(out, "# feat offset    : %" PRIu64 "\n",
		r->pipe ? 0 : data->offset + data->size);
	if (!r->pipe) {
		header_print__features(r, out, full);
		fputs("# missing features: ", out);
		for (int f = 1; f < HEADER_LAST_FEATURE_61; f++)
			if (!feature__isset(r->hdr.adds_features, f))
				fprintf(out, "%s ", feature__name(f));
		fputc('\n', out);
	}
	fputs("# ========\n#\n", out);
}

int header_print__script(const struct perf_reader *r, const struct script_opts *o)
{
	if (o->header || o->header_only)
		header_print__block(r, o->out, o->show_info);
	/* a stream's features come as records, after the block: the stock
	 * prints them as it reads them, before the records that follow */
	if (r->pipe && !o->header_only && (o->header || o->show_info))
		header_print__features(r, o->out, o->show_info);
	return o->header_only;
}
