#!/bin/bash
# perf record: --no-inherit, -p ending when its targets exit, --tracking-max-size eviction
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
cd "$TMP" || exit 1

# numbered close() calls of a child of the workload: every one with the
# default inherit, none with --no-inherit, while the parent is still followed
for mode in inherit no-inherit; do
	opt=; [ $mode = no-inherit ] && opt=--no-inherit
	"$PERF" record -q $opt -c 1 -e syscalls:sys_enter_close -o $mode.data -- \
		sh -c '"$0" test -w closes 2000 5400000; exec 3</dev/null; exec 3<&-' "$PERF" ||
		fail "record $opt"
	stock_reads_clean $mode.data
	"$STOCK" script -i $mode.data -F comm,pid,trace 2>/dev/null > $mode.txt
	child=$(awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' $mode.txt | hex2dec |
		awk '$1 >= 5400000 && $1 < 5402000' | wc -l)
	parent=$(awk '$1 == "sh" && /fd: 0x00000003/' $mode.txt | wc -l)
	log "$mode: $child close() of the child, $parent close(3) of sh"
	# dash's redirections close fd 3 a few times: the same number either way
	[ "$parent" -gt 0 ] || fail "$mode: no close(3) event of the workload itself"
	[ $mode = inherit ] && sh_closes=$parent
	[ "$parent" -eq "$sh_closes" ] || fail "$mode: $parent close(3) of sh, with inherit $sh_closes"
	want=2000; [ $mode = no-inherit ] && want=0
	[ "$child" -eq $want ] || fail "$mode: $child close() events of the child, want $want"
done

# -p A,B goes on recording B after A exits, and ends by itself, status 0,
# once B has exited too
"$PERF" test -w spin 60 &
a=$!
"$PERF" test -w spin 60 &
b=$!
BG_PIDS+=($a $b)
wait_exec $a perf
wait_exec $b perf
"$PERF" record -p $a,$b -e cpu-clock -o p.data 2> p.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_cpu $a 0.2		# samples of both, however busy the machine
wait_cpu $b 0.2
kill $a
wait $a
wait_cpu $b 0.2		# samples of B alone
kill -0 $rec 2>/dev/null || fail "-p $a,$b ended when only $a had exited: $(cat p.err)"
kill $b
wait $b
wait_until "-p $a,$b still records after both exited" ended $rec
wait $rec || fail "-p exit status $?: $(cat p.err)"
stock_reads_clean p.data
"$STOCK" script -i p.data -F pid,time 2>/dev/null | tr -d : > p.txt
a_end=$("$STOCK" script -i p.data --show-task-events -F pid,time 2>/dev/null |
	awk -v p=$a '/PERF_RECORD_EXIT/ && $0 ~ "EXIT\\(" p ":" { sub(":", "", $2); print $2 }')
[ -n "$a_end" ] || fail "-p: no EXIT record of $a"
na=$(awk -v p=$a '$1 == p' p.txt | wc -l)
nb=$(awk -v p=$b -v t=$a_end '$1 == p && $2 > t' p.txt | wc -l)
log "-p: $na samples of $a, $nb of $b after $a exited at $a_end"
[ "$na" -gt 20 ] || fail "-p: $na samples of $a"
[ "$nb" -gt 20 ] || fail "-p: $nb samples of $b after $a exited"

# --tracking-max-size: 20000 renames are 20000 COMM records of a live task,
# about 1 MB; after a dump a 64K cap keeps the newest and counts the rest
"$PERF" record --overwrite --switch-output --tracking-max-size=64K -e cpu-clock -o tm.data -- \
	"$PERF" test -w prctl 20000 wait > wl.out 2> tm.err &
rec=$!
BG_PIDS+=($rec)
wait_line wl.out 'renamed 20000'
kill -USR2 $rec
wait_line tm.err 'Dump tm.data'
wl=$(cat /proc/$rec/task/$rec/children)
kill -USR1 $wl
wait $rec || fail "--tracking-max-size record: $(cat tm.err)"
line=$(grep 'tracking: ' tm.err)
read -r kb evicted < <(echo "$line" | sed -n 's/.*records (\([0-9]*\) KB) kept, .* \([0-9]*\) evicted by --tracking-max-size.*/\1 \2/p')
log "$line"
[ -n "$evicted" ] || fail "no tracking summary: $(cat tm.err)"
[ "$kb" -le 64 ] || fail "tracking keeps $kb KB over a 64K cap"
[ "$evicted" -ge 15000 ] || fail "only $evicted records evicted by a 64K cap: $line"
first=$(ls tm.data.* | head -1) last=$(ls tm.data.* | tail -1)
[ "$first" != "$last" ] || fail "one dump, want the SIGUSR2 one and the last"
stock_reads_clean "$first"
# what comes after the eviction must still name and place the samples: the
# kernel map and the live task's MMAP2s stay, its superseded names go first
complaint=$(stock_complaint "$last")
[ -z "$complaint" ] || fail "after eviction: stock perf report said: $complaint"
"$STOCK" script -i "$last" -F ip,dso 2>/dev/null | grep -q "($(readlink -f "$PERF"))" ||
	fail "after eviction no sample resolves to $(readlink -f "$PERF"): its MMAP2 went"
"$PERF" record --overwrite -e cpu-clock -o nocap.data -- "$PERF" test -w prctl 20000 2> nocap.err
grep -q ', 0 evicted by --tracking-max-size' nocap.err || fail "default cap evicted: $(cat nocap.err)"
exit 0
