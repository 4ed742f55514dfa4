#!/bin/bash
# --switch-output-when and --off-cpu with any target: their bpf-output events are on every CPU whatever the target; a workload's or -p's conditions without a qualifier watch the recording's own tasks (children followed), one with a qualifier any task; -C 0 sees a span that ends on another CPU, and --off-cpu -C 0 keeps the blocks begun on CPU 0 wherever they end; --per-thread is refused in one line
. "$(dirname "$0")/lib/common.sh"
need_bpf
need_stock
[ "$(nproc)" -ge 2 ] || skip "one CPU: no span can end on another"
cd "$TMP" || exit 1

# tasks named for the conditions (sleep blocks in clock_nanosleep)
for n in bt-nap bt-other bt-decoy bt-mig; do cp /bin/sleep $n || fail "cp $n"; done

# records NAME: each trigger record the stock's perf script prints in
# NAME's dumps
records() {
	local f
	for f in "$1".data.*; do
		[ -e "$f" ] || continue
		stock_reads_clean "$f"
		"$STOCK" script -i "$f" 2>/dev/null | sed -n 's/^ *BPF string: "\(.*\)"$/\1/p'
	done
}

# sleeping PID COMM: PID runs COMM and sleeps in the kernel
sleeping() { [ "$(cat /proc/$1/comm)" = "$2" ] && [ "$(awk '{ print $3 }' /proc/$1/stat)" = S ]; }

flight=(--overwrite --switch-output -e cpu-clock -F 49)

# a workload: its own blocks fire the condition without a qualifier, a
# task outside it does not; a qualifier names any task
mkfifo go
"$PERF" record -q "${flight[@]}" --switch-output-when='offcpu>100ms' \
	--switch-output-when='offcpu>100ms,comm=bt-decoy' -o wl.data -- \
	sh -c 'read _ < go; exec ./bt-nap 0.3' 2> wl.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
./bt-other 0.3 || fail "bt-other"
./bt-decoy 0.3 || fail "bt-decoy"
echo > go
wait $rp || fail "workload: recorder status $?: $(cat wl.err)"
r=$(records wl)
log "workload: $r"
echo "$r" | grep -Eq "^offcpu>100ms: bt-nap pid $rp|^offcpu>100ms: bt-nap pid [0-9]+ tid [0-9]+ offcpu" ||
	fail "workload: no record of its own bt-nap: $r $(cat wl.err)"
echo "$r" | grep -Eq "^offcpu>100ms,comm=bt-decoy: bt-decoy pid [0-9]+ tid [0-9]+ offcpu" ||
	fail "workload: the qualified condition did not fire for bt-decoy: $r"
echo "$r" | grep -q "bt-other" && fail "workload: a task outside it fired: $r"
echo "$r" | grep "^offcpu>100ms:" | grep -Ev ": (sh|bt-nap) pid " &&
	fail "workload: a condition without qualifier fired for another task: $r"

# -p: the process and the child it forks; the process lives on until its
# child's span fired a dump, then the recorder ends with it
mkfifo g1 g2
bash -c 'read _ < g1; ./bt-nap 0.3; read _ < g2' &
p=$!
BG_PIDS+=($p)
"$PERF" record -v "${flight[@]}" -p $p --switch-output-when='offcpu>100ms' -o pp.data 2> pp.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
./bt-other 0.3 || fail "bt-other"
echo > g1
wait_line pp.err 'Dump pp\.data'
echo > g2
wait $p || fail "bash -c"
# it ends with its target, or of the SIGINT if it has not yet: nothing else
kill -INT $rp 2>/dev/null
st=0
wait $rp || st=$?
[ $st = 0 ] || [ $st = $((128 + $(kill -l INT))) ] || fail "-p: recorder status $st: $(tail -3 pp.err)"
r=$(records pp)
log "-p: $r"
echo "$r" | grep -Eq "^offcpu>100ms: bt-nap pid [0-9]+ tid [0-9]+ offcpu" ||
	fail "-p: no record of its child bt-nap: $r $(grep -v '^libbpf\|^ *BPF' pp.err | tail -8)"
echo "$r" | grep -q "bt-other" && fail "-p: a task outside it fired: $r"

# migrate COMM SECONDS: COMM sleeps SECONDS on CPU 0, moved to CPU 1 while
# it sleeps: its block ends on CPU 1
migrate() {
	taskset -c 0 ./"$1" "$2" &
	local m=$!
	wait_until "$1 not asleep" sleeping $m "$1"
	taskset -p -c 1 $m >/dev/null || fail "taskset -p $m"
	wait $m || fail "$1"
	MIGRATED=$m
}

# -C 0: a span begun on CPU 0 that ends on CPU 1 fires
"$PERF" record -q "${flight[@]}" -C 0 --switch-output-when='offcpu>100ms,comm=bt-mig' \
	-o c0.data 2> c0.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
migrate bt-mig 0.3
wait_until "-C 0: no dump" bash -c "compgen -G 'c0.data.*' >/dev/null"
kill -INT $rp
wait_stopped $rp INT || fail "-C 0: recorder status $STOPPED_STATUS: $(cat c0.err)"
r=$(records c0)
echo "$r" | grep -Eq "^offcpu>100ms,comm=bt-mig: bt-mig pid $MIGRATED tid $MIGRATED offcpu" ||
	fail "-C 0: the span that ended on CPU 1 did not fire: $r $(cat c0.err)"

# --off-cpu -C 0: the block begun on CPU 0 and ended on CPU 1 is there,
# whole; none begun on CPU 1 is
"$PERF" record -q --off-cpu -C 0 -e cpu-clock -o oc.data 2> oc.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
migrate bt-mig 0.3
kill -INT $rp
wait_stopped $rp INT || fail "--off-cpu -C 0: recorder status $STOPPED_STATUS: $(cat oc.err)"
stock_reads_clean oc.data
"$STOCK" script -i oc.data -F tid,cpu,event,period 2>/dev/null | grep offcpu-time > oc.txt
awk -v m=$MIGRATED '$1 == m && $4 > 0.28e9 { found = 1 } END { exit !found }' oc.txt ||
	fail "--off-cpu -C 0: no block of $MIGRATED of 0.3 s: $(grep -w "$MIGRATED" oc.txt)"
grep -v '\[000\]' oc.txt | grep . && fail "--off-cpu -C 0: blocks begun on another CPU"

# --per-thread: events of "any CPU" cannot be, refused in one line
"$PERF" record -o pt.data --per-thread --switch-output -e cpu-clock \
	--switch-output-when='offcpu>1s' -- true > pt.out 2> pt.err && fail "--per-thread recorded"
[ "$(cat pt.err)" = "perf record: --switch-output-when and --per-thread exclude each other: its events watch every CPU" ] ||
	fail "--per-thread: said $(cat pt.err)"
exit 0
