/* A BPF program for tests/shell/record_bpf.sh, with no clang: hand-written
 * instructions loaded through libbpf, attached to the getppid syscall
 * tracepoint, spending a bounded loop per hit so that cpu-clock samples
 * land inside it. Its one function is described in BTF, so the kernel
 * names it bpf_prog_<tag>_<NAME> from there, and it has BTF to record.
 *
 *   bpf-load NAME     load and attach NAME (its function NAME_fn), print
 *                     "ID TAG BTF_ID", then keep it until stdin ends (then it
 *                     is unloaded)
 *   bpf-load --spin MS   call getppid for MS milliseconds
 *   bpf-load --fill N NAME   load and unload NAME N times, unattached and
 *                     without the loop (the verifier's walk of it is most
 *                     of a load's time): the kernel's records of a load
 *                     and an unload are the same whatever the program does
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/perf_event.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TP "/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id"
#define LOOPS 20000	/* ~60K instructions a hit: the verifier walks each */

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static int spin(unsigned long long ms)
{
	unsigned long long end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 100; i++)
			syscall(SYS_getppid);
	return 0;
}

static int tracepoint_id(void)
{
	FILE *f = fopen(TP, "r");
	int id = -1;

	/* tracefs unmounted: mount it where the kernel offers it */
	if (!f && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		f = fopen(TP, "r");
	if (!f || fscanf(f, "%d", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	return id;
}

/* BTF for the program's function, "int NAME_fn(void *ctx)", in the
 * kernel: its fd, or -1. The function's name is not the program's, so a
 * test tells which one a symbol was named from. */
static int load_btf(const char *name, __u32 *func_id)
{
	struct btf *btf = btf__new_empty();
	int fd, ret = -1;
	char fn_name[64];

	if (!btf)
		return -1;
	int int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int ptr_id = btf__add_ptr(btf, 0);
	int proto = btf__add_func_proto(btf, int_id);

	if (int_id > 0 && ptr_id > 0 && proto > 0 && !btf__add_func_param(btf, "ctx", ptr_id)) {
		int fn;

		snprintf(fn_name, sizeof(fn_name), "%s_fn", name);
		fn = btf__add_func(btf, fn_name, BTF_FUNC_STATIC, proto);

		if (fn > 0 && !btf__load_into_kernel(btf)) {
			fd = btf__fd(btf);
			ret = dup(fd);
			*func_id = fn;
		}
	}
	btf__free(btf);
	return ret;
}

/* NAME's program of n instructions, its function described in BTF: its
 * fd, or -1 after a line on stderr. */
static int load_prog(const char *name, const struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 0);
	struct bpf_func_info fi = { .insn_off = 0 };
	int btf_fd = load_btf(name, &fi.type_id), prog;

	if (btf_fd < 0) {
		fprintf(stderr, "bpf-load: BTF for %s: %s\n", name, strerror(errno));
		return -1;
	}
	opts.prog_btf_fd = btf_fd;
	opts.func_info = &fi;
	opts.func_info_cnt = 1;
	opts.func_info_rec_size = sizeof(fi);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, name, "GPL", insns, n, &opts);
	close(btf_fd);
	if (prog < 0)
		fprintf(stderr, "bpf-load: loading %s: %s\n", name, strerror(-prog));
	return prog < 0 ? -1 : prog;
}

static int fill(int n, const char *name)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	for (int i = 0; i < n; i++) {
		int prog = load_prog(name, ret0, sizeof(ret0) / sizeof(ret0[0]));

		if (prog < 0)
			return 1;
		close(prog);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = LOOPS },
		/* loop: r0 += r1; r0 ^= 0x5a; r1 -= 1; if r1 != 0 goto loop */
		{ .code = BPF_ALU64 | BPF_ADD | BPF_X, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_XOR | BPF_K, .dst_reg = BPF_REG_0, .imm = 0x5a },
		{ .code = BPF_ALU64 | BPF_SUB | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_1, .off = -4, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
					.sample_period = 1 };
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	char c;
	int prog, ev;

	if (argc == 3 && !strcmp(argv[1], "--spin"))
		return spin(strtoull(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "--fill"))
		return fill(atoi(argv[2]), argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: bpf-load NAME | --spin MS | --fill N NAME\n");
		return 2;
	}
	attr.config = tracepoint_id();
	if ((int)attr.config < 0) {
		fprintf(stderr, "bpf-load: no tracepoint id in %s\n", TP);
		return 1;
	}
	prog = load_prog(argv[1], insns, sizeof(insns) / sizeof(insns[0]));
	if (prog < 0)
		return 1;
	ev = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev < 0 || ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog) || ioctl(ev, PERF_EVENT_IOC_ENABLE, 0)) {
		fprintf(stderr, "bpf-load: attaching %s to getppid: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_obj_get_info_by_fd(prog, &info, &len)) {
		fprintf(stderr, "bpf-load: info of %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%u ", info.id);
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		printf("%02x", info.tag[i]);
	printf(" %u\n", info.btf_id);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
