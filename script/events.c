/* perf script's handling of each record in time order: samples printed,
 * the kernel's task, map and cgroup records taken in, and those the
 * --show-*-events options ask for printed as the stock prints them. */
#include "script/script-internal.h"
#include "script/comm-map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* An MMAP or MMAP2 (body checked) into the maps -F sym,dso look in. */
static int script__mmap(struct script *s, const struct perf_event_header *h, size_t fixed)
{
	const char *b = (const char *)(h + 1);
	struct mmap_desc d = { .filename = b + fixed, .bid = (const u8 *)b + 36 };
	u32 pid;

	memcpy(&pid, b, 4);
	memcpy(&d.start, b + 8, 8);
	memcpy(&d.len, b + 16, 8);
	memcpy(&d.pgoff, b + 24, 8);
	if (h->type == PERF_RECORD_MMAP2) {
		memcpy(&d.prot, b + 56, 4);
		memcpy(&d.flags, b + 60, 4);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			d.bid_len = MIN((u8)b[32], BUILD_ID_SIZE);
	} else if (!(h->misc & PERF_RECORD_MISC_MMAP_DATA)) {
		d.prot = PROT_EXEC;
	}
	return machine__mmap(&s->machine, pid, &d);
}

static int script__sample(struct script *s, const struct perf_event_header *h)
{
	struct sample smp;
	int ret = reader__parse_sample(&s->reader, h, &smp);

	s->bad_id = smp.id;
	s->bad = smp.bad;
	if (ret)
		return ret;
	if (time_filter__skip(&s->time_filter, smp.time))
		return 0;
	if (smp.evsel->attr.type == PERF_TYPE_SOFTWARE &&
	    smp.evsel->attr.config == PERF_COUNT_SW_DUMMY)
		return 0;
	if (s->conv)
		return pprof_convert__sample(s, &smp);
	if (smp.evsel->attr.sample_type & PERF_SAMPLE_READ)
		return script__print_read_sample(s, &smp);
	script__print_sample(s, &smp);
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

/* The opening columns of a COMM, FORK, EXIT or MMAP record, named comm:
 * as the stock perf, the task, CPU and time of its sample_id (a record
 * perf synthesized has 0 there; a sample_id without TID, -1), or with no
 * sample_id at all the record's own task (pid_tid), CPU 0 and time (0
 * but for FORK and EXIT). 0 if --cpu leaves it out (a CPU of -1 is not
 * filtered). */
static int task_record_start(struct script *s, const struct kernel_record *k, const char *comm,
			     const u32 pid_tid[2], u64 time)
{
	struct script_start st = {
		.comm = comm, .pid = k->sid.pid, .tid = k->sid.tid, .cpu = k->sid.cpu,
		.time = k->sid.time, .misc = k->h->misc, .type = k->h->type,
	};

	if (!k->e->attr.sample_id_all) {
		st.pid = pid_tid[0];
		st.tid = pid_tid[1];
		st.time = time;
	} else {
		if (!(k->e->id_type & PERF_SAMPLE_TID))
			st.pid = st.tid = (u32)-1;
		if (!(k->e->id_type & PERF_SAMPLE_CPU))
			st.cpu = (u32)-1;
	}
	if (st.cpu != (u32)-1 && !script_filter__has_number(&s->cpu_filter, (int)st.cpu))
		return 0;
	script__print_start(s, k->e, &st);
	return 1;
}

static int script__comm(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 8, sizeof(*h) + 8))
		return -EINVAL;
	if (comm_map__set(s->comms, ids[0], ids[1], (const char *)(ids + 2)))
		return -ENOMEM;
	if (s->o->show_task && task_record_start(s, k, (const char *)(ids + 2), ids, 0))
		fprintf(s->out, "PERF_RECORD_COMM%s: %s:%d/%d\n",
		       (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
		       (const char *)(ids + 2), (int)ids[0], (int)ids[1]);
	return 0;
}

