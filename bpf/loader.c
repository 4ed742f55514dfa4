/* The checks, messages and -v listing every BPF feature of the recorder
 * shares (bpf/loader.h). */
#include "bpf/loader.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>

const char *bpf_loader__btf_path(void)
{
	const char *p = getenv(BPF_LOADER_BTF_ENV);

	return p && *p ? p : BPF_LOADER_BTF;
}

const char *bpf_loader__btf_custom_path(void)
{
	const char *p = getenv(BPF_LOADER_BTF_ENV);

	return p && *p ? p : NULL;
}

/* Can this process load a tracing program? The smallest one (r0 = 0;
 * exit) of the type the kernel asks CAP_BPF and CAP_PERFMON for. 0 or
 * -errno. */
static int bpf_loader__probe_load(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* The BTF type that says the kernel has the hook of section sec: a
 * tracepoint's btf_trace_NAME typedef, a function's FUNC. 0, -ENOENT when
 * missing, -EINVAL for a section of no kind known here. */
static int bpf_loader__find_hook(const struct btf *btf, const char *sec)
{
	const char *slash = strchr(sec, '/');
	char name[256];

	if (!slash || !slash[1])
		return -EINVAL;
	if (!strncmp(sec, "tp_btf/", 7) || !strncmp(sec, "raw_tp/", 7)) {
		snprintf(name, sizeof(name), "btf_trace_%s", slash + 1);
		return btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0 ? -ENOENT : 0;
	}
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))
		return btf__find_by_name_kind(btf, slash + 1, BTF_KIND_FUNC) < 0 ? -ENOENT : 0;
	return -EINVAL;
}

/* Every hook of hooks in the BTF at path. 0 or -errno, why in err. */
static int bpf_loader__check_hooks(const char *who, const char *path, const char *const *hooks,
				   char *err, size_t errsz)
{
	struct btf *btf = btf__parse(path, NULL);
	int ret = 0;

	if (!btf) {
		ret = -errno;
		snprintf(err, errsz, "%s: cannot load BPF: %s: %s", who, path, strerror(errno));
		return ret;
	}
	for (; hooks && *hooks && !ret; hooks++) {
		ret = bpf_loader__find_hook(btf, *hooks);
		if (ret)
			snprintf(err, errsz, "%s: cannot load BPF: the kernel has no %s hook (%s)",
				 who, *hooks, path);
	}
	btf__free(btf);
	return ret == -ENOENT ? -EOPNOTSUPP : ret;
}

int bpf_loader__check(const char *who, const char *const *hooks, char *err, size_t errsz)
{
	const char *path = bpf_loader__btf_path();
	int ret;

	if (access(path, R_OK)) {
		ret = -errno;
		snprintf(err, errsz, "%s: cannot load BPF: %s: %s", who, path, strerror(errno));
		return ret;
	}
	ret = bpf_loader__probe_load();
	if (ret) {
		snprintf(err, errsz, "%s: cannot load BPF: bpf(BPF_PROG_LOAD): %s%s", who,
			 strerror(-ret), ret == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or root)" : "");
		return ret;
	}
	return bpf_loader__check_hooks(who, path, hooks, err, errsz);
}

static int bpf_loader__print_none(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int bpf_loader__print_info(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static int bpf_loader__print_all(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void bpf_loader__set_print(int verbose)
{
	libbpf_set_print(verbose > 1 ? bpf_loader__print_all :
			 verbose > 0 ? bpf_loader__print_info : bpf_loader__print_none);
}

void bpf_loader__list(const struct bpf_object *obj, const char *who)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;	/* not loaded (autoload off) */
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			info.id = 0;
		fprintf(stderr, "%s: BPF program %s (%s) id %u\n", who, bpf_program__name(prog),
			bpf_program__section_name(prog), info.id);
	}
}

int bpf_loader__cpu_event(struct bpf_map *events, int cpu, int fd)
{
	__u32 key = cpu, value = fd;

	if (cpu < 0 || fd < 0)
		return -EINVAL;
	return bpf_map__update_elem(events, &key, sizeof(key), &value, sizeof(value), BPF_ANY);
}

int bpf_loader__fill_set(struct bpf_map *map, const void *keys, size_t key_size, int nr)
{
	__u8 one = 1;
	int err = 0;

	for (int i = 0; i < nr && !err; i++)
		err = bpf_map__update_elem(map, (const char *)keys + i * key_size, key_size, &one,
					   sizeof(one), BPF_ANY);
	return err;
}

int bpf_loader__fill_tasks(struct bpf_map *tgids, struct bpf_map *tids,
			   const struct bpf_tasks *tasks)
{
	int err = bpf_loader__fill_set(tgids, tasks->pids, sizeof(pid_t), tasks->nr_pids);

	return err ? err : bpf_loader__fill_set(tids, tasks->tids, sizeof(pid_t), tasks->nr_tids);
}
