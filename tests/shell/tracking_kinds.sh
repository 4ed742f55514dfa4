#!/bin/bash
# perf record -a: KSYMBOL and BPF_EVENT of a BPF program, CGROUP of a new cgroup, in files and dumps
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "loading a BPF program and making a cgroup"
need_cc
[ -e /usr/include/linux/bpf.h ] || skip "no <linux/bpf.h> (linux-libc-dev)"
[ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" = 1 ] ||
	skip "the BPF JIT is off: no KSYMBOL for a program"
cgroot=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
[ -n "$cgroot" ] || skip "no cgroup2 mount"
cd "$TMP" || exit 1

# loads a do-nothing socket filter and frees it: KSYMBOL and BPF_EVENT,
# register and unregister, with the program's name
cat > bpfload.c <<'C'
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (unsigned long)prog;
	a.insn_cnt = 2;
	a.license = (unsigned long)"GPL";
	strcpy(a.prog_name, "frtest_prog");
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0) {
		perror("bpf");
		return 1;
	}
	close(fd);
	return 0;
}
C
cc -o bpfload bpfload.c || fail "compile"

check() {	# FILE CGROUP-NAME CGROUP-ID
	local out=$1.txt id
	stock_reads_clean "$1"
	"$STOCK" script -i "$1" --show-bpf-events --show-cgroup-events 2>/dev/null > "$out"
	[ "$(grep -c 'PERF_RECORD_KSYMBOL .* type 1 flags 0x0 name bpf_prog_[0-9a-f]*_frtest_prog$' "$out")" -eq 1 ] ||
		fail "$1: not one KSYMBOL register of frtest_prog: $(grep KSYMBOL "$out" | head -3)"
	[ "$(grep -c 'PERF_RECORD_KSYMBOL .* type 1 flags 0x1 name bpf_prog_[0-9a-f]*_frtest_prog$' "$out")" -eq 1 ] ||
		fail "$1: not one KSYMBOL unregister of frtest_prog"
	id=$(awk '/bpfload/ && /PERF_RECORD_BPF_EVENT type 1,/ {print $NF}' "$out")
	[ "$(echo "$id" | grep -c .)" -eq 1 ] || fail "$1: not one BPF_EVENT load by bpfload: $(grep BPF_EVENT "$out")"
	grep -q "PERF_RECORD_BPF_EVENT type 2, flags 0, id $id$" "$out" || fail "$1: no BPF_EVENT unload of id $id"
	[ "$(grep -c "PERF_RECORD_CGROUP cgroup: $3 /$2$" "$out")" -eq 1 ] ||
		fail "$1: not one CGROUP $3 /$2: $(grep CGROUP "$out" | head -3)"
}

# the workload: load a program, make a cgroup (its id is its inode number)
for mode in normal overwrite; do
	opt=; [ $mode = overwrite ] && opt=--overwrite
	name=frtest-$$-$mode
	"$PERF" record -q $opt -a -e cpu-clock -o $mode.data -- \
		sh -c './bpfload && mkdir "$0" && stat -c %i "$0" > cgid && rmdir "$0"' "$cgroot/$name" ||
		fail "$mode record"
	check $mode.data "$name" "$(cat cgid)"
	log "$mode: $(grep -c 'KSYMBOL\|BPF_EVENT\|CGROUP' $mode.data.txt) records"
done
exit 0