/* FORK and EXIT */
static int script__task(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	const u32 *ids = k->ids;

	if (!body_ok(h, k->trailer, 24, 0))
		return -EINVAL;
	/* the child is made anew (also where a record synthesized before
	 * named it), named as its parent is now (see comm_map__fork) */
	if (h->type == PERF_RECORD_FORK && s->dsos &&
	    machine__fork(&s->machine, ids[0], ids[1], !(h->misc & PERF_RECORD_MISC_FORK_EXEC)))
		return -ENOMEM;
	if (h->type == PERF_RECORD_FORK && comm_map__fork(s->comms, ids[0], ids[2], ids[1], ids[3]))
		return -ENOMEM;
	if (s->o->show_task) {
		const u32 pid_tid[2] = { ids[0], ids[2] };
		char unnamed[16];
		u64 time;

		memcpy(&time, ids + 4, 8);
		/* named as the stock names the thread forked or exiting */
		if (task_record_start(s, k, comm_map__name(s->comms, ids[2], unnamed), pid_tid, time))
			fprintf(s->out, "PERF_RECORD_%s(%d:%d):(%d:%d)\n",
				h->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
				(int)ids[0], (int)ids[2], (int)ids[1], (int)ids[3]);
	}
	return 0;
}

/* The opening columns of a record the stock prints with its sample_id's
 * task, CPU and time, named after thread tid; 0 if --cpu leaves it out. */
static int record_start(struct script *s, const struct kernel_record *k, u32 tid)
{
	struct script_start st = {
		.comm = tid == (u32)-1 ? NULL : comm_map__get(s->comms, tid),
		.pid = k->sid.pid, .tid = k->sid.tid, .cpu = k->sid.cpu, .time = k->sid.time,
		.misc = k->h->misc, .type = k->h->type,
	};
	char unnamed[16];

	if (k->sid.cpu != (u32)-1 && !script_filter__has_number(&s->cpu_filter, (int)k->sid.cpu))
		return 0;
	if (tid != (u32)-1)
		st.comm = comm_map__name(s->comms, tid, unnamed);
	script__print_start(s, k->e, &st);
	fprintf(s->out, "PERF_RECORD_%s", event__type_name(k->h->type));
	return 1;
}

/* u64 id, then the path: the name -F cgroup prints */
static int script__cgroup(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	u64 id = *(const u64 *)(h + 1);

	if (!body_ok(h, k->trailer, 8 + 1, sizeof(*h) + 8))
		return -EINVAL;
	if (id_hash__add(&s->cgroups, id, (void *)(k->ids + 2)))
		return -ENOMEM;
	if (s->o->show_cgroup && record_start(s, k, k->sid.tid))
		fprintf(s->out, " cgroup: %llu %s\n", (unsigned long long)id, (const char *)(k->ids + 2));
	return 0;
}

/* SWITCH and SWITCH_CPU_WIDE (the task switched to or from) */
static int script__switch(struct script *s, const struct kernel_record *k)
{
	const struct perf_event_header *h = k->h;
	int out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *how = !out ? "IN         " :
			  h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? "OUT preempt" : "OUT        ";

	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE && !body_ok(h, k->trailer, 8, 0))
		return -EINVAL;
	if (!s->o->show_switch || !record_start(s, k, k->sid.tid))
		return 0;
	if (h->type == PERF_RECORD_SWITCH)
		fprintf(s->out, " %s\n", how);
	else
		fprintf(s->out, " %s  %s pid/tid: %5d/%-5d\n", how, out ? "next" : "prev",
			(int)k->ids[0], (int)k->ids[1]);
	return 0;
}

/* u64 id, u64 lost */
static int script__lost(struct script *s, const struct kernel_record *k)
{
	u64 lost;

	if (!body_ok(k->h, k->trailer, 16, 0))
		return -EINVAL;
	memcpy(&lost, k->ids + 2, 8);
	if (s->o->show_lost && record_start(s, k, k->sid.tid))
		fprintf(s->out, " lost %llu\n", (unsigned long long)lost);
	return 0;
}

/* u32 pid, tid; u64 nr; then nr {u64 dev, ino}, as the stock lays them out */
static int script__namespaces(struct script *s, const struct kernel_record *k)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	const u32 *ids = k->ids;
	u64 nr;

	if (!body_ok(k->h, k->trailer, 16, 0))
		return -EINVAL;
	memcpy(&nr, ids + 2, 8);
	if (nr > (k->h->size - sizeof(*k->h) - k->trailer - 16) / 16)
		return -EINVAL;
	if (!s->o->show_namespace || !record_start(s, k, ids[1]))
		return 0;
	fprintf(s->out, " %d/%d - nr_namespaces: %llu\n\t\t[", (int)ids[0], (int)ids[1],
		(unsigned long long)nr);
	for (u64 i = 0; i < nr; i++) {
		u64 dev, ino;

		memcpy(&dev, ids + 4 + 4 * i, 8);
		memcpy(&ino, ids + 6 + 4 * i, 8);
		if (i && i % 4 == 0)
			fprintf(s->out, "\n\t\t ");
		fprintf(s->out, "%u/%s: %llu/%#llx%s", (unsigned)i,
			i < ARRAY_SIZE(names) ? names[i] : "UNKNOWN", (unsigned long long)dev,
			(unsigned long long)ino, i + 1 != nr ? ", " : "]\n");
	}
	return 0;	/* none: the stock leaves the bracket open, with no newline */
}

