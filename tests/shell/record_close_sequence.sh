#!/bin/bash
# perf record -c 1 -e syscalls:sys_enter_close: exactly N events, in order
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
cd "$TMP" || exit 1
N=5000

# the loader's own close() calls come too: the numbered ones must be exact
check() {	# FILE PID
	"$STOCK" script -i "$1" -F pid,trace 2>/dev/null |
		awk -v pid="$2" '$1 == pid { sub(/.*fd: /, ""); print $1 }' | hex2dec | awk '$1 >= 1000000' > fds
	seq 1000000 $((1000000 + N - 1)) > want
	[ "$(wc -l < fds)" -eq $N ] || fail "$1: $(wc -l < fds) close events of pid $2, want $N"
	cmp -s fds want || fail "$1: fd values differ from 1000000..$((1000000 + N - 1))"
}

# per task, following the workload
"$PERF" record -q -c 1 -e syscalls:sys_enter_close -o task.data -- "$PERF" test -w closes $N ||
	fail "record"
stock_reads_clean task.data
task_pid=$("$STOCK" script -i task.data -F pid,trace 2>/dev/null | awk '/fd: 0x000f4240/ {print $1; exit}')
[ -n "$task_pid" ] || fail "no close(1000000) event"
check task.data "$task_pid"

# on CPU 0, with the workload pinned there, and a big ring
"$PERF" record -q -c 1 -e syscalls:sys_enter_close -C 0 -m 16M -o cpu0.data -- \
	taskset -c 0 "$PERF" test -w closes $N || fail "record -C 0"
stock_reads_clean cpu0.data
pid=$("$STOCK" script -i cpu0.data -F pid,trace 2>/dev/null | awk '/fd: 0x000f4240/ {print $1; exit}')
check cpu0.data "$pid"
"$STOCK" script -i cpu0.data -F cpu 2>/dev/null | grep -qv '\[000\]' && fail "-C 0 recorded other CPUs"

# our own perf script decodes the same values
"$PERF" script -i task.data | awk -v pid="$task_pid" '$2 == pid && /sys_enter_close/ {
	sub(/.*fd: /, ""); print $1 }' | hex2dec | awk '$1 >= 1000000' > own
cmp -s own want || fail "own perf script disagrees with the stock one: $(diff own want | head -5)"
exit 0
