/* perf script's work: a perf.data written by this tool, as text, in time order.
 * The file may be hostile: the reader checks every offset and size, and a
 * record that makes no sense ends the run with one line naming it. */
#include "script/script.h"
#include "script/comm-map.h"
#include "util/event.h"
#include "script/machine.h"
#include "perfdata/reader.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <traceevent/event-parse.h>

/* libtraceevent reads a tracepoint's fields where the format says, and a
 * dynamic field where its u16 offset and length in the record say: the raw
 * data is copied into this much zeroed room so that no field of a hostile
 * record reaches past it (formats with fields beyond 64 KiB are refused). */
#define RAW_ROOM (4 * 65536)

/* perf's own record types (FINISHED_ROUND...) start here; the kernel's below */
#define USER_TYPE_START 64

struct script {
	const struct script_opts *o;
	FILE *out;
	struct perf_reader reader;
	struct comm_map *comms;
	struct id_hash cgroups;	/* cgroup id -> its path in a CGROUP record */
	struct id_hash read_prev;	/* READ samples: event id -> its last value (a u64) */
	struct trace_seq seq;
	unsigned char *raw;	/* RAW_ROOM bytes, zero beyond what is in use */
	u64 bad_id;		/* of the sample whose id no event has */
	const char *bad;	/* what is wrong with a malformed record */
	u64 fields;		/* -F: 1 << FIELD_*, 0 for the default lines */
	int name_width;		/* -F event: the longest event name */
	int data_src_width;	/* -F data_src: the widest one printed yet */
	struct dsos *dsos;	/* -F sym or dso: the DSOs and the maps to them */
	struct machine machine;
};

struct rec_ref {
	const struct perf_event_header *h;
	u64 time;
	u64 seq;	/* file order breaks ties: the sort is stable */
};

struct collect {
	struct rec_ref *refs;
	size_t nr, cap;
	u64 bad_off;	/* of a record of a type no perf knows */
	u32 bad_type;
};