/* u64 addr; u32 len; u16 type, flags; the name */
static int script__ksymbol(struct script *s, const struct kernel_record *k)
{
	const char *b = (const char *)(k->h + 1);
	u64 addr;
	u16 type, flags;

	if (!body_ok(k->h, k->trailer, 16 + 1, sizeof(*k->h) + 16))
		return -EINVAL;
	memcpy(&addr, b, 8);
	memcpy(&type, b + 12, 2);
	memcpy(&flags, b + 14, 2);
	if (s->dsos && machine__ksymbol(&s->machine, addr, k->ids[2], b + 16,
					flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		return -ENOMEM;
	if ((!s->o->show_bpf && !s->o->show_text_poke) || !record_start(s, k, k->sid.tid))
		return 0;
	fprintf(s->out, " addr %llx len %u type %u flags 0x%x name %s\n", (unsigned long long)addr,
		(unsigned)k->ids[2], (unsigned)type, (unsigned)flags, b + 16);
	return 0;
}

/* u16 type, flags; u32 id; the program's tag */
static int script__bpf_event(struct script *s, const struct kernel_record *k)
{
	u16 type_flags[2];

	if (!body_ok(k->h, k->trailer, 8, 0))
		return -EINVAL;
	if (!s->o->show_bpf || !record_start(s, k, k->sid.tid))
		return 0;
	memcpy(type_flags, k->ids, 4);
	fprintf(s->out, " type %u, flags %u, id %u\n", (unsigned)type_flags[0],
		(unsigned)type_flags[1], (unsigned)k->ids[1]);
	return 0;
}

/* The bytes of a TEXT_POKE, 16 a line, as the stock dumps them. */
static void print_poke_bytes(struct script *s, const u8 *p, unsigned len, const char *which)
{
	for (unsigned i = 0; i < len; i++)
		fprintf(s->out, "%s %02x%s", i % 16 ? "" : which, p[i],
			(i + 1) % 16 && i + 1 != len ? "" : "\n");
}

/* u64 addr; u16 old_len, new_len; the old bytes, then the new */
static int script__text_poke(struct script *s, const struct kernel_record *k)
{
	const u8 *b = (const u8 *)(k->h + 1);
	u64 addr;
	u16 len[2];

	if (!body_ok(k->h, k->trailer, 12, 0))
		return -EINVAL;
	memcpy(&addr, b, 8);
	memcpy(len, b + 8, 4);
	if (k->h->size - sizeof(*k->h) - k->trailer < 12 + (size_t)len[0] + len[1])
		return -EINVAL;
	if (!s->o->show_text_poke || !record_start(s, k, k->sid.tid))
		return 0;
	fprintf(s->out, " %llx ", (unsigned long long)addr);
	if (s->dsos) {
		struct addr_loc al;

		machine__resolve(&s->machine, -1, PERF_RECORD_MISC_KERNEL, addr, &al);
		if (al.sym)
			fprintf(s->out, "%s+0x%llx", symbol__name(al.map->dso, al.sym),
				(unsigned long long)al.symoff);
	}
	fprintf(s->out, " old len %u new len %u\n", (unsigned)len[0], (unsigned)len[1]);
	print_poke_bytes(s, b + 12, len[0], "            Old bytes:");
	print_poke_bytes(s, b + 12 + len[0], len[1], "            New bytes:");
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
	if (s->o->show_mmap) {
		char unnamed[16];

		if (task_record_start(s, k, comm_map__name(s->comms, k->ids[1], unnamed), k->ids, 0))
			script__print_mmap(s, h);
	}
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
	[PERF_RECORD_SWITCH] = script__switch,
	[PERF_RECORD_SWITCH_CPU_WIDE] = script__switch,
	[PERF_RECORD_LOST] = script__lost,
	[PERF_RECORD_NAMESPACES] = script__namespaces,
	[PERF_RECORD_KSYMBOL] = script__ksymbol,
	[PERF_RECORD_BPF_EVENT] = script__bpf_event,
	[PERF_RECORD_TEXT_POKE] = script__text_poke,
};

int script__process(struct script *s, const struct perf_event_header *h)
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
