#!/bin/bash
# perf record --overwrite -a: dumps switch to twin events and read each ring where it stands: numbered events across dumps with no hole, none twice, the capture copying nothing; -p keeps copying, its children's events all there
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for the workload to hop between"
cd "$TMP" || exit 1

# rings big enough that none wraps between two dumps: every number the
# workload issues is in exactly one dump, the switches' overlaps too
"$PERF" record -v --overwrite --switch-output -a -c 1 -e syscalls:sys_enter_close -m 16M \
	-o fr.data 2> rec.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
grep -q 'rings of 16384K and as many twin rings' rec.err ||
	fail "no twin rings: $(cat rec.err)"
# triggers every 0.02 s until 20 dumps are written while the workload
# runs (its 120 s only bound a test gone wrong), then it is ended: a
# fixed run left a busy machine room for too few
"$PERF" test -w hop 120 500 &
work=$!
BG_PIDS+=($work)
dumps() { grep -c '^\[ perf record: Dump fr\.data' rec.err; }
for ((i = 0; i < 3000 && $(dumps) < 20; i++)); do
	sleep 0.02
	kill -0 $work 2>/dev/null || fail "the workload ended after $(dumps) dumps"
	kill -USR2 $rec
done
[ "$(dumps)" -ge 20 ] || fail "only $(dumps) dumps after $i triggers: $(tail -3 rec.err)"
kill $work
wait $work
kill -INT $rec
wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat rec.err)"
grep -q '~0 overwritten before a dump' rec.err || fail "a ring wrapped: $(grep dumps, rec.err)"
# the capture reads the rings in place: it takes no time for 16M rings
grep -Eq 'capture [0-9]+ rings' rec.err || fail "no capture line: $(cat rec.err)"

: > all
for f in fr.data.*; do
	stock_reads_clean "$f"
	"$STOCK" script -i "$f" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk '$1 >= 1000000' > vals
	awk 'NR > 1 && $1 != prev + 1 { print "after " prev " comes " $1; exit 1 } { prev = $1 }' vals > hole ||
		fail "$f: $(cat hole)"
	log "$f: $(wc -l < vals) events $(head -1 vals)..$(tail -1 vals)"
	cat vals >> all
done
dup=$(sort -n all | uniq -d | head -3)
[ -z "$dup" ] || fail "values in more than one dump: $dup"
sort -n all | awk 'NR > 1 && $1 != prev + 1 { print "after " prev " comes " $1; exit 1 } { prev = $1 }
	END { if (NR < 10000) { print "only " NR " numbers"; exit 1 } }' > gap ||
	fail "across the dumps: $(cat gap)"
log "$(wc -l < all) numbers in $(ls fr.data.* | wc -l) dumps, each once"

# -p: the events of a task follow the children it forks (inherit), which
# an event opened anew would not: no twins, and every number of a child
# started after the recorder is in one dump
rm -f fr.data.* go
# the child is forked once the recorder watches its parent: a gate, not a sleep
sh -c 'while [ ! -e go ]; do sleep 0.01; done; "$0" test -w closes 300000 1000000 400000' \
	"$PERF" &
parent=$!
BG_PIDS+=($parent)
"$PERF" record -v --overwrite --switch-output -p $parent -c 1 -e syscalls:sys_enter_close \
	-m 16M -o fr.data 2> rec.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
grep -q 'twin events: only for events of whole CPUs: dumps copy the rings' rec.err ||
	fail "-p: twins not refused: $(cat rec.err)"
: > go
while kill -0 $parent 2>/dev/null; do
	sleep 0.1
	kill -USR2 $rec 2>/dev/null	# it ends when its target does
done
wait $rec || fail "-p: record exit status $?: $(cat rec.err)"
: > all
for f in fr.data.*; do
	"$STOCK" script -i "$f" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk '$1 >= 1000000' >> all
done
sort -n all | uniq | awk 'NR == 1 && $1 != 1000000 { print "the first is " $1; exit 1 }
	NR > 1 && $1 != prev + 1 { print "after " prev " comes " $1; exit 1 } { prev = $1 }
	END { if (NR != 300000) { print NR " of 300000 numbers"; exit 1 } }' > gap ||
	fail "-p, across the dumps: $(cat gap)"
[ -z "$(sort -n all | uniq -d | head -1)" ] || fail "-p: a number in two dumps"
log "-p: the 300000 numbers of a child in $(ls fr.data.* | wc -l) dumps, each once"
exit 0
