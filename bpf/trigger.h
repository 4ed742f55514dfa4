/* The loader of --switch-output-when's BPF programs: the kinds in use
 * attached, the conditions and the recorder's bpf-output events put in
 * their maps. Nothing is pinned: the programs go with the recorder. */
#ifndef PERF_BPF_TRIGGER_H
#define PERF_BPF_TRIGGER_H

#include <stddef.h>

struct bpf_tasks;
struct trigger_bpf;
struct trigger_conds;

/* The option the programs serve, in their messages. */
#define TRIGGER_BPF_WHO "--switch-output-when"

/* Whether the programs of the kinds of c can run here (BTF, permission,
 * hooks). 0, or -errno with one line in err:
 * "--switch-output-when: cannot load BPF: WHY". */
int trigger_bpf__check(const struct trigger_conds *c, char *err, size_t errsz);

/* Loads and attaches the programs of the kinds in use, with c's
 * conditions (cgroups resolved) and the own tasks tk (NULL: none), which
 * the conditions with own_tasks set watch,
 * emitting into fds[i], the bpf-output event of CPU cpus[i]. verbose
 * lists the programs on stderr. 0 with *out set, or -errno with one line
 * in err. */
int trigger_bpf__start(struct trigger_bpf **out, const struct trigger_conds *c,
		       const struct bpf_tasks *tk, const int *cpus, const int *fds, int nr,
		       int verbose, char *err, size_t errsz);
/* The bpf-output event of CPU cpu opened anew (the CPU back online): fd
 * takes the old one's place in the programs' map. 0 or -errno. */
int trigger_bpf__set_event(struct trigger_bpf *t, int cpu, int fd);
/* Detaches and unloads them (NULL: nothing). */
void trigger_bpf__stop(struct trigger_bpf *t);

#endif
