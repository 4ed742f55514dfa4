#!/bin/bash
# perf record -a and --overwrite -a: a CPU that goes offline and comes back is recorded again (the kernel drops its events): samples and comms of a task pinned to it after, the flight recorder's ring keeping what it held before, new ids in the file's attrs
. "$(dirname "$0")/lib/common.sh"
need_root "offlines a CPU"
need_stock
need_tracepoint sched sched_switch
need_cpu1_hotplug
cd "$TMP" || exit 1
for name in hp_before hp_after hp_later; do cp /usr/bin/yes $name || exit 1; done

# Runs ./NAME pinned to cpu 1 until it has had TICKS clock ticks of CPU
# time: what its samples need, however busy the CPU is.
spin_cpu1() {	# NAME TICKS
	local pid t=0 i
	taskset -c 1 ./$1 > /dev/null &
	pid=$!
	BG_PIDS+=($pid)
	wait_exec $pid $1
	for ((i = 0; i < 6000; i++)); do
		t=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
		[ "$t" -ge "$2" ] && break
		sleep 0.01
	done
	kill $pid
	wait $pid 2>/dev/null
	[ "$t" -ge "$2" ] || fail "$1 had $t ticks of CPU time in 60 s"
}

# cpu 1 offline, then back; the recorder (stderr in ERR) must say so
cycle_cpu1() {	# ERR
	echo 0 > $ONLINE || fail "cannot offline cpu 1"
	echo 1 > $ONLINE || fail "cannot online cpu 1"
	wait_line "$1" 'cpu 1 is back online'
	grep -q 'cpu 1 went offline' "$1" || fail "no line on cpu 1 going: $(cat "$1")"
}

# The cpu-clock samples of comm on cpu 1 in FILE, as the stock reads them.
samples_cpu1() {	# FILE COMM
	"$STOCK" script -i "$1" -F comm,cpu,event 2>/dev/null |
		awk -v c="$2" '$1 == c && $2 == "[001]" && /cpu-clock/' | wc -l
}

# 50 ticks at 1000 Hz are some 500 samples: a fifth is plenty, none is the bug
MIN=100

# normal mode: the file's samples after cpu 1 came back, their task named
"$PERF" record -v -a -F 1000 -e cpu-clock -e sched:sched_switch -o n.data 2> n.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
cycle_cpu1 n.err
spin_cpu1 hp_after 50
kill -INT $rec
wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat n.err)"
stock_reads_clean n.data
n=$(samples_cpu1 n.data hp_after)
log "normal: $n samples of hp_after on cpu 1"
[ "$n" -ge $MIN ] || fail "normal mode: $n samples of hp_after on cpu 1 after it came back"
sw=$("$STOCK" script -i n.data -F cpu,event 2>/dev/null | awk '$1 == "[001]" && /sched_switch/' | wc -l)
[ "$sw" -gt 0 ] || fail "normal mode: no sched_switch on cpu 1"

# --overwrite -a (twins): a dump after cpu 1 came back holds what its ring
# held before, and what came after; a later dump (the twins switched) too
"$PERF" record -v --overwrite --switch-output -a -F 1000 -m 4M -e cpu-clock \
	-e sched:sched_switch -o fr.data 2> fr.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
grep -q 'as many twin rings' fr.err || fail "no twin rings: $(cat fr.err)"
spin_cpu1 hp_before 20
cycle_cpu1 fr.err
spin_cpu1 hp_after 50
kill -USR2 $rec
wait_line fr.err 'Dump fr.data'
spin_cpu1 hp_later 50
kill -INT $rec
wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat fr.err)"
dumps=(fr.data.*)
[ ${#dumps[@]} = 2 ] || fail "dumps: ${dumps[*]}: $(cat fr.err)"
for f in "${dumps[@]}"; do stock_reads_clean "$f"; done
b=$(samples_cpu1 ${dumps[0]} hp_before)
a=$(samples_cpu1 ${dumps[0]} hp_after)
l=$(samples_cpu1 ${dumps[1]} hp_later)
log "overwrite: hp_before $b, hp_after $a in the first dump; hp_later $l in the second"
[ "$b" -ge 20 ] || fail "--overwrite: $b samples of hp_before on cpu 1: its ring lost them"
[ "$a" -ge $MIN ] || fail "--overwrite: $a samples of hp_after on cpu 1 after it came back"
[ "$l" -ge $MIN ] || fail "--overwrite: $l samples of hp_later on cpu 1 after a switch"
exit 0
