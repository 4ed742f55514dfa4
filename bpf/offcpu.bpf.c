// SPDX-License-Identifier: GPL-2.0
/* perf record --off-cpu: on the scheduler's switch, how long each task of
 * the target was off CPU, blocked. At the switch-out the task's time and
 * kernel and user stacks go into its task storage; at its switch-in a
 * block of at least thresh_ns is emitted whole into this CPU's bpf-output
 * event, and a shorter one is added to its (task, stacks) sum, read at the
 * end. A preempted task (still runnable) is not blocked: it is skipped. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/offcpu-data.h"
#include "bpf/tgids.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* set before the load (the rodata): what the recorder's target is */
const volatile __u64 thresh_ns = 1000000;
const volatile __u32 filter_tasks;	/* only tasks in tgids or tids */
const volatile __u32 filter_cgroups;	/* only tasks under a cgroup of cgroups */
const volatile __u32 filter_uid;	/* only tasks of uid */
const volatile __u32 filter_cpus;	/* only blocks that begin on a CPU of cpus (-C) */
const volatile __u32 uid;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_data);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u8);
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

/* the blocks below the threshold, summed per task and stacks: the key is
 * a hash of the stacks, the value the last block with the sum as its
 * duration */
struct offcpu_key {
	__u32 pid, tid;
	__u64 stack_hash;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_data);
} sums SEC(".maps");

static __always_inline int offcpu_in_cgroups(struct task_struct *t)
{
	struct cgroup *cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);

	for (int i = 0; i < 32 && cg; i++) {
		__u64 id = BPF_CORE_READ(cg, kn, id);

		if (bpf_map_lookup_elem(&cgroups, &id))
			return 1;
		cg = (struct cgroup *)BPF_CORE_READ(cg, self.parent);
	}
	return 0;
}

static __always_inline int offcpu_wanted(struct task_struct *t)
{
	if (!BPF_CORE_READ(t, pid))
		return 0;	/* the idle task */
	if (filter_tasks && !tgids__own(t))
		return 0;
	if (filter_uid && (__u32)bpf_get_current_uid_gid() != uid)
		return 0;
	return !filter_cgroups || offcpu_in_cgroups(t);
}

/* prev is current: its stacks are this CPU's */
static __always_inline void offcpu_out(void *ctx, struct task_struct *prev, __u64 now)
{
	struct offcpu_data *d;
	__u32 k;
	long n;

	if (BPF_CORE_READ(prev, __state) == 0 || !offcpu_wanted(prev))
		return;
	k = bpf_get_smp_processor_id();
	if (filter_cpus && !bpf_map_lookup_elem(&cpus, &k))
		return;
	d = bpf_task_storage_get(&starts, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!d)
		return;
	d->pid = BPF_CORE_READ(prev, tgid);
	d->tid = BPF_CORE_READ(prev, pid);
	d->time = now;
	d->cpu = bpf_get_smp_processor_id();
	/* the innermost frames are this program and the tracepoint's
	 * call of it, skipped: the stack starts in __schedule */
	n = bpf_get_stack(ctx, d->ips, OFFCPU_MAX_STACK * sizeof(__u64), 2 & BPF_F_SKIP_FIELD_MASK);
	/* at most 127 frames: the mask (0x7f) is what the verifier sees */
	k = (n > 0 ? n / sizeof(__u64) : 0) & OFFCPU_MAX_STACK;
	d->kernel_nr = k;
	n = bpf_get_stack(ctx, &d->ips[k], OFFCPU_MAX_STACK * sizeof(__u64), BPF_F_USER_STACK);
	d->user_nr = n > 0 ? n / sizeof(__u64) : 0;
}

static __always_inline __u64 offcpu_hash(const struct offcpu_data *d)
{
	__u64 h = 14695981039346656037ULL;
	__u32 nr = d->kernel_nr + d->user_nr;

	for (__u32 i = 0; i < 2 * OFFCPU_MAX_STACK && i < nr; i++)
		h = (h ^ d->ips[i]) * 1099511628211ULL;
	return h ^ d->kernel_nr;
}

/* A block below the threshold joins its (task, stacks) sum. */
static __always_inline void offcpu_sum(struct offcpu_data *d)
{
	struct offcpu_key key = { d->pid, d->tid, offcpu_hash(d) };
	struct offcpu_data *s = bpf_map_lookup_elem(&sums, &key);
	__u64 total = d->duration;

	if (s) {
		total += s->duration;
		s->duration = total;
		s->time = d->time;
		s->cpu = d->cpu;
		return;
	}
	bpf_map_update_elem(&sums, &key, d, BPF_NOEXIST);
}

static __always_inline void offcpu_in(void *ctx, struct task_struct *next, __u64 now)
{
	struct offcpu_data *d = bpf_task_storage_get(&starts, next, NULL, 0);
	__u64 size;

	if (!d || !d->time)
		return;
	d->duration = now - d->time;
	if (d->duration < thresh_ns) {
		offcpu_sum(d);
	} else {
		size = OFFCPU_DATA_HEAD + (__u64)(d->kernel_nr + d->user_nr) * sizeof(__u64);
		if (size <= sizeof(*d))
			bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, d, size);
	}
	d->time = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();

	offcpu_out(ctx, prev, now);
	offcpu_in(ctx, next, now);
	return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(offcpu_newtask, struct task_struct *task, __u64 clone_flags)
{
	tgids__follow(task);
	return 0;
}
