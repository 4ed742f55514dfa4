#!/bin/bash
# perf record --overwrite -a: a process that exited before the dump keeps its name and binary
. "$(dirname "$0")/lib/common.sh"
need_stock
command -v cc >/dev/null || skip "no C compiler"
cd "$TMP" || exit 1
cat > shortlived.c <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void shortlived_work(void)
{
	for (unsigned long i = 0; i < 150000000UL; i++)
		sink += i;
}
int main(void) { shortlived_work(); return 0; }
C
cc -O0 -g -fno-omit-frame-pointer -o shortlived shortlived.c || fail "compile"

"$PERF" record --overwrite --switch-output -a -e cpu-clock -m 4M -o ex.data 2> rec.err &
rec=$!
BG_PIDS+=($rec)
sleep 0.5
./shortlived &
pid=$!
wait $pid
sleep 0.3		# it is gone: /proc knows nothing of it when the dump happens
kill -USR2 $rec
sleep 0.5
kill -INT $rec
wait $rec || fail "record exit status $?"
first=$(ls ex.data.* | head -1)
[ -n "$first" ] || fail "no dump: $(cat rec.err)"
stock_reads_clean "$first"

n=$("$STOCK" script -i "$first" -F pid 2>/dev/null | awk -v p=$pid '$1 == p' | wc -l)
[ "$n" -gt 50 ] || fail "$n samples of pid $pid in $first"
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
