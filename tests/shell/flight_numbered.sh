#!/bin/bash
# perf record --overwrite: numbered events, no duplicates across dumps, no holes inside one
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for the workload to hop between"
cd "$TMP" || exit 1

# a numbered close() stream that hops CPU every 500 calls, dumped 4 times
# while it runs, then ended (its 120 s only bound a test gone wrong): each
# trigger waits for the dump before it, so none merge, and none comes
# after the workload, however busy the machine
"$PERF" record --overwrite --switch-output -c 1 -e syscalls:sys_enter_close -m 1M \
	-o fr.data -- "$PERF" test -w hop 120 500 2> rec.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
work=$(pgrep -P $rec)
dumps() { [ "$(grep -c '^\[ perf record: Dump fr\.data' rec.err)" -ge "$1" ]; }
for i in 1 2 3 4; do
	sleep 0.45	# the workload's pace, not a readiness wait: events to dump
	kill -USR2 $rec
	WAIT_LOG=rec.err wait_until "dump $i not written" dumps $i
done
# the last dump's own events: the workload runs on after the fourth
wait_cpu $work 0.05
kill -TERM $work
wait $rec
rc=$?
# the recorder ends as its workload did: by SIGTERM
[ $rc -eq 143 ] || fail "record exit status $rc, want the workload's 143: $(cat rec.err)"
dumps=$(ls fr.data.* 2>/dev/null | wc -l)
[ "$dumps" -eq 5 ] || fail "$dumps dumps, want 4 and the last: $(cat rec.err)"
grep -c '^\[ perf record: Dump fr.data\.[0-9]\{16\} \]$' rec.err | grep -qx "$dumps" ||
	fail "one 'Dump' line per file expected: $(cat rec.err)"

: > all
for f in fr.data.*; do
	stock_reads_clean "$f"
	"$STOCK" script -i "$f" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk '$1 >= 1000000' > vals
	n=$(wc -l < vals)
	[ "$n" -gt 100 ] || fail "$f: only $n numbered events"
	# inside one dump: strictly consecutive, in time order, from several CPUs
	awk 'NR > 1 && $1 != prev + 1 { print "hole after " prev ": " $1; exit 1 } { prev = $1 }' vals ||
		fail "$f: $(awk 'NR > 1 && $1 != prev + 1 { print "after " prev " comes " $1; exit } { prev = $1 }' vals)"
	cpus=$("$STOCK" script -i "$f" -F cpu,event 2>/dev/null | awk '/sys_enter_close/ {print $1}' | sort -u | wc -l)
	log "$f: $n events $(head -1 vals)..$(tail -1 vals) on $cpus CPUs"
	cat vals >> all
done
dup=$(sort -n all | uniq -d | head -3)
[ -z "$dup" ] || fail "values in more than one dump: $dup"
grep -q 'dumps, .* records written' rec.err || fail "no closing summary: $(cat rec.err)"
exit 0
