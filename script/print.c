/* perf script's lines: a sample by default or with -F's fields, its
 * callchain, a READ sample's counts and an mmap event, as the stock perf
 * prints them. */
#include "script/script-internal.h"
#include "script/comm-map.h"
#include "script/unwind.h"
#include "script/line.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <traceevent/event-parse.h>

/* The stock's misc letters: whose context, then what the record type adds. */
static void print_misc(struct line *l, u16 misc, u32 type)
{
	char m[8];
	int n = 0;

#define has(f) ((misc & PERF_RECORD_MISC_##f) == PERF_RECORD_MISC_##f)
	if (has(KERNEL))
		m[n++] = 'K';
	if (has(USER))
		m[n++] = 'U';
	if (has(HYPERVISOR))
		m[n++] = 'H';
	if (has(GUEST_KERNEL))
		m[n++] = 'G';
	if (has(GUEST_USER))
		m[n++] = 'g';
	if ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) && has(MMAP_DATA))
		m[n++] = 'M';
	if (type == PERF_RECORD_COMM && has(COMM_EXEC))
		m[n++] = 'E';
	if ((type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE) && has(SWITCH_OUT)) {
		m[n++] = 'S';
		if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			m[n++] = 'p';
	}
#undef has
	line__put(l, m, n);
	line__str(l, " ", 6 - n, 0);	/* as "%*s": a space at least */
}

