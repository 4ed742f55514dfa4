/* The recording's own processes, a BPF hash map of tgids, followed into
 * the children they fork: shared by the programs that watch a target's
 * tasks (a header of BPF code, included by *.bpf.c only). */
#ifndef BPF_TGIDS_BPF_H
#define BPF_TGIDS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* From task_newtask, in the parent's context: a new task of a watched
 * process is watched too (a thread already is: same tgid). */
static __always_inline void tgids__follow(void *tgids, struct task_struct *task)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(tgids, &parent))
		return;
	child = BPF_CORE_READ(task, tgid);
	bpf_map_update_elem(tgids, &child, &one, BPF_ANY);
}

#endif
