/* perf record --off-cpu in the record session: its bpf-output event in
 * the evlist, the BPF program loaded for the target and started with the
 * recording, and the short blocks' sums written at the end. */
#ifndef PERF_RECORD_OFF_CPU_H
#define PERF_RECORD_OFF_CPU_H

struct record;

/* Before the events are configured: refuses (one line, -errno) where BPF
 * cannot run, else adds the offcpu-time event (a bpf-output event of each
 * CPU). 0 without --off-cpu. */
int record__add_off_cpu(struct record *rec);
/* After record__config(): its layouts, in the kernel and in files. */
void record__config_off_cpu(struct record *rec);
/* After the events are open: the program loaded for the target, the
 * events in its map. 0 or -errno with rec->err saying why. */
int record__load_off_cpu(struct record *rec);
/* Recording starts: the program attached (-v names it). 0 or -errno, said. */
int record__start_off_cpu(struct record *rec);
/* Recording over, its rings drained: the blocks below the threshold,
 * summed, as samples into the file (or the exit dump), stamped with the
 * recording's end. 0 or -errno, for the caller to say. */
int record__off_cpu_sums(struct record *rec);

/* CPU index c's events were opened anew (it came back online): the
 * program emits into its new event. 0 or -errno. */
int record__off_cpu_cpu_changed(struct record *rec, int c);

#endif
