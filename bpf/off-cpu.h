/* perf record --off-cpu: the BPF program of bpf/offcpu.bpf.c loaded for
 * the record's target, its bpf-output events, and the rewrite of what it
 * emits into ordinary samples of the event offcpu-time, which readers
 * take like any other (period: the ns off CPU; callchain: where the task
 * blocked). */
#ifndef PERF_BPF_OFF_CPU_H
#define PERF_BPF_OFF_CPU_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "lib/util.h"
#include "bpf/loader.h"

#define OFF_CPU_EVENT "offcpu-time"
#define OFF_CPU_OPTION "--off-cpu"
/* --off-cpu-thresh's default, ms (see Documentation/perf-record.txt) */
#define OFF_CPU_THRESH_MS 1
/* the most bytes an offcpu-time sample takes (both stacks full) */
#define OFF_CPU_RECORD_MAX 4096

/* What the program watches: the record's target. */
struct off_cpu_opts {
	u64 thresh_ns;
	struct bpf_tasks tasks;	/* the target's tasks (none: any task) */
	int filter_uid;		/* -u */
	uid_t uid;
	const u64 *cgroups;	/* -G: cgroup ids (their directories' inodes), with descendants */
	int nr_cgroups;
	const int *cpus;	/* -C: only blocks that begin on these CPUs */
	int nr_cpus;
};

struct off_cpu;

/* Whether --off-cpu can run here: one line in err when not. 0 or -errno. */
int off_cpu__check(char *err, size_t errsz);
/* The program loaded (not attached) for o. NULL with one line in err. */
struct off_cpu *off_cpu__load(const struct off_cpu_opts *o, char *err, size_t errsz);
/* The bpf-output event of CPU number cpu, at the load or opened anew
 * (the CPU back online). 0 or -errno. */
int off_cpu__set_event(struct off_cpu *oc, int cpu, int fd);
/* Starts it: blocks are measured from now on. 0 or -errno with err set. */
int off_cpu__attach(struct off_cpu *oc, char *err, size_t errsz);
/* -v: the programs, by name. */
void off_cpu__list(const struct off_cpu *oc);
/* Unloads everything (NULL: nothing). */
void off_cpu__delete(struct off_cpu *oc);

/* One off-CPU sample's fields, however it came. */
struct off_cpu_sample {
	u64 id;			/* the bpf-output event's (IDENTIFIER, ID) */
	u32 pid, tid;
	u64 time;		/* the switch-out, perf clock */
	u64 period;		/* ns off CPU */
	u32 cpu;
	u32 kernel_nr, user_nr;
	const void *ips;	/* kernel_nr then user_nr u64s (maybe unaligned) */
};

/* The sample_type of the bpf-output events: the sample_id fields every
 * event has (id_type), and RAW. */
u64 off_cpu__event_type(u64 id_type);
/* The sample_type the file gives offcpu-time: the same sample_id fields,
 * IP, TID, TIME, CPU, PERIOD, CALLCHAIN. */
u64 off_cpu__sample_type(u64 id_type);

/* A bpf-output sample of sample_type in_type (off_cpu__event_type()) into
 * s: -EINVAL when it is not a whole off-CPU record. The switch-out is the
 * kernel's stamp (the switch-in, when the record was emitted) less the
 * time off CPU. */
int off_cpu__parse(u64 in_type, const struct perf_event_header *in, size_t size,
		   struct off_cpu_sample *s);
/* s as a PERF_RECORD_SAMPLE of sample_type out_type (off_cpu__sample_type())
 * into out (cap bytes, 8-aligned): its size, or -ENOSPC. */
ssize_t off_cpu__build(u64 out_type, const struct off_cpu_sample *s, void *out, size_t cap);
/* The two: a bpf-output sample rewritten as an offcpu-time one, the one
 * meaning both the drain and the dumps give them. Size or -errno. */
ssize_t off_cpu__rewrite(u64 in_type, u64 out_type, const struct perf_event_header *in,
			 void *out, size_t cap);

/* The blocks below the threshold, summed per task and stacks: each as a
 * sample through emit (time: the sample's, since no switch-out is kept
 * for a sum), then forgotten. The number emitted, or -errno from emit. */
int off_cpu__drain_sums(struct off_cpu *oc, u64 id, u64 time,
			int (*emit)(const struct off_cpu_sample *s, void *arg), void *arg);

#endif
