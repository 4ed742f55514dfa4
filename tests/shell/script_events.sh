#!/bin/bash
# perf script --show-task-events --show-mmap-events: the same lines as the stock perf's
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# the side-band lines of both readers, in file order
side() {	# TOOL FILE
	"$1" script -i "$2" --show-task-events --show-mmap-events 2>/dev/null | grep 'PERF_RECORD_'
}

# compare FILE: every COMM/EXIT/MMAP line identical; FORK lines apart
compare() {
	side "$PERF" "$1" > ours.txt
	side "$STOCK" "$1" > stock.txt
	[ -s stock.txt ] || fail "$1: the stock perf shows no side-band record"
	grep -v PERF_RECORD_FORK ours.txt > ours.nofork
	grep -v PERF_RECORD_FORK stock.txt > stock.nofork
	cmp -s ours.nofork stock.nofork || fail "$1: own and stock perf script differ: $(diff ours.nofork stock.nofork | head -4)"
	grep PERF_RECORD_FORK ours.txt > ours.fork
	grep PERF_RECORD_FORK stock.txt > stock.fork
	[ "$(wc -l < ours.fork)" -eq "$(wc -l < stock.fork)" ] || fail "$1: FORK lines: ours $(wc -l < ours.fork), stock $(wc -l < stock.fork)"
	ok=0
	cmp -s ours.fork stock.fork && ok=1
	known_bug $ok "own perf script shows a FORK record under the child's comm/tid; the stock one" \
		"under the sample id's, which the kernel fills with the parent's: $(diff ours.fork stock.fork | sed -n 2p)"
}

# a workload with 3 children: exact numbers of each kind
"$PERF" record -q -e cpu-clock -o forks.data -- "$PERF" test -w forks 3 || fail "record"
compare forks.data
[ "$(grep -c 'PERF_RECORD_FORK' ours.txt)" -eq 3 ] || fail "FORK lines: $(grep -c PERF_RECORD_FORK ours.txt), want 3"
[ "$(grep -c 'PERF_RECORD_EXIT' ours.txt)" -eq 4 ] || fail "EXIT lines: $(grep -c PERF_RECORD_EXIT ours.txt), want 4"
[ "$(grep -c 'PERF_RECORD_COMM exec: perf:' ours.txt)" -eq 1 ] || fail "no 'COMM exec' of perf"
bid=$(readelf -n "$(readlink -f "$PERF")" 2>/dev/null | awk '/Build ID/ {print $3}')
[ -n "$bid" ] || fail "readelf finds no build id in $PERF"
grep "PERF_RECORD_MMAP2 .*<$bid>\]: r-xp $(readlink -f "$PERF")$" ours.txt | grep -q . ||
	fail "no MMAP2 of $(readlink -f "$PERF") with build id $bid"

# a flight recorder dump: synthesized tasks and maps, tracking merged in
"$PERF" record -q --overwrite -a -e cpu-clock -o fr.data -- "$PERF" test -w forks 3 || fail "record -a"
compare fr.data
exit 0
