// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --switch-output-when in the kernel: measures how long tasks stay off
 * CPU, in one system call, or runnable on a run queue, and when a
 * duration is above one of the conditions the recorder put in the conds
 * map, writes one readable line saying so into the recorder's bpf-output
 * event on this CPU: that sample wakes the recorder, which dumps, and the
 * dump keeps it. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/trigger-map.h"
#include "bpf/tgids.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* set before the load: the conditions in use, and their kinds' bits */
const volatile __u32 nr_conds = 0;
const volatile __u32 kinds = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGGER_MAX_CONDS);
	__type(key, __u32);
	__type(value, struct trigger_map_cond);
} conds SEC(".maps");

/* When each measured span of a task began (0: none under way). */
struct since {
	__u64 offcpu;
	__u64 runq;
	__u64 sys;
	__s64 sys_nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct since);
} since SEC(".maps");

struct line {
	char text[TRIGGER_RECORD_LEN];
};

/* the line being written: too big for the stack beside snprintf's args */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct line);
} scratch SEC(".maps");

static const char kind_names[TRIGGER_NR_KINDS][8] = { "offcpu", "syscall", "runqlat" };

#define TASK_BLOCKED 3	/* TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE */

struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

static __always_inline int in_use(__u32 kind)
{
	return kinds & (1U << kind);
}

static __always_inline int comm_is(const char *a, const char *b)
{
	for (int i = 0; i < TRIGGER_COMM_LEN; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			break;
	}
	return 1;
}

/* The first condition of kind that task t meets, for a span of dur ns
 * (check_dur 0: whether any could, whatever the span). -1 when none. */
static __always_inline int match(__u32 kind, struct task_struct *t, __u64 dur, int check_dur)
{
	char comm[TRIGGER_COMM_LEN] = {};
	int have_comm = 0;

	for (__u32 i = 0; i < TRIGGER_MAX_CONDS && i < nr_conds; i++) {
		__u32 key = i;
		struct trigger_map_cond *c = bpf_map_lookup_elem(&conds, &key);

		if (!c || c->kind != kind || (check_dur && dur <= c->threshold_ns))
			continue;
		/* the recording's own tasks (-p, -t, -u, a workload) */
		if (c->own_tasks && !tgids__own(t))
			continue;
		if (c->pid >= 0 && BPF_CORE_READ(t, tgid) != c->pid)
			continue;
		if (c->tid >= 0 && BPF_CORE_READ(t, pid) != c->tid)
			continue;
		if (c->cgroup_id && BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) != c->cgroup_id)
			continue;
		if (c->has_comm && !have_comm) {
			bpf_core_read_str(comm, sizeof(comm), &t->comm);
			have_comm = 1;
		}
		if (c->has_comm && !comm_is(comm, c->comm))
			continue;
		return i;
	}
	return -1;
}

/* One line, "COND: COMM pid P tid T KIND D ms", padded with NULs so that
 * the sample's raw data (a u32 size, then the line) ends on a u64: the
 * kernel pads it with whatever the ring held, and a reader prints a line
 * followed by only NULs as a string. */
static __always_inline void emit(void *ctx, int i, struct task_struct *t, __u64 dur,
				 __s64 sys_nr)
{
	__u32 key = i, zero = 0;
	struct trigger_map_cond *c = bpf_map_lookup_elem(&conds, &key);
	struct line *l = bpf_map_lookup_elem(&scratch, &zero);
	char comm[TRIGGER_COMM_LEN] = {};
	__u64 len;
	long n;

	if (!c || !l || c->kind >= TRIGGER_NR_KINDS)
		return;
	bpf_core_read_str(comm, sizeof(comm), &t->comm);
	__builtin_memset(l->text, 0, sizeof(l->text));
	if (c->kind == TRIGGER_SYSCALL)
		n = BPF_SNPRINTF(l->text, sizeof(l->text),
				 "%s: %s pid %d tid %d syscall %lld took %llu.%06llu ms", c->text,
				 comm, BPF_CORE_READ(t, tgid), BPF_CORE_READ(t, pid), sys_nr,
				 dur / 1000000, dur % 1000000);
	else
		n = BPF_SNPRINTF(l->text, sizeof(l->text), "%s: %s pid %d tid %d %s %llu.%06llu ms",
				 c->text, comm, BPF_CORE_READ(t, tgid), BPF_CORE_READ(t, pid),
				 kind_names[c->kind], dur / 1000000, dur % 1000000);
	if (n <= 0)
		return;
	len = n < TRIGGER_RECORD_LEN ? n : TRIGGER_RECORD_LEN;
	len = ((len + 4 + 7) & ~7ULL) - 4;
	if (len > TRIGGER_RECORD_LEN)
		len = TRIGGER_RECORD_LEN;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, l->text, len);
}

static __always_inline struct since *since_of(struct task_struct *t, int create)
{
	return bpf_task_storage_get(&since, t, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* A span of kind begins for t now, if a condition may want it. */
static __always_inline void begin(__u32 kind, struct task_struct *t, __s64 sys_nr)
{
	struct since *s;

	if (!in_use(kind) || !BPF_CORE_READ(t, pid) || match(kind, t, 0, 0) < 0)
		return;
	s = since_of(t, 1);
	if (!s)
		return;
	if (kind == TRIGGER_OFFCPU)
		s->offcpu = bpf_ktime_get_ns();
	else if (kind == TRIGGER_RUNQLAT)
		s->runq = bpf_ktime_get_ns();
	else {
		s->sys = bpf_ktime_get_ns();
		s->sys_nr = sys_nr;
	}
}

/* The span that began at *start ends now: a trigger if it is too long. */
static __always_inline void end(void *ctx, __u32 kind, struct task_struct *t, __u64 *start,
				__s64 sys_nr)
{
	__u64 dur = bpf_ktime_get_ns() - *start;
	int i;

	*start = 0;
	i = match(kind, t, dur, 1);
	if (i >= 0)
		emit(ctx, i, t, dur, sys_nr);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(trigger_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	int runnable = preempt || !(task_state(prev) & TASK_BLOCKED);
	struct since *s;

	if (!runnable)
		begin(TRIGGER_OFFCPU, prev, 0);
	else
		begin(TRIGGER_RUNQLAT, prev, 0);	/* preempted: back on the run queue */
	s = since_of(next, 0);
	if (s && s->offcpu)
		end(ctx, TRIGGER_OFFCPU, next, &s->offcpu, 0);
	if (s && s->runq)
		end(ctx, TRIGGER_RUNQLAT, next, &s->runq, 0);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(trigger_wakeup, struct task_struct *p)
{
	begin(TRIGGER_RUNQLAT, p, 0);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(trigger_wakeup_new, struct task_struct *p)
{
	begin(TRIGGER_RUNQLAT, p, 0);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(trigger_sys_enter, struct pt_regs *regs, long id)
{
	begin(TRIGGER_SYSCALL, bpf_get_current_task_btf(), id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(trigger_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct since *s = since_of(t, 0);

	if (s && s->sys)
		end(ctx, TRIGGER_SYSCALL, t, &s->sys, s->sys_nr);
	return 0;
}

/* A process of the recording's own forks: its child is one of them too
 * (not with --no-inherit: the recorder then leaves the tgids map alone). */
SEC("tp_btf/task_newtask")
int BPF_PROG(trigger_newtask, struct task_struct *task, __u64 clone_flags)
{
	tgids__follow(task);
	return 0;
}
