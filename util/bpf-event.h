/* The BPF programs a recording saw load, kept as the BPF_PROG_INFO and
 * BPF_BTF features describe them, and their synthesized records. */
#ifndef PERF_BPF_EVENT_H
#define PERF_BPF_EVENT_H

#include <linux/perf_event.h>
#include "lib/buf.h"

/* The BPF programs a recording saw load, as the BPF_PROG_INFO and BPF_BTF
 * features describe them: each program's bpf_prog_info with its arrays
 * (jited code, symbols, lengths, tags, func and line info), read from the
 * kernel when its load was seen, so that a program unloaded before the
 * file or dump is written is still described. The feature bodies are
 * built as programs come, ready to be copied out. */
struct bpf_progs {
	struct buf info;	/* BPF_PROG_INFO: u32 count, then the entries */
	struct buf btf;		/* BPF_BTF: u32 count, then {u32 id, u32 size, data} */
	u32 *ids, *btf_ids;	/* programs and BTF objects already in them */
	size_t nr_ids, nr_btf_ids, cap_ids, cap_btf_ids;
	u64 missed;		/* programs whose info could not be read (gone, no memory) */
};

/* Empty feature bodies (count 0), freed by bpf_progs__exit(), which
 * leaves p zeroed. */
void bpf_progs__init(struct bpf_progs *p);
void bpf_progs__exit(struct bpf_progs *p);

/* KSYMBOL (one per jited function) and BPF_EVENT (PROG_LOAD) records, time
 * 0 and id 0 with the trailer for sample_type, for every BPF program
 * loaded now, appended to out; each program's info goes into p. 0, or
 * -errno when the programs cannot be listed (EPERM: not allowed). */
int bpf_progs__synthesize(struct bpf_progs *p, struct buf *out, u64 sample_type);

/* A record drained from the rings: on a BPF_EVENT PROG_LOAD, reads that
 * program's info by id (a few syscalls) unless p has it. A program already
 * gone, or no memory for it, is counted in p->missed: only its description
 * is at stake, never the recording. */
void bpf_progs__saw(struct bpf_progs *p, const struct perf_event_header *h);

/* perf 6.1's sizeof(struct bpf_prog_info): it refuses a longer entry, and
 * every feature after it with it, so none is written longer. */
#define BPF_PROG_INFO_MAX 232
/* One BPF_PROG_INFO entry as a reader takes it: 0 when info_len is at
 * most BPF_PROG_INFO_MAX and every array the mask names lies inside the
 * data_len bytes of data (their offsets and counts are in info), else
 * -EINVAL (the stock perf would read past its data). */
int bpf_prog_info__check(const void *info, u32 info_len, u64 arrays, u32 data_len);

#endif
