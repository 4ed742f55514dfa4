#!/bin/bash
# perf record --overwrite -a: a process that exited before the dump keeps its name and binary
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
need_cc
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one to keep the samples, one whose ring wraps"
cd "$TMP" || exit 1
# execs (COMM, MMAP2) on CPU 0, then works on CPU 1 and exits
cat > shortlived.c <<'C'
#define _GNU_SOURCE
#include <sched.h>
volatile unsigned long sink;
__attribute__((noinline)) void shortlived_work(void)
{
	for (unsigned long i = 0; i < 600000000UL; i++)
		sink += i;
}
int main(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(1, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 1;
	shortlived_work();
	return 0;
}
C
cc -O0 -g -fno-omit-frame-pointer -o shortlived shortlived.c || fail "compile"
RING=256K

# After the exit, close() storms on CPU 0 overwrite its ring many times over:
# what names the task (its exec on CPU 0) must come from the tracking log,
# not from a ring. WINDOW: all keeps CPU 1's older samples, common drops them.
run() {	# WINDOW
	"$PERF" record --overwrite --switch-output -a -e cpu-clock/period=1000000/ \
		-e syscalls:sys_enter_close -m $RING --dump-window=$1 -o $1.data 2> $1.err &
	rec=$!
	BG_PIDS+=($rec)
	wait_ready $rec
	taskset -c 0 ./shortlived &
	pid=$!
	wait $pid || fail "shortlived failed"
	taskset -c 0 "$PERF" test -w closes 200000
	kill -USR2 $rec
	wait_line $1.err "Dump $1.data"
	kill -INT $rec
	wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat $1.err)"
	dump=$(ls $1.data.* | head -1)
	[ -n "$dump" ] || fail "no dump: $(cat $1.err)"
	stock_reads_clean "$dump"
	# the rings did wrap: far more was overwritten than two rings hold
	over=$(sed -n 's/.*overwritten before a dump (\([0-9]*\) bytes).*/\1/p' $1.err)
	log "$1: pid $pid, $over bytes overwritten"
	[ -n "$over" ] || fail "no loss summary: $(cat $1.err)"
	[ "$over" -ge $((20 * 2 * 256 * 1024)) ] || fail "only $over bytes overwritten: the rings did not wrap"
	n=$("$STOCK" script -i "$dump" -F pid,event 2>/dev/null | awk -v p=$pid '$1 == p && /cpu-clock/' | wc -l)
}

run common
[ "$n" -eq 0 ] || fail "common window: $n samples of pid $pid from before CPU 0's ring start"
grep -q 'samples outside the common window left out' common.err ||
	fail "common window: the summary does not say samples were left out: $(tail -2 common.err)"

run all
first=$dump
if [ "$n" -le 100 ]; then
	# other tests running meanwhile may storm close() on CPU 1 too
	oldest1=$("$STOCK" script -i "$first" -F cpu,time 2>/dev/null | awk '$1 == "[001]" { sub(":", "", $2); print $2; exit }')
	gone=$("$STOCK" script -i "$first" --show-task-events -F time 2>/dev/null |
		awk -v p=$pid '$0 ~ "EXIT\\(" p ":" { sub(":", "", $1); print $1 }')
	[ -n "$oldest1" ] && [ -n "$gone" ] && awk -v a="$oldest1" -v b="$gone" 'BEGIN { exit !(a > b) }' &&
		skip "CPU 1's ring wrapped too (oldest record $oldest1 s, after pid $pid exited at $gone s): another load ran"
	fail "dump window all: $n samples of pid $pid in $first"
fi
grep -q 'samples outside the common window' all.err && fail "--dump-window=all left samples out"
# (the few samples between fork and exec rightly carry the shell's name)
named=$("$STOCK" script -i "$first" -F comm,pid 2>/dev/null | awk -v p=$pid '$2 == p && $1 == "shortlived"' | wc -l)
in_binary=$("$STOCK" script -i "$first" -F pid,ip,dso 2>/dev/null | awk -v p=$pid '$1 == p' |
	grep -c "($TMP/shortlived)")
log "pid $pid: $n samples, $named named shortlived, $in_binary in the binary shortlived"
top=$("$STOCK" report -i "$first" --stdio --pid $pid --sort comm,dso,sym 2>/dev/null |
	grep -v '^#' | grep . | head -1)
echo "$top" | grep -q 'shortlived  *shortlived  *\[\.\] shortlived_work' ||
	fail "pid $pid's top entry: $top"
[ "$named" -ge $((n * 9 / 10)) ] || fail "only $named of $n samples named shortlived"
[ "$in_binary" -ge $((n * 8 / 10)) ] || fail "only $in_binary of $n samples resolved to the binary"
"$STOCK" script -i "$first" -F comm,pid 2>/dev/null | awk -v p=$pid '$2 == p' | grep -q '^ *:' &&
	fail "samples of pid $pid show up as :PID"
exit 0
