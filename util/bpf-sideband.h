/* The BPF side band: rings that wake the loop on every BPF program load,
 * so that its info is read before it unloads. */
#ifndef PERF_BPF_SIDEBAND_H
#define PERF_BPF_SIDEBAND_H

#include "util/mmap.h"

struct bpf_progs;

/* A BPF program that loads and unloads between two drains of the main
 * rings (which wake the loop only when half full) would be gone before
 * its info is read. So, as the stock perf does, a dummy event per CPU
 * with bpf_event only, whose small ring wakes the loop on every record:
 * one epoll fd for all of them goes into the loop's poll set. */
struct bpf_sideband {
	int epfd;		/* -1: not open */
	int nr;
	int *fds;
	struct mmap *rings;
};

/* Opens the events on every online CPU. 0 or -errno (sb is then closed
 * and the drain's BPF_EVENT records are all that feed p). */
int bpf_sideband__open(struct bpf_sideband *sb);
/* Unmaps and closes what open made; sb is then closed (epfd -1), which
 * closing again does nothing to. */
void bpf_sideband__close(struct bpf_sideband *sb);
/* The fd to poll for POLLIN; -1 when not open. */
static inline int bpf_sideband__fd(const struct bpf_sideband *sb) { return sb->epfd; }
/* Empties every ring, reading the info of each program whose load goes
 * by into p (bpf_progs__saw()). */
void bpf_sideband__read(struct bpf_sideband *sb, struct bpf_progs *p);

#endif
