/* What every BPF feature of the recorder shares: whether its programs can
 * run here (the kernel's BTF, permission, the hooks), libbpf's messages
 * routed to -v, and the -v lines naming the programs loaded. Nothing is
 * pinned: programs live as long as the recorder's fds, so they unload when
 * it ends, however it ends (SIGKILL included). */
#ifndef PERF_BPF_LOADER_H
#define PERF_BPF_LOADER_H

#include <stddef.h>
#include <sys/types.h>

struct bpf_map;
struct bpf_object;

/* The kernel's BTF, which CO-RE relocates the programs against. */
#define BPF_LOADER_BTF "/sys/kernel/btf/vmlinux"
/* For tests only: a file read instead of BPF_LOADER_BTF, by the check and
 * by libbpf's relocations alike (a missing one plays a kernel built
 * without BTF). */
#define BPF_LOADER_BTF_ENV "PERF_TEST_VMLINUX_BTF"

/* The BTF file in use: BPF_LOADER_BTF, or what BPF_LOADER_BTF_ENV names. */
const char *bpf_loader__btf_path(void);
/* What to give libbpf's bpf_object_open_opts.btf_custom_path: NULL for
 * the kernel's own, else the test's file. */
const char *bpf_loader__btf_custom_path(void);

/* Whether the BPF programs of feature `who` (an option: "--off-cpu") can
 * run here: the BTF readable, bpf() allowed to load tracing programs, and
 * the kernel offering every hook of hooks (NULL-terminated section names:
 * "tp_btf/sched_switch", "fentry/FUNC", "raw_tp/NAME"). 0, or -errno with
 * one line in err, "WHO: cannot load BPF: WHY". */
int bpf_loader__check(const char *who, const char *const *hooks, char *err, size_t errsz);

/* libbpf's messages: silenced, or to stderr from verbose 1 (its debug
 * lines from verbose 2). libbpf keeps one printer for the process. */
void bpf_loader__set_print(int verbose);

/* -v: one line to stderr per program of obj, loaded:
 * "WHO: BPF program NAME (SECTION) id ID". */
void bpf_loader__list(const struct bpf_object *obj, const char *who);

/* A CPU's event changed (opened, or opened anew when the CPU came back
 * online): fd goes into the PERF_EVENT_ARRAY map events at cpu, where
 * the programs that emit on that CPU find it; the map's hold on the old
 * event ends. 0 or -errno. */
int bpf_loader__cpu_event(struct bpf_map *events, int cpu, int fd);

/* The recording's own tasks, which the programs that watch only them find
 * in the maps tgids and tids of bpf/tgids.bpf.h: processes (-p, -u, the
 * workload), with the children they fork when follow, and threads (-t). */
struct bpf_tasks {
	const pid_t *pids;
	int nr_pids;
	const pid_t *tids;
	int nr_tids;
	int follow;
};

/* Each of the nr keys (key_size bytes each) into the set map (a hash
 * whose values are a u8 1). 0 or -errno. */
int bpf_loader__fill_set(struct bpf_map *map, const void *keys, size_t key_size, int nr);
/* tasks into the maps tgids and tids. 0 or -errno. */
int bpf_loader__fill_tasks(struct bpf_map *tgids, struct bpf_map *tids,
			   const struct bpf_tasks *tasks);

#endif
