/* The conditions of --switch-output-when as the BPF program reads them:
 * the layout of its map's values, shared by bpf/trigger.bpf.c and the
 * recorder. Fixed-width types only, so both compilers lay it out alike. */
#ifndef PERF_BPF_TRIGGER_MAP_H
#define PERF_BPF_TRIGGER_MAP_H

/* What is measured: a task blocked (switch-out to switch-in), one system
 * call (entry to exit), a task runnable and waiting for a CPU (wakeup or
 * preemption to switch-in). */
enum trigger_kind {
	TRIGGER_OFFCPU,
	TRIGGER_SYSCALL,
	TRIGGER_RUNQLAT,
	TRIGGER_NR_KINDS,
};

#define TRIGGER_MAX_CONDS 8
#define TRIGGER_COMM_LEN 16		/* the kernel's TASK_COMM_LEN */
#define TRIGGER_TEXT_LEN 96		/* the condition as written, in each record */
#define TRIGGER_RECORD_LEN 252		/* a record's text: 4 + 252 fills the sample's u64s */

/* One condition: a duration of its kind above threshold_ns, in a task that
 * every qualifier set matches (a field at its "any" value qualifies none). */
struct trigger_map_cond {
	__u64 threshold_ns;
	__u64 cgroup_id;		/* the task's cgroup v2 id; 0: any */
	__u32 kind;			/* enum trigger_kind */
	__s32 pid;			/* process (tgid); -1: any */
	__s32 tid;			/* thread; -1: any */
	__u32 has_comm;
	__u32 own_tasks;		/* only the recording's own tasks (the tasks map) */
	__u32 reserved;
	char comm[TRIGGER_COMM_LEN];
	char text[TRIGGER_TEXT_LEN];	/* NUL-terminated */
};

#endif
