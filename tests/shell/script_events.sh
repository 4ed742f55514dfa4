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
	cmp -s ours.fork stock.fork || fail "$1: FORK lines differ: $(diff ours.fork stock.fork | sed -n 2,3p)"
}

# a shell with 3 children: exact numbers of each kind (not perf itself: a
# sanitizer build forks a leak checker of its own)
SH=$(readlink -f /bin/sh)
# (--buildid-mmap: the MMAP2 build ids checked below, off by default)
"$PERF" record -q --buildid-mmap -e cpu-clock -o forks.data -- /bin/sh -c '(:) & (:) & (:) & wait' ||
	fail "record"
compare forks.data
# processes only: a sanitizer build adds threads of its own
procs() {	# KIND: KIND(pid:tid):(ppid:ptid) lines of a whole process
	sed -n "s/.*PERF_RECORD_$1(\([0-9]*\):\([0-9]*\)):(\([0-9]*\):[0-9]*).*/\1 \2 \3/p" ours.txt |
		awk '$1 == $2 && $1 != $3' | wc -l
}
[ "$(procs FORK)" -eq 3 ] || fail "process FORK lines: $(procs FORK), want 3"
[ "$(procs EXIT)" -eq 4 ] || fail "process EXIT lines: $(procs EXIT), want 4"
[ "$(grep -c "PERF_RECORD_COMM exec: sh:" ours.txt)" -eq 1 ] || fail "not one 'COMM exec' of sh"
bid=$(readelf -n "$SH" 2>/dev/null | awk '/Build ID/ {print $3}')
[ -n "$bid" ] || skip "readelf finds no build id in $SH"
grep "PERF_RECORD_MMAP2 .*<$bid>\]: r-xp $SH$" ours.txt | grep -q . ||
	fail "no MMAP2 of $SH with build id $bid"

# a flight recorder dump: synthesized tasks and maps, tracking merged in
"$PERF" record -q --overwrite -a -e cpu-clock -o fr.data -- /bin/sh -c '(:) & (:) & (:) & wait' ||
	fail "record -a"
compare fr.data
exit 0
