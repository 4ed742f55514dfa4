#!/bin/bash
# perf record --overwrite: each dump's file is made ahead, its pages in the page cache before the trigger; a dump that comes while it is being made takes what was made; every dump whole, nothing left behind
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
# tmpfs gets no file made ahead (its pages are memory only swap takes
# back): the dumps go to a disk filesystem
D=$TMP
if [ "$(stat -f -c %T "$D")" = tmpfs ]; then
	D=$(mktemp -d /var/tmp/frtest.XXXXXX) || skip "/tmp is a tmpfs and /var/tmp is not writable"
	trap 'rm -rf "$D"; cleanup' EXIT
	[ "$(stat -f -c %T "$D")" = tmpfs ] && skip "/tmp and /var/tmp are tmpfs: no file is made ahead there"
fi
cd "$D" || exit 1

# MB of a dump's file that went into pages made ahead ("" when none was)
ahead_mb() {	# DUMP
	sed -nE "s/.*dump ${1//./\\.}: .* ([0-9.]+) MB into pages made ahead.*/\1/p" rec.err
}

# a recorder of every CPU's close() records, dumping to NAME.data.*, its
# -v lines in ERR; its pid in $rec once it is in its loop
record_closes() {	# NAME ERR RING [OPTION...]
	local name=$1 err=$2 ring=$3

	shift 3
	"$PERF" record -v "$@" --overwrite --switch-output -a -c 1 -e syscalls:sys_enter_close \
		-m "$ring" -o "$name.data" 2> "$err" &
	rec=$!
	BG_PIDS+=($rec)
	wait_ready $rec
}

record_closes ah rec.err 4M
# ~17 MB of numbered records: the ring of the CPU it ran on is full
"$PERF" test -w closes 200000 1000000
kill -USR2 $rec
wait_line rec.err 'dump ah\.data\.[0-9]*: '
first=$(ls ah.data.* | head -1)
why=$(sed -nE 's/.*no pages made ahead: (.*) \]$/\1/p' rec.err | head -1)
case "$why" in
"No space left on device" | "Cannot allocate memory")
	skip "no pages made ahead: $why (the rings are more than half the free room or memory)" ;;
"") ;;
*) fail "no pages made ahead: $why" ;;
esac
mb=$(ahead_mb "$first")
awk -v m="$mb" 'BEGIN { exit !(m >= 3.5) }' ||
	fail "$first: '${mb:-no}' MB into pages made ahead, of a full 4M ring: $(grep 'dump ah' rec.err)"
log "$first: $mb MB written into pages made ahead"

# triggers back to back: the next file is being made when the next comes
"$PERF" test -w closes 200000 2000000 &
work=$!
BG_PIDS+=($work)
for i in 1 2 3; do
	sleep 0.01
	kill -USR2 $rec
done
wait $work
kill -INT $rec
wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat rec.err)"
[ "$(ls ah.data.* | wc -l)" -ge 3 ] || fail "$(ls ah.data.* | wc -l) dumps: $(cat rec.err)"
for f in ah.data.*; do
	stock_reads_clean "$f"
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f")"
done
# the first dump is the last numbers of the first run, whole, in order
"$STOCK" script -i "$first" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
	hex2dec | awk '$1 >= 1000000 && $1 < 2000000' > vals
n=$(wc -l < vals)
[ "$n" -ge 30000 ] || fail "$first: $n numbers of a full 4M ring"
[ "$(tail -1 vals)" = 1199999 ] || fail "$first: the newest number is $(tail -1 vals), not 1199999"
awk 'NR > 1 && $1 != prev + 1 { print "after " prev " comes " $1; exit 1 } { prev = $1 }' vals > hole ||
	fail "$first: $(cat hole)"
# at real-time priority nothing is made (it would take a CPU from the
# workload), and the dump says so
if chrt -f 1 true 2>/dev/null; then
	record_closes rt rt.err 1M -r 1
	"$PERF" test -w closes 20000 3000000
	kill -USR2 $rec
	wait_line rt.err 'dump rt\.data\.[0-9]*: '
	kill -INT $rec
	wait_stopped $rec INT || fail "record -r 1 exit status $STOPPED_STATUS: $(cat rt.err)"
	grep 'dump rt\.data' rt.err | head -1 | grep -q 'no pages made ahead at -r \]' ||
		fail "at -r: $(grep 'dump rt' rt.err)"
	log "at -r: no pages made ahead, and the dump says so"
elif [ "$CI" = true ]; then
	fail "SCHED_FIFO not allowed: CI runs every case, the -r one too"
else
	log "SCHED_FIFO not allowed here: the -r case not checked"
fi
# the file made ahead has no name until it is a dump: none is left
left=$(ls -A | grep -v -e '^ah\.data\.[0-9]*$' -e '^rt\.data\.[0-9]*$' -e '^rec\.err$' \
	-e '^rt\.err$' -e '^vals$' -e '^hole$' -e '^\.debug$')
[ -z "$left" ] || fail "left behind: $left"
log "$(ls ah.data.* | wc -l) dumps; the first: $n numbers in order"
exit 0
