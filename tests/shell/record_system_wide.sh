#!/bin/bash
# perf record -a and -p/-t: system-wide and attach, ended by SIGINT
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

# -a: both CPUs' context switches, from tasks perf did not start
"$PERF" record -q -a -e sched:sched_switch -e cpu-clock -o sw.data -- \
	sh -c 'taskset -c 0 sleep 0.3 & taskset -c 1 sleep 0.3; wait' || fail "record -a"
stock_reads_clean sw.data
cpus=$("$STOCK" script -i sw.data -F cpu,event 2>/dev/null | awk '/sched_switch/ {print $1}' | sort -u | wc -l)
[ "$cpus" -ge 2 ] || fail "sched_switch seen on $cpus CPUs"
"$STOCK" script -i sw.data -F comm 2>/dev/null | awk '{print $1}' | sort -u | grep -qx 'sleep' ||
	fail "no sleep task"

# -p PID: an existing process, named and resolved; SIGINT ends with a full file
"$PERF" test -w spin 30 &
spin=$!
BG_PIDS+=($spin)
wait_exec $spin perf
"$PERF" record -q -p $spin -o pid.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_cpu $spin 0.5	# samples of it, however busy the machine
kill -INT $rec
wait_stopped $rec INT || fail "record -p exit status $STOPPED_STATUS"
stock_reads_clean pid.data
top=$("$STOCK" report -i pid.data --stdio --sort comm,sym 2>/dev/null | grep -v '^#' | grep . | head -1)
log "top: $top"
echo "$top" | grep -q 'perf .*test_spin_loop' || fail "-p top entry: $top"

# -t TID, ended by SIGTERM
"$PERF" record -q -t $spin -o tid.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_cpu $spin 0.3	# its samples come with its CPU time
kill -TERM $rec
wait_stopped $rec TERM || fail "record -t exit status $STOPPED_STATUS"
stock_reads_clean tid.data
n=$("$STOCK" script -i tid.data -F tid 2>/dev/null | awk -v t=$spin '$1 == t' | wc -l)
[ "$n" -gt 100 ] || fail "-t: $n samples of tid $spin"
kill $spin
exit 0