/* The opening columns of the type of e into l; sets s->cur. */
static void build_start(struct script *s, const struct reader_evsel *e,
			const struct script_start *st, struct line *l)
{
	char buf[16];

	s->cur = s->shows[script__output_type(&e->attr)];
	if (HAS(s, FIELD_COMM)) {
		const char *comm = st->comm ? st->comm : comm__unnamed(st->tid, buf);

		/* a callchain goes below the line: no column to align */
		line__str(l, comm, HAS(s, FIELD_IP) && s->use_callchain &&
			  (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ? 0 : 16, 0);
		line__putc(l, ' ');
	}
	if (HAS(s, FIELD_PID) && HAS(s, FIELD_TID)) {
		line__int(l, (int)st->pid, 5, 0);
		line__putc(l, '/');
		line__int(l, (int)st->tid, 5, LINE_LEFT);
		line__putc(l, ' ');
	} else if (HAS(s, FIELD_PID) || HAS(s, FIELD_TID)) {
		line__int(l, (int)(HAS(s, FIELD_PID) ? st->pid : st->tid), 5, 0);
		line__putc(l, ' ');
	}
	if (HAS(s, FIELD_CPU)) {
		line__putc(l, '[');
		line__int(l, (int)st->cpu, 3, LINE_ZERO);
		line__put(l, "] ", 2);
	}
	if (HAS(s, FIELD_MISC))
		print_misc(l, st->misc, st->type);
	if (HAS(s, FIELD_TIME)) {
		line__u64(l, st->time / 1000000000ULL, 5, 0);
		line__putc(l, '.');
		if (s->o->nanosecs)
			line__u64(l, st->time % 1000000000ULL, 9, LINE_ZERO);
		else
			line__u64(l, st->time % 1000000000ULL / 1000, 6, LINE_ZERO);
		line__put(l, ": ", 2);
	}
}

void script__print_start(struct script *s, const struct reader_evsel *e,
			 const struct script_start *st)
{
	struct line l;

	line__init(&l, s->out);
	build_start(s, e, st, &l);
	line__flush(&l);
}

/* A tracepoint whose format the file holds and libtraceevent parsed. */
int script__decodable(const struct script *s, const struct reader_evsel *e)
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

/* sym, symoff and dso of al as -F asks, into l. */
static void put_addr_loc(struct script *s, struct line *l, const struct addr_loc *al)
{
	int sym = HAS(s, FIELD_SYM), symoff = HAS(s, FIELD_SYMOFF), dso = HAS(s, FIELD_DSO);
	char *p = addr_loc__format(al, l->p, l->buf + LINE_ROOM, sym, symoff, dso);

	if (!p) {
		line__flush(l);
		p = addr_loc__format(al, l->p, l->buf + LINE_ROOM, sym, symoff, dso);
	}
	if (p)
		l->p = p;
	else	/* longer than the line: written as it goes */
		addr_loc__fprintf(al, l->out, sym, symoff, dso);
}

/* sym, symoff and dso after an address: resolved in the maps as they
 * are at the sample's time; nothing without those fields. */
static void print_sym(struct script *s, const struct sample *smp, u32 cpumode, u64 ip,
		      struct line *l)
{
	struct addr_loc al;

	if (!s->dsos)
		return;
	machine__resolve(&s->machine, smp->pid, cpumode, ip, &al);
	put_addr_loc(s, l, &al);
}

int script__chain_context(u64 ip, u32 *cpumode)
{
	u32 mode;

	switch (ip) {
	case PERF_CONTEXT_HV: mode = PERF_RECORD_MISC_HYPERVISOR; break;
	case PERF_CONTEXT_KERNEL: mode = PERF_RECORD_MISC_KERNEL; break;
	case PERF_CONTEXT_USER: mode = PERF_RECORD_MISC_USER; break;
	case PERF_CONTEXT_GUEST: case PERF_CONTEXT_GUEST_KERNEL: mode = PERF_RECORD_MISC_GUEST_KERNEL; break;
	case PERF_CONTEXT_GUEST_USER: mode = PERF_RECORD_MISC_GUEST_USER; break;
	default: return 0;
	}
	if (cpumode)
		*cpumode = mode;
	return 1;
}

/* Each address of the callchain a line, at most --max-stack of them; the
 * context markers say whose addresses follow. With symbols, the stock
 * perf shows an address as the offset in its DSO. */
static void print_chain(struct script *s, const struct sample *smp, struct line *l)
{
	u32 cpumode = smp->cpumode;
	u64 max = s->o->max_stack > 0 ? (u64)s->o->max_stack : 127, shown = 0, end = 0;

	/* as the stock: a marker of no known context empties the chain */
	for (; end < smp->nr_callchain && shown < max; end++) {
		u64 ip = smp->callchain[end];

		if (ip < PERF_CONTEXT_MAX)
			shown++;
		else if (!script__chain_context(ip, NULL))
			return;
	}
	for (u64 i = 0; i < end; i++) {
		u64 ip = smp->callchain[i];
		struct addr_loc al;

		if (ip >= PERF_CONTEXT_MAX) {
			script__chain_context(ip, &cpumode);
			continue;
		}
		line__putc(l, '\t');
		if (!s->dsos) {
			line__hex(l, ip, 16);
			line__putc(l, '\n');
			continue;
		}
		machine__resolve(&s->machine, smp->pid, cpumode, ip, &al);
		line__hex(l, al.rel, 16);
		put_addr_loc(s, l, &al);
		line__putc(l, '\n');
	}
	/* --call-graph dwarf: the user frames the stack dump unwinds to */
	if (s->dsos && unwind__has_stack(smp)) {
		line__flush(l);
		unwind__print(&s->machine, smp, (int)MIN(max, (u64)INT_MAX), s->out,
			      HAS(s, FIELD_SYM), HAS(s, FIELD_SYMOFF), HAS(s, FIELD_DSO));
	}
}

/* The fields after the opening columns, in the stock perf's order. */
static void print_middle(struct script *s, const struct sample *smp, struct line *l)
{
	const struct reader_evsel *e = smp->evsel;

	if (HAS(s, FIELD_PERIOD)) {
		line__u64(l, smp->period, 10, 0);
		line__putc(l, ' ');
	}
	if (HAS(s, FIELD_EVENT)) {
		line__str(l, e->name, s->name_width, 0);
		line__put(l, ": ", 2);
	}
	if (HAS(s, FIELD_FLAGS))
		line__pad(l, ' ', 2 + 21 + 1);	/* "  %-21s " of nothing */
	if (HAS(s, FIELD_TRACE) && script__decodable(s, e) && smp->raw)
		line__puts(l, trace_info(s, smp));
	if (HAS(s, FIELD_ADDR))
		line__hex(l, smp->addr, 16);
	if (HAS(s, FIELD_DATA_SRC)) {
		line__flush(l);
		script__print_data_src(s, smp->data_src);
	}
	if (HAS(s, FIELD_WEIGHT))
		line__u64(l, smp->weight, 16, 0);
	if (HAS(s, FIELD_INS_LAT))
		line__u64(l, smp->ins_lat, 16, 0);
	if (HAS(s, FIELD_CGROUP)) {
		const char *path = id_hash__find(&s->cgroups, smp->cgroup);

		line__putc(l, ' ');
		line__puts(l, path ? path : "unknown");
	}
}

/* The stock perf's isprint(), from its own table: Latin-1's upper half is
 * printable (in the C locale's it is not) and copied as it is; no control
 * byte (C0, DEL, C1) gets through. */
static int bpf_output_printable(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c >= 0xa0;
}

/* A bpf-output event's RAW data as the stock perf prints it: a new line
 * (all that a sample without RAW data gets), each 8 bytes as hex and text,
 * then, when the data is text ending in NULs and nothing else, that text
 * in quotes. */
static void print_bpf_output(struct line *l, const unsigned char *data, u32 n)
{
	int hit_nul = 0, text = 1;

	line__putc(l, '\n');
	for (u32 i = 0; i < n; i += 8) {
		u32 k = MIN(n - i, 8U);

		line__puts(l, i ? "                 " : "      BPF output:");
		line__put(l, " ", 1);
		line__num(l, i, 0, 1, 4, LINE_ZERO);
		line__putc(l, ':');
		for (u32 j = 0; j < 8; j++) {
			line__putc(l, ' ');
			if (j < k)
				line__num(l, data[i + j], 0, 1, 2, LINE_ZERO);
			else
				line__put(l, "  ", 2);
		}
		line__put(l, "  ", 2);
		for (u32 j = 0; j < k; j++) {
			unsigned char c = data[i + j];

			/* text: printable bytes, then NULs to the end */
			text &= !(hit_nul && c);
			if (!bpf_output_printable(c) && text) {
				hit_nul |= !c;
				text = !c;
			}
			line__putc(l, bpf_output_printable(c) ? (char)c : '.');
		}
		line__pad(l, ' ', 8 - k);
		line__putc(l, '\n');
	}
	if (text && hit_nul) {
		line__puts(l, "      BPF string: \"");
		line__puts(l, (const char *)data);
		line__put(l, "\"\n", 2);
	}
}

/* What follows the address: registers and sizes, rarely asked for,
 * printed with fprintf after what l holds. */
static void print_end(struct script *s, const struct sample *smp, struct line *l)
{
	if (HAS(s, FIELD_IREGS) || HAS(s, FIELD_UREGS))
		line__flush(l);
	if (HAS(s, FIELD_IREGS))
		print_regs(s, &smp->iregs);
	if (HAS(s, FIELD_UREGS))
		print_regs(s, &smp->uregs);
	if (HAS(s, FIELD_BPF_OUTPUT) && smp->evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    smp->evsel->attr.config == PERF_COUNT_SW_BPF_OUTPUT)
		print_bpf_output(l, smp->raw, smp->raw ? smp->raw_size : 0);
	if (HAS(s, FIELD_PHYS_ADDR))
		line__hex(l, smp->phys_addr, 16);
	line__flush(l);
	if (HAS(s, FIELD_DATA_PAGE_SIZE))
		print_page_size(s, smp->data_page_size);
	if (HAS(s, FIELD_CODE_PAGE_SIZE))
		print_page_size(s, smp->code_page_size);
	fputc_unlocked('\n', s->out);
}

static void print_fields(struct script *s, const struct sample *smp, const char *comm)
{
	const struct reader_evsel *e = smp->evsel;
	struct script_start st = { comm, smp->pid, smp->tid, smp->cpu, smp->time, smp->cpumode,
				   PERF_RECORD_SAMPLE };
	struct line l;

	if (!s->shows[script__output_type(&e->attr)])
		return;	/* -F type: with no field: such events are not shown */
	line__init(&l, s->out);
	build_start(s, e, &st, &l);
	print_middle(s, smp, &l);
	if (HAS(s, FIELD_IP)) {
		if (s->use_callchain && (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
			line__putc(&l, '\n');
			print_chain(s, smp, &l);
		} else {
			line__putc(&l, ' ');
			line__hex(&l, smp->ip, 16);
			print_sym(s, smp, smp->cpumode, smp->ip, &l);
		}
	}
	print_end(s, smp, &l);
}

void script__print_sample(struct script *s, const struct sample *smp)
{
	const char *comm = comm_map__get(s->comms, smp->tid);
	char name[16];

	/* --comms, --pids, --tids, --cpu: the others are left out; --comms
	 * matches the name the line shows, as the stock's (an idle CPU's
	 * samples are swapper's with no COMM naming it) */
	if (!script_filter__has_number(&s->cpu_filter, (int)smp->cpu) ||
	    !script_filter__has_number(&s->pid_filter, (int)smp->pid) ||
	    !script_filter__has_number(&s->tid_filter, (int)smp->tid) ||
	    !script_filter__has_comm(&s->comm_filter, comm ? comm : comm__unnamed(smp->tid, name)))
		return;
	print_fields(s, smp, comm);
}

void script__print_mmap(struct script *s, const struct perf_event_header *h)
{
	const char *b = (const char *)(h + 1);
	u32 pid, tid;
	u64 start, len, pgoff;

	memcpy(&pid, b, 4);
	memcpy(&tid, b + 4, 4);
	memcpy(&start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
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
int script__print_read_sample(struct script *s, const struct sample *smp)
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
			script__print_sample(s, &member);
	}
	return 0;
}
