#!/bin/bash
# a stock perf record on the same machine while this perf records system-wide (normal and --overwrite) writes a file it reads back: this perf asks for no MMAP2 build ids unless --buildid-mmap, as the kernel then corrupts other sessions' MMAP2 records
. "$(dirname "$0")/lib/common.sh"
need_root "system-wide recording"
need_stock
cd "$TMP" || exit 1

# the stock's own record while ours runs: exit 0, a file it reads; 1 with
# the reason in $why when not
stock_beside_ok() {	# WHAT OPTIONS...
	local what=$1 rec rc
	shift
	"$PERF" record -q -a -e cpu-clock "$@" -o ours.data -- sleep 30 &
	rec=$!
	BG_PIDS+=($rec)
	wait_ready $rec
	# -N: the stock's build-id cache stays out of the real home
	"$STOCK" record -q -N -o stock.data -- "$PERF" test -w spin 0.2 > stock.out 2>&1
	rc=$?
	kill -INT $rec
	wait_gone $rec "$what"
	why=""
	if [ $rc -ne 0 ]; then
		why="the stock perf record beside this perf's exited $rc: $(head -3 stock.out)"
	elif [ -n "$(stock_complaint stock.data)" ]; then
		why="the stock complains of its own file: $(stock_complaint stock.data)"
	elif ! "$STOCK" report -i stock.data --stats 2>/dev/null | grep -q 'MMAP2 events'; then
		why="the stock's file has no MMAP2 records"
	fi
	rm -f stock.data ours.data*
	[ -z "$why" ]
}
stock_beside() {
	stock_beside_ok "$@" || fail "$1: $why"
}

stock_beside "normal mode"
stock_beside "--overwrite" --overwrite
stock_beside "--history" --history=4M
# the control: MMAP2 build ids asked for system-wide, as this perf does
# only with --buildid-mmap; where the kernel then corrupts the stock's
# records, the checks above can tell (a kernel without the fault cannot
# show it, and that is said)
if stock_beside_ok "control: --buildid-mmap" --buildid-mmap; then
	echo "  (note: this kernel gave the stock's session whole MMAP2 records beside a --buildid-mmap one: the checks above cannot fail here)" >&2
else
	log "control: --buildid-mmap beside the stock: $why"
fi
# asked for, MMAP2 build ids come in this perf's files (the hazard is the user's choice)
"$PERF" record -q --buildid-mmap -e cpu-clock -o bm.data -- "$PERF" test -w spin 0.1 ||
	fail "--buildid-mmap record"
"$STOCK" report -D -i bm.data 2>/dev/null | grep -q 'PERF_RECORD_MMAP2.*<[0-9a-f]\{40\}>' ||
	fail "--buildid-mmap: no MMAP2 record with a build id"
exit 0
