/* The raw data of one off-CPU record, as bpf/offcpu.bpf.c emits it into
 * the bpf-output events and bpf/offcpu.c reads it back: shared by the BPF
 * program and the recorder, so it names only fixed-size types. */
#ifndef PERF_BPF_OFFCPU_DATA_H
#define PERF_BPF_OFFCPU_DATA_H

/* the most frames of each side, the kernel's perf_event_max_stack default */
#define OFFCPU_MAX_STACK 127

/* What a task's block was: who, from when (switch-out, ns of the perf
 * clock), how long, where it ran, and its stacks at the switch-out:
 * kernel_nr kernel frames, then user_nr user frames, innermost first. */
struct offcpu_data {
	__u32 pid, tid;
	__u64 time;
	__u64 duration;
	__u32 cpu;
	__u32 kernel_nr;
	__u32 user_nr;
	__u32 reserved;
	__u64 ips[2 * OFFCPU_MAX_STACK];
};

#define OFFCPU_DATA_HEAD 40	/* the bytes before ips */

#endif
