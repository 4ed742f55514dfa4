/* What the programs that watch a target's tasks share (a header of BPF
 * code, included by *.bpf.c only): the recorder's bpf-output event of
 * each CPU, which they emit into; the recording's own processes, a BPF
 * hash map of tgids, followed into the children they fork, and its own
 * threads by tid. */
#ifndef BPF_TGIDS_BPF_H
#define BPF_TGIDS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define TGIDS_MAX 16384		/* the recording's own processes, and threads */

/* set before the load: the children of tgids join it (not with
 * --no-inherit: the recorder then leaves the tgids map alone) */
const volatile __u32 follow_forks = 0;

/* the recorder's bpf-output event of each CPU, by CPU number */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TGIDS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps"), tids SEC(".maps");

/* Whether task t is one of the recording's own: its process or itself. */
static __always_inline int tgids__own(struct task_struct *t)
{
	__u32 pid = BPF_CORE_READ(t, tgid), tid = BPF_CORE_READ(t, pid);

	return bpf_map_lookup_elem(&tgids, &pid) || bpf_map_lookup_elem(&tids, &tid);
}

/* From task_newtask, in the parent's context: a new task of a watched
 * process is watched too (a thread already is: same tgid). */
static __always_inline void tgids__follow(struct task_struct *task)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child;
	__u8 one = 1;

	if (!follow_forks || !bpf_map_lookup_elem(&tgids, &parent))
		return;
	child = BPF_CORE_READ(task, tgid);
	bpf_map_update_elem(&tgids, &child, &one, BPF_ANY);
}

#endif