static int collect_record(struct perf_reader *r, const struct perf_event_header *h,
			  u64 off, void *arg)
{
	struct collect *c = arg;

	/* the kernel's types up to AUX_OUTPUT_HW_ID (21), and of perf's own
	 * those this perf record writes (FINISHED_ROUND, FINISHED_INIT):
	 * anything else is refused. The stock perf checks the bodies of its
	 * other user types (HEADER_ATTR, ID_INDEX, EVENT_UPDATE...) and
	 * refuses a file with a lie in one; this reader decodes none of them. */
	if (h->type == 0 || (h->type >= PERF_RECORD_MAX && h->type != PERF_RECORD_FINISHED_ROUND &&
			     h->type != PERF_RECORD_FINISHED_INIT)) {
		c->bad_off = off;
		c->bad_type = h->type;
		return -EBADMSG;
	}
	if (h->type >= USER_TYPE_START)	/* FINISHED_ROUND...: nothing to show */
		return 0;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct rec_ref *n = realloc(c->refs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->refs = n;
		c->cap = cap;
	}
	c->refs[c->nr] = (struct rec_ref){ h, reader__record_time(r, h), c->nr };
	c->nr++;
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The body of a non-sample record without its sample_id trailer (trailer
 * bytes), and a check that a string at str_off ends inside it. */
static int body_ok(const struct perf_event_header *h, size_t trailer, size_t fixed,
		   size_t str_off)
{
	size_t len;

	if (h->size < sizeof(*h) + fixed + trailer)
		return 0;
	len = h->size - trailer;
	return !str_off || (len > str_off && memchr((const char *)h + str_off, 0, len - str_off));
}

/* The stock perf's output types: one per PERF_TYPE_*, the rest together. */
static u32 output_type(const struct perf_event_attr *a)
{
	return a->type < PERF_TYPE_MAX ? a->type : PERF_TYPE_MAX;
}

/* The first event of e's output type: as the stock perf, it decides what
 * every event of the type shows. */
static const struct reader_evsel *type_leader(const struct script *s, const struct reader_evsel *e)
{
	for (int i = 0; i < s->reader.nr_evsels; i++)
		if (output_type(&s->reader.evsels[i].attr) == output_type(&e->attr))
			return &s->reader.evsels[i];
	return e;
}

static void print_prefix(struct script *s, const struct reader_evsel *e, const char *comm,
			 u32 tid, u32 cpu, u64 time)
{
	char unknown[16];

	if (!comm) {
		snprintf(unknown, sizeof(unknown), tid ? ":%u" : "swapper", tid);
		comm = unknown;
	}
	fprintf(s->out, "%16s %5u ", comm, tid);
	/* the CPU column only where the samples say which CPU, as perf does */
	if (type_leader(s, e)->attr.sample_type & PERF_SAMPLE_CPU)
		fprintf(s->out, "[%03u] ", cpu);
	fprintf(s->out, "%5llu.%06llu: ",
	       (unsigned long long)(time / 1000000000ULL),
	       (unsigned long long)(time % 1000000000ULL / 1000));
}

/* A tracepoint whose format the file holds and libtraceevent parsed. */
static int decodable(const struct script *s, const struct reader_evsel *e)
{
	return e->attr.type == PERF_TYPE_TRACEPOINT && s->reader.tep &&
	       e->attr.config <= INT_MAX && tep_find_event(s->reader.tep, e->attr.config);
}

/* A tracepoint's fields as its format prints them (valid until the next
 * call). */
static const char *trace_info(struct script *s, const struct sample *smp)
{
	struct tep_record rec = {
		.ts = smp->time, .cpu = smp->cpu, .size = smp->raw_size, .data = s->raw,
	};

	memcpy(s->raw, smp->raw, smp->raw_size);	/* < 64 KiB: in a record */
	trace_seq_reset(&s->seq);
	tep_print_event(s->reader.tep, &s->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s->seq);
	memset(s->raw, 0, smp->raw_size);
	return s->seq.buffer;
}

/* ---- -F: the fields the user names, in the stock perf's order and format ---- */

enum field {
	FIELD_COMM, FIELD_TID, FIELD_PID, FIELD_TIME, FIELD_CPU, FIELD_PERIOD, FIELD_EVENT,
	FIELD_TRACE, FIELD_ADDR, FIELD_DATA_SRC, FIELD_WEIGHT, FIELD_INS_LAT, FIELD_CGROUP,
	FIELD_IP, FIELD_IREGS, FIELD_UREGS, FIELD_PHYS_ADDR, FIELD_DATA_PAGE_SIZE,
	FIELD_CODE_PAGE_SIZE, FIELD_SYM, FIELD_DSO, FIELD_SYMOFF,
};

/* Each field, the sample_type bit its event must have (0: any event) and
 * that bit's name in the stock perf's refusal. */
static const struct field_def {
	const char *name;
	u64 needs;
	const char *what;
} field_defs[] = {
	[FIELD_COMM] = { "comm", 0, NULL },
	[FIELD_TID] = { "tid", PERF_SAMPLE_TID, "TID" },
	[FIELD_PID] = { "pid", PERF_SAMPLE_TID, "TID" },
	[FIELD_TIME] = { "time", PERF_SAMPLE_TIME, "TIME" },
	[FIELD_CPU] = { "cpu", PERF_SAMPLE_CPU, "CPU" },
	[FIELD_PERIOD] = { "period", 0, NULL },
	[FIELD_EVENT] = { "event", 0, NULL },
	[FIELD_TRACE] = { "trace", 0, NULL },
	[FIELD_ADDR] = { "addr", PERF_SAMPLE_ADDR, "ADDR" },
	[FIELD_DATA_SRC] = { "data_src", PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	[FIELD_WEIGHT] = { "weight", PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT" },
	[FIELD_INS_LAT] = { "ins_lat", PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	[FIELD_CGROUP] = { "cgroup", PERF_SAMPLE_CGROUP, "CGROUP" },
	[FIELD_IP] = { "ip", PERF_SAMPLE_IP, "IP" },
	[FIELD_IREGS] = { "iregs", PERF_SAMPLE_REGS_INTR, "IREGS" },
	[FIELD_UREGS] = { "uregs", PERF_SAMPLE_REGS_USER, "UREGS" },
	[FIELD_PHYS_ADDR] = { "phys_addr", PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	[FIELD_DATA_PAGE_SIZE] = { "data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	[FIELD_CODE_PAGE_SIZE] = { "code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	/* printed with ip, after it, as the stock perf does */
	[FIELD_SYM] = { "sym", PERF_SAMPLE_IP, "IP" },
	[FIELD_DSO] = { "dso", PERF_SAMPLE_IP, "IP" },
	[FIELD_SYMOFF] = { "symoff", PERF_SAMPLE_IP, "IP" },
};

#define HAS(s, f) ((s)->fields & (1ULL << (f)))

/* -F's comma-separated names into s->fields; -EINVAL after one line. */
static int script__parse_fields(struct script *s, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t f;

		for (f = 0; f < ARRAY_SIZE(field_defs); f++)
			if (strlen(field_defs[f].name) == len && !strncmp(p, field_defs[f].name, len))
				break;
		if (f == ARRAY_SIZE(field_defs)) {
			fprintf(s->o->msg, "perf script: -F: unknown or unsupported field '%.*s' "
				"(this perf script knows:", (int)len, p);
			for (f = 0; f < ARRAY_SIZE(field_defs); f++)
				fprintf(s->o->msg, "%s%s", f ? "," : " ", field_defs[f].name);
			fprintf(s->o->msg, ")\n");
			return -EINVAL;
		}
		s->fields |= 1ULL << f;
		p += len + (p[len] == ',');
	}
	if (!s->fields) {
		fprintf(s->o->msg, "perf script: -F: no field named\n");
		return -EINVAL;
	}
	if (HAS(s, FIELD_SYMOFF) && !HAS(s, FIELD_SYM)) {
		fprintf(s->o->msg, "perf script: -F symoff: an offset needs its symbol: add sym\n");
		return -EINVAL;
	}
	return 0;
}

/* As the stock perf: the first event of each output type (dummies aside)
 * must sample every field asked for, or nothing is printed. */
static int script__check_fields(struct script *s)
{
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (type_leader(s, e) != e || (e->attr.type == PERF_TYPE_SOFTWARE &&
					       e->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		for (size_t f = 0; f < ARRAY_SIZE(field_defs); f++) {
			if (!HAS(s, f) || !field_defs[f].needs ||
			    (e->attr.sample_type & field_defs[f].needs))
				continue;
			fprintf(s->o->msg, "perf script: %s: samples for '%s' event do not have %s "
				"attribute set: cannot print '%s' field\n", s->o->input, e->name,
				field_defs[f].what, field_defs[f].name);
			return -EINVAL;
		}
	}
	for (int i = 0; i < s->reader.nr_evsels; i++)
		s->name_width = MAX(s->name_width, (int)strlen(s->reader.evsels[i].name));
	return 0;
}

/* The stock perf's names of the x86_64 registers (perf_regs.h order). */
static const char *reg_name(int bit)
{
	static const char *const names[] = { "AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP",
		"IP", "FLAGS", "CS", "SS", "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11",
		"R12", "R13", "R14", "R15" };
	static const char *const xmm[] = { "XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5",
		"XMM6", "XMM7", "XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14",
		"XMM15" };

	if (bit < (int)ARRAY_SIZE(names))
		return names[bit];
	/* each XMM register is two u64s, both named after it */
	if (bit >= 32 && bit < 64)
		return xmm[(bit - 32) / 2];
	return "unknown";
}

static void print_regs(struct script *s, const struct sample_regs *regs)
{
	int i = 0;

	if (!regs->regs)
		return;
	fprintf(s->out, " ABI:%llu ", (unsigned long long)regs->abi);
	for (u64 m = regs->mask; m; m &= m - 1)
		fprintf(s->out, "%5s:0x%llx ", reg_name(__builtin_ctzll(m)),
			(unsigned long long)regs->regs[i++]);
}

/* 4096 -> "4K", as the stock perf names page sizes (a unit only while
 * more than one of it remains: 1 GiB is "1024M"); 0 is "N/A". */
static void print_page_size(struct script *s, u64 size)
{
	static const char units[] = "BKMG";
	int u = 0;

	if (!size) {
		fprintf(s->out, " N/A");
		return;
	}
	while (size / 1024 > 1 && u < 3) {
		size /= 1024;
		u++;
	}
	fprintf(s->out, " %llu%c", (unsigned long long)size, units[u]);
}

/* ---- data_src, spelled as the stock perf spells it (perf mem's words) ---- */

/* The names of a field's bits, lowest first, joined by " or " into str. */
static void mem_bits(struct buf *str, u64 bits, const char *const *names, size_t nr)
{
	int n = 0;

	for (size_t i = 0; i < nr; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		buf__add(str, " or ", n++ ? 4 : 0);
		buf__add(str, names[i], strlen(names[i]));
	}
}

static void mem_str(struct buf *str, const char *s)
{
	buf__add(str, s, strlen(s));
}

/* "N/A" for a part that said nothing since start, then hit or miss */
static void mem_end(struct buf *str, size_t start, int hit, int miss)
{
	if (str->len == start)
		mem_str(str, "N/A");
	if (hit)
		mem_str(str, " hit");
	if (miss)
		mem_str(str, " miss");
}

static void mem_op(struct buf *str, u64 op)
{
	mem_str(str, op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD" :
		op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH" :
		op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

/* The cache level: the old bit field (or the hops of a remote access),
 * then the level number, then whether it hit or missed. */
static void mem_lvl(struct buf *str, u64 ds)
{
	static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3",
		"Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
		"Remote Cache (2 hops)", "I/O", "Uncached" };
	static const char *const hops[] = { "N/A", "core, same node", "node, same socket",
		"socket, same board", "board", "?", "?", "?" };
	static const char *const lvlnum[16] = { [PERF_MEM_LVLNUM_CXL] = "CXL",
		[PERF_MEM_LVLNUM_IO] = "I/O", [PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache",
		[PERF_MEM_LVLNUM_LFB] = "LFB/MAB", [PERF_MEM_LVLNUM_RAM] = "RAM",
		[PERF_MEM_LVLNUM_PMEM] = "PMEM", [PERF_MEM_LVLNUM_NA] = "N/A" };
	u64 bits = ds >> PERF_MEM_LVL_SHIFT & 0x3fff, num = ds >> PERF_MEM_LVLNUM_SHIFT & 0xf;
	u64 hop = ds >> PERF_MEM_HOPS_SHIFT & 7;
	size_t start = str->len;
	char name[8];

	if (ds >> PERF_MEM_REMOTE_SHIFT & 1)
		mem_str(str, "Remote ");
	if (hop) {
		mem_str(str, hops[hop]);
		mem_str(str, " ");
	} else {
		mem_bits(str, bits & ~(u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS), lvl,
			 ARRAY_SIZE(lvl));
	}
	if (num) {
		/* " or " only after a name from the bits */
		if (!hop && (bits & ~(u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS)))
			mem_str(str, " or ");
		snprintf(name, sizeof(name), "L%d", (int)num);
		mem_str(str, lvlnum[num] ? lvlnum[num] : name);
	}
	mem_end(str, start, bits & PERF_MEM_LVL_HIT, bits & PERF_MEM_LVL_MISS);
}

static void mem_snoop(struct buf *str, u64 ds)
{
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	u64 bits = ds >> PERF_MEM_SNOOP_SHIFT & 0x1f, x = ds >> PERF_MEM_SNOOPX_SHIFT & 3;
	size_t start = str->len;

	mem_bits(str, bits, snoop, ARRAY_SIZE(snoop));
	if (x && str->len != start)
		mem_str(str, " or ");
	mem_bits(str, x, snoopx, ARRAY_SIZE(snoopx));
	if (str->len == start)
		mem_str(str, "N/A");
}

static void mem_tlb(struct buf *str, u64 ds)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	u64 bits = ds >> PERF_MEM_TLB_SHIFT & 0x7f;
	size_t start = str->len;

	mem_bits(str, bits & ~(u64)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb, ARRAY_SIZE(tlb));
	mem_end(str, start, bits & PERF_MEM_TLB_HIT, bits & PERF_MEM_TLB_MISS);
}

static void mem_blk(struct buf *str, u64 ds)
{
	u64 bits = ds >> PERF_MEM_BLK_SHIFT & 7;

	if (!bits || (bits & PERF_MEM_BLK_NA)) {
		mem_str(str, " N/A");
		return;
	}
	if (bits & PERF_MEM_BLK_DATA)
		mem_str(str, " Data");
	if (bits & PERF_MEM_BLK_ADDR)
		mem_str(str, " Addr");
}

/* The value, then its words, padded to the widest seen so far (the stock
 * perf's column; each part at most 99 characters, as there). */
static void print_data_src(struct script *s, u64 ds)
{
	struct buf str = { 0 };
	u64 lock = ds >> PERF_MEM_LOCK_SHIFT & 3;
	char line[100];
	int len;

	mem_str(&str, "|OP ");
	mem_op(&str, ds >> PERF_MEM_OP_SHIFT & 0x1f);
	mem_str(&str, "|LVL ");
	mem_lvl(&str, ds);
	mem_str(&str, "|SNP ");
	mem_snoop(&str, ds);
	mem_str(&str, "|TLB ");
	mem_tlb(&str, ds);
	mem_str(&str, "|LCK ");
	mem_str(&str, lock & PERF_MEM_LOCK_NA ? "N/A" : lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
	mem_str(&str, "|BLK ");
	mem_blk(&str, ds);
	buf__u8(&str, 0);
	len = snprintf(line, sizeof(line), "%16llx %.99s", (unsigned long long)ds,
		       str.err ? "" : str.p);
	buf__release(&str);
	s->data_src_width = MAX(s->data_src_width, MIN(len, (int)sizeof(line) - 1));
	fprintf(s->out, "%-*s", s->data_src_width, line);
}

/* -F sym,symoff,dso after an address: resolved in the maps as they are
 * at the sample's time; nothing without those fields. */
static void print_sym(struct script *s, const struct sample *smp, u32 cpumode, u64 ip)
{
	struct addr_loc al;

	if (!s->dsos)
		return;
	machine__resolve(&s->machine, smp->pid, cpumode, ip, &al);
	addr_loc__fprintf(&al, s->out, HAS(s, FIELD_SYM), HAS(s, FIELD_SYMOFF), HAS(s, FIELD_DSO));
}

/* Each address of the callchain a line; the context markers say whose
 * addresses follow. With symbols, the stock perf shows an address as the
 * offset in its DSO. */
static void print_chain(struct script *s, const struct sample *smp)
{
	u32 cpumode = smp->cpumode;

	for (u64 i = 0; i < smp->nr_callchain; i++) {
		u64 ip = smp->callchain[i];
		struct addr_loc al;

		if (ip >= PERF_CONTEXT_MAX) {
			cpumode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
				  ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER :
				  PERF_RECORD_MISC_HYPERVISOR;
			continue;
		}
		if (!s->dsos) {
			fprintf(s->out, "\t%16llx\n", (unsigned long long)ip);
			continue;
		}
		machine__resolve(&s->machine, smp->pid, cpumode, ip, &al);
		fprintf(s->out, "\t%16llx", (unsigned long long)al.rel);
		addr_loc__fprintf(&al, s->out, HAS(s, FIELD_SYM), HAS(s, FIELD_SYMOFF),
				  HAS(s, FIELD_DSO));
		fputc('\n', s->out);
	}
}

static void print_fields(struct script *s, const struct sample *smp, const char *comm)
{
	const struct reader_evsel *e = smp->evsel;
	int chain = HAS(s, FIELD_IP) && (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	char unknown[16];

	if (HAS(s, FIELD_COMM)) {
		if (!comm) {
			snprintf(unknown, sizeof(unknown), smp->tid ? ":%u" : "swapper", smp->tid);
			comm = unknown;
		}
		/* a callchain goes below the line: no column to align */
		fprintf(s->out, chain ? "%s " : "%16s ", comm);
	}
	if (HAS(s, FIELD_PID) && HAS(s, FIELD_TID))
		fprintf(s->out, "%5d/%-5d ", (int)smp->pid, (int)smp->tid);
	else if (HAS(s, FIELD_PID) || HAS(s, FIELD_TID))
		fprintf(s->out, "%5d ", (int)(HAS(s, FIELD_PID) ? smp->pid : smp->tid));
	if (HAS(s, FIELD_CPU))
		fprintf(s->out, "[%03d] ", (int)smp->cpu);
	if (HAS(s, FIELD_TIME))
		fprintf(s->out, "%5llu.%06llu: ", (unsigned long long)(smp->time / 1000000000ULL),
			(unsigned long long)(smp->time % 1000000000ULL / 1000));
	if (HAS(s, FIELD_PERIOD))
		fprintf(s->out, "%10llu ", (unsigned long long)smp->period);
	if (HAS(s, FIELD_EVENT))
		fprintf(s->out, "%*s: ", s->name_width, e->name);
	if (HAS(s, FIELD_TRACE) && decodable(s, e) && smp->raw)
		fputs(trace_info(s, smp), s->out);
	if (HAS(s, FIELD_ADDR))
		fprintf(s->out, "%16llx", (unsigned long long)smp->addr);
	if (HAS(s, FIELD_DATA_SRC))
		print_data_src(s, smp->data_src);
	if (HAS(s, FIELD_WEIGHT))
		fprintf(s->out, "%16llu", (unsigned long long)smp->weight);
	if (HAS(s, FIELD_INS_LAT))
		fprintf(s->out, "%16u", smp->ins_lat);
	if (HAS(s, FIELD_CGROUP)) {
		const char *path = id_hash__find(&s->cgroups, smp->cgroup);

		fprintf(s->out, " %s", path ? path : "unknown");
	}
	if (HAS(s, FIELD_IP)) {
		if (chain) {
			fputc('\n', s->out);
			print_chain(s, smp);
		} else {
			fprintf(s->out, " %16llx", (unsigned long long)smp->ip);
			print_sym(s, smp, smp->cpumode, smp->ip);
		}
	}
	if (HAS(s, FIELD_IREGS))
		print_regs(s, &smp->iregs);
	if (HAS(s, FIELD_UREGS))
		print_regs(s, &smp->uregs);
	if (HAS(s, FIELD_PHYS_ADDR))
		fprintf(s->out, "%16llx", (unsigned long long)smp->phys_addr);
	if (HAS(s, FIELD_DATA_PAGE_SIZE))
		print_page_size(s, smp->data_page_size);
	if (HAS(s, FIELD_CODE_PAGE_SIZE))
		print_page_size(s, smp->code_page_size);
	fputc('\n', s->out);
}

static void print_sample(struct script *s, const struct sample *smp)
{
	const struct reader_evsel *e = smp->evsel;
	const char *comm = comm_map__get(s->comms, smp->tid);

	if (s->fields) {
		print_fields(s, smp, comm);
		return;
	}
	print_prefix(s, e, comm, smp->tid, smp->cpu, smp->time);
	if (decodable(s, e) && smp->raw) {
		fprintf(s->out, "%30s: %s\n", e->name, trace_info(s, smp));
		return;
	}
	fprintf(s->out, "%10llu %s: %16llx\n", (unsigned long long)smp->period, e->name,
	       (unsigned long long)smp->ip);
	for (u64 i = 0; i < smp->nr_callchain; i++)
		if (smp->callchain[i] < PERF_CONTEXT_MAX)
			fprintf(s->out, "\t%16llx\n", (unsigned long long)smp->callchain[i]);
}

static void print_mmap(struct script *s, const struct perf_event_header *h,
		       const struct reader_evsel *e, const struct sample_id *sid)
{
	const char *b = (const char *)(h + 1);
	u32 pid, tid;
	u64 start, len, pgoff;

	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	print_prefix(s, e, comm_map__get(s->comms, tid), tid, sid->cpu, sid->time);
	if (h->type == PERF_RECORD_MMAP) {
		fprintf(s->out, "PERF_RECORD_MMAP %d/%d: [%#llx(%#llx) @ %#llx]: %c %s\n", (int)pid, (int)tid,
		       (unsigned long long)start, (unsigned long long)len,
		       (unsigned long long)pgoff, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
		       b + 32);
		return;
	}
	u32 prot, flags;

	memcpy(&prot, b + 56, 4);
	memcpy(&flags, b + 60, 4);
	fprintf(s->out, "PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx", (int)pid, (int)tid,
	       (unsigned long long)start, (unsigned long long)len, (unsigned long long)pgoff);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		u8 n = MIN((u8)b[32], BUILD_ID_SIZE);

		fprintf(s->out, " <");
		for (int i = 0; i < n; i++)
			fprintf(s->out, "%02x", (u8)b[36 + i]);
		fprintf(s->out, ">");
	} else {
		u32 maj, min;
		u64 ino, gen;

		memcpy(&maj, b + 32, 4);
		memcpy(&min, b + 36, 4);
		memcpy(&ino, b + 40, 8);
		memcpy(&gen, b + 48, 8);
		fprintf(s->out, " %02x:%02x %llu %llu", maj, min, (unsigned long long)ino,
		       (unsigned long long)gen);
	}
	fprintf(s->out, "]: %c%c%c%c %s\n", prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
	       prot & PROT_EXEC ? 'x' : '-', flags & MAP_SHARED ? 's' : 'p', b + 64);
}

/* The last value a READ sample gave for id (0 before the first), kept
 * where the next one can update it; NULL without memory. */
static u64 *read_prev(struct script *s, u64 id)
{
	u64 *prev = id_hash__find(&s->read_prev, id);

	if (!prev && (prev = calloc(1, sizeof(*prev))) && id_hash__add(&s->read_prev, id, prev)) {
		free(prev);
		prev = NULL;
	}
	return prev;
}

/* A READ sample (:S leader sampling, -s): as the stock perf, each value
 * read is shown as a sample of the event it belongs to, whose period is
 * how much that count grew since its last value; one that did not grow
 * is left out. */
static int print_read_sample(struct script *s, const struct sample *smp)
{
	u64 rf = smp->evsel->attr.read_format;
	u64 times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	u64 per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	/* group: nr, times, then value, id, lost each; one: value, times, id, lost */
	int group = rf & PERF_FORMAT_GROUP;
	u64 nr = group ? smp->read[0] : 1, first = group ? 1 + times : 0;
	u64 id_at = group ? 1 : 1 + times;

	for (u64 i = 0; i < nr; i++) {
		const u64 *v = smp->read + first + i * per;
		u64 id = (rf & PERF_FORMAT_ID) ? v[id_at] : smp->id;
		struct sample member = *smp;
		u64 *prev;

		member.evsel = reader__evsel(&s->reader, id);
		if (!member.evsel)
			continue;	/* the stock perf counts it as an unknown id */
		prev = read_prev(s, id);
		if (!prev)
			return -ENOMEM;
		member.period = v[0] - *prev;
		member.id = id;
		*prev = v[0];
		if (member.period)
			print_sample(s, &member);
	}
	return 0;
}

/* An MMAP or MMAP2 (body checked) into the maps -F sym,dso look in. */
static int script__mmap(struct script *s, const struct perf_event_header *h, size_t fixed)
{
	const char *b = (const char *)(h + 1);
	u64 start, len, pgoff;
	u32 pid;
	u8 bid_len = 0;

	memcpy(&pid, b, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		bid_len = MIN((u8)b[32], BUILD_ID_SIZE);
	return machine__mmap(&s->machine, pid, start, len, pgoff, b + fixed,
			     (const u8 *)b + 36, bid_len);
}

static int script__sample(struct script *s, const struct perf_event_header *h)
{
	struct sample smp;
	int ret = reader__parse_sample(&s->reader, h, &smp);

	s->bad_id = smp.id;
	s->bad = smp.bad;
	if (ret)
		return ret;
	if (smp.evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    smp.evsel->attr.config == PERF_COUNT_SW_DUMMY)
		return 0;
	if (smp.evsel->attr.sample_type & PERF_SAMPLE_READ)
		return print_read_sample(s, &smp);
	print_sample(s, &smp);
	return 0;
}

/* A kernel record other than a sample, its sample_id trailer parsed. */
struct kernel_record {
	const struct perf_event_header *h;
	const u32 *ids;		/* the body, as u32s */
	const struct reader_evsel *e;	/* the event the trailer names */
	struct sample_id sid;
	size_t trailer;		/* the trailer's bytes */
};

static int script__comm(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 8, sizeof(*h) + 8))
		return -EINVAL;
	if (comm_map__set(s->comms, ids[0], ids[1], (const char *)(ids + 2)))
		return -ENOMEM;
	if (s->o->show_task) {
		print_prefix(s, k->e, (const char *)(ids + 2), ids[1], k->sid.cpu, k->sid.time);
		fprintf(s->out, "PERF_RECORD_COMM%s: %s:%d/%d\n",
		       (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
		       (const char *)(ids + 2), (int)ids[0], (int)ids[1]);
	}
	return 0;
}

/* FORK and EXIT */
static int script__task(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 24, 0))
		return -EINVAL;
	/* a new thread starts with its parent's name; the children of
	 * the idle task (kthreadd, init) with "swapper" */
	if (h->type == PERF_RECORD_FORK && s->dsos && machine__fork(&s->machine, ids[0], ids[1]))
		return -ENOMEM;
	if (h->type == PERF_RECORD_FORK && !comm_map__get(s->comms, ids[2]) &&
	    (comm_map__get(s->comms, ids[3]) || !ids[3]) &&
	    comm_map__set(s->comms, ids[0], ids[2],
			  ids[3] ? comm_map__get(s->comms, ids[3]) : "swapper"))
		return -ENOMEM;
	if (s->o->show_task) {
		/* as the stock perf: under the thread of the sample id
		 * (the parent, for a fork the kernel reports) */
		u32 tid = k->e->id_type & PERF_SAMPLE_TID ? k->sid.tid : ids[2];

		print_prefix(s, k->e, comm_map__get(s->comms, tid), tid, k->sid.cpu, k->sid.time);
		fprintf(s->out, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
		       h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
		       (int)ids[0], (int)ids[2], (int)ids[1], (int)ids[3]);
	}
	return 0;
}

/* u64 id, then the path: the name -F cgroup prints */
static int script__cgroup(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;

	if (!body_ok(h, k->trailer, 8 + 1, sizeof(*h) + 8))
		return -EINVAL;
	if (id_hash__add(&s->cgroups, *(const u64 *)(h + 1), (void *)(k->ids + 2)))
		return -ENOMEM;
	return 0;
}

/* MMAP and MMAP2 */
static int script__map(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	/* the filename follows 32 (MMAP) or 64 (MMAP2) bytes of fields */
	size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 64;

	if (!body_ok(h, k->trailer, fixed + 1, sizeof(*h) + fixed))
		return -EINVAL;
	if (s->o->show_mmap)
		print_mmap(s, h, k->e, &k->sid);
	return s->dsos ? script__mmap(s, h, fixed) : 0;
}

/* What is done with each kernel record type; the others are only checked. */
static int (*const kernel_records[])(struct script *s, const struct kernel_record *k) = {
	[PERF_RECORD_COMM] = script__comm,
	[PERF_RECORD_FORK] = script__task,
	[PERF_RECORD_EXIT] = script__task,
	[PERF_RECORD_CGROUP] = script__cgroup,
	[PERF_RECORD_MMAP] = script__map,
	[PERF_RECORD_MMAP2] = script__map,
};

static int process(struct script *s, const struct perf_event_header *h)
{
	struct kernel_record k = { .h = h, .ids = (const u32 *)(h + 1) };
	int ret;

	if (h->type == PERF_RECORD_SAMPLE)
		return script__sample(s, h);
	/* as the stock perf: every kernel record's sample_id must fit and name
	 * an event, whether or not we print the record */
	ret = reader__parse_id(&s->reader, h, &k.sid, &k.e);
	s->bad_id = k.sid.id;
	s->bad = "shorter than its sample_id trailer";
	if (ret < 0)
		return ret;
	k.trailer = ret;
	s->bad = "body shorter than its fields";
	if (h->type < ARRAY_SIZE(kernel_records) && kernel_records[h->type])
		return kernel_records[h->type](s, &k);
	return 0;
}

/* One line per event whose samples print undecoded, before any output. */
static void warn_undecodable(struct script *s)
{
	const struct tp_formats *f = &s->reader.formats;

	if (f->left_out)
		fprintf(s->o->msg, "perf script: %s: %u of %u tracepoint formats left out: unsafe for libtraceevent\n",
			s->o->input, f->left_out, f->nr);
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (e->attr.type == PERF_TYPE_TRACEPOINT && !decodable(s, e))
			fprintf(s->o->msg, "perf script: %s: no usable format for event %s (id %llu): its fields are not decoded\n",
				s->o->input, e->name, (unsigned long long)e->attr.config);
	}
}

static void report_bad_record(struct script *s, const struct perf_event_header *h, int rc)
{
	unsigned long long off = reader__offset(&s->reader, h);

	if (rc == -ENOENT)
		fprintf(s->o->msg, "perf script: %s: %s record at offset %#llx has id %llu, which no event has\n",
			s->o->input, event__type_name(h->type), off, (unsigned long long)s->bad_id);
	else if (rc == -EINVAL)
		fprintf(s->o->msg, "perf script: %s: malformed %s record at offset %#llx: %s\n",
			s->o->input, event__type_name(h->type), off, s->bad ? s->bad : "bad layout");
	else
		fprintf(s->o->msg, "perf script: %s: %s\n", s->o->input, strerror(-rc));
}

/* The maps -F sym,dso look in, for the kernel the file's build id says. */
static int script__machine_init(struct script *s)
{
	u64 size = 0;
	const void *body = reader__feature(&s->reader, HEADER_BUILD_ID, &size);
	u8 bid[BUILD_ID_SIZE];
	int len = body ? build_id_feature__kernel(body, size, bid) : 0;
	int err = machine__init(&s->machine, s->dsos, bid, len);

	s->machine.bid_feature = body;
	s->machine.bid_feature_size = size;
	return err;
}

/* Everything a run needs before the records: the file, -F's fields, the
 * task names and, for -F sym or dso, the maps. 0 or -errno, said. */
static int script__setup(struct script *s)
{
	const struct script_opts *o = s->o;
	char err[512];
	int rc = reader__open(&s->reader, o->input, err, sizeof(err));

	if (rc) {
		fprintf(o->msg, "perf script: %s\n", err);
		return rc;
	}
	if (o->fields && (script__parse_fields(s, o->fields) || script__check_fields(s)))
		return -EINVAL;
	s->comms = comm_map__new();
	s->raw = calloc(1, RAW_ROOM);
	if (((HAS(s, FIELD_SYM) || HAS(s, FIELD_DSO)) &&
	     (!(s->dsos = dsos__new(o->buildid_dir)) || script__machine_init(s))) ||
	    !s->comms || !s->raw) {
		fprintf(o->msg, "perf script: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* The file's records in time order (file order breaks ties), each
 * printed or taken in; the first bad one ends the run. 0 or -errno, said. */
static int script__process_all(struct script *s, struct collect *c)
{
	const struct script_opts *o = s->o;
	char err[512];
	int rc = reader__for_each(&s->reader, collect_record, c, err, sizeof(err));

	if (rc == -EBADMSG)
		snprintf(err, sizeof(err), "record at offset %#llx: unsupported type %u (this perf script reads the files of this perf record)",
			 (unsigned long long)c->bad_off, c->bad_type);
	if (rc) {
		fprintf(o->msg, "perf script: %s: %s\n", o->input,
			rc == -EINVAL || rc == -EBADMSG ? err : strerror(-rc));
		return rc;
	}
	warn_undecodable(s);
	if (c->nr)	/* qsort() must not see the NULL of an empty data section */
		qsort(c->refs, c->nr, sizeof(*c->refs), cmp_ref);
	for (size_t i = 0; i < c->nr; i++) {
		rc = process(s, c->refs[i].h);
		if (rc) {
			report_bad_record(s, c->refs[i].h, rc);
			return rc;
		}
	}
	return 0;
}

/* Frees what a run took, set up or not. */
static void script__exit(struct script *s)
{
	trace_seq_destroy(&s->seq);
	free(s->raw);
	comm_map__delete(s->comms);
	machine__exit(&s->machine);
	dsos__delete(s->dsos);
	id_hash__exit(&s->cgroups);
	for (size_t i = 0; i < s->read_prev.cap; i++)
		free(s->read_prev.owners[i]);
	id_hash__exit(&s->read_prev);
	reader__close(&s->reader);
}

int script__run(const struct script_opts *o)
{
	struct script s = { .o = o, .out = o->out };
	struct collect c = { 0 };
	int rc;

	trace_seq_init(&s.seq);
	rc = script__setup(&s);
	if (!rc)
		rc = script__process_all(&s, &c);
	free(c.refs);
	script__exit(&s);
	return rc;
}
