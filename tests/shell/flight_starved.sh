#!/bin/bash
# perf record --overwrite -a stopped (SIGSTOP) while tasks come and go: the next dump's samples keep their names
. "$(dirname "$0")/lib/common.sh"
need_root "system-wide recording"
need_stock
cd "$TMP" || exit 1

# the tasks are this perf's spin workload under names of their own (a
# task's comm is the name it was exec'd by)
# the normal build's where PERF is the sanitizers' (their start-up would
# make each task take tens of milliseconds)
wl=$(readlink -f "$PERF")
[[ $wl == */build-san/perf && -x ${wl%/build-san/perf}/build/perf ]] && wl=${wl%/build-san/perf}/build/perf
mkdir bin && ln -s "$wl" bin/frshort && ln -s "$wl" bin/frlive ||
	fail "cannot make the workload's links"

# While the recorder is stopped, everything this script runs writes
# tracking records too: the spawner and the waits below fork nothing
# but the tasks, so that the rings hold what the tasks write.
mkfifo never && exec 9<> never || fail "cannot make a fifo"
nap() { read -r -t 0.05 -u 9; }

# spawner NAME: short-lived named tasks one after the other, their pids
# appended to NAME.pids (a builtin's write: no fork)
spawner() {
	while :; do
		bin/frshort test -w spin 0.002 &
		echo $! >> "$1.pids"
		wait $!
	done
}
# spawned NAME: how many so far, counted without a fork
spawned() {
	local pids=()
	mapfile -t pids < "$1.pids" 2>/dev/null
	SPAWNED=${#pids[@]}
}
# wait_spawned NAME N: N tasks spawned since the recorder stopped
wait_spawned() {
	local i
	for ((i = 0; i < 1200; i++)); do
		spawned "$1"
		[ $((SPAWNED - C0)) -ge "$2" ] && return 0
		nap
	done
	fail "$1: $2 tasks not spawned in 60 s while the recorder was stopped"
}

# starve NAME N LIVE_AT RECORD_ARGS...: records with the flight
# recorder, stops it while N tasks are spawned, starting a long-lived
# frlive after LIVE_AT of them, then goes on and dumps; the dump's
# samples as the stock perf script prints "comm tid" in NAME.txt, the
# recorder's stderr in NAME.err, frlive's tid in NAME.live
starve() {
	local name=$1 n=$2 live_at=$3 rec sp live stalled
	shift 3
	"$PERF" record -a -e cpu-clock --overwrite --switch-output=signal -o "$name.data" "$@" \
		> /dev/null 2> "$name.err" &
	rec=$!
	BG_PIDS+=("$rec")
	wait_ready "$rec"
	spawner "$name" &
	sp=$!
	BG_PIDS+=("$sp")
	wait_until "no task spawned" test -s "$name.pids"
	kill -STOP "$rec"
	spawned "$name"
	C0=$SPAWNED
	wait_spawned "$name" "$live_at"
	bin/frlive test -w spin 120 &
	live=$!
	BG_PIDS+=("$live")
	echo "$live" > "$name.live"
	until [ "$(< "/proc/$live/comm")" = frlive ]; do
		kill -0 "$live" || fail "frlive ended before its exec"
		nap
	done 2>/dev/null
	wait_spawned "$name" "$n"
	# the tasks that ran while it was stopped (the spawner runs on, and
	# a task it starts between the dump's drain and its cut is another
	# matter than a stall)
	mapfile -t stalled < "$name.pids"
	printf '%s\n' "${stalled[@]:C0}" > "$name.stalled"
	kill -CONT "$rec"
	kill -USR2 "$rec"
	wait_line "$name.err" "Dump $name.data\."
	kill "$sp" "$live"
	wait "$sp" "$live" 2>/dev/null
	kill -INT "$rec"
	wait "$rec"
	log "$name: $(cat "$name.err")"
	"$STOCK" script -i "$(ls "$name".data.* | head -1)" -F comm,tid 2> /dev/null > "$name.txt"
}

# unnamed FILE: samples whose task has no name (the stock prints ":TID")
unnamed() { awk '$1 ~ /^:[0-9]+$/' "$1" | wc -l; }

# samples_of NAME: the dump's samples of the tasks the spawner started
# while the recorder was stopped, as "comm tid" (other tasks of a shared
# machine are not counted)
samples_of() { awk 'NR == FNR { p[$1] = 1; next } $2 in p' "$1.stalled" "$1.txt"; }

# 1. the tracking rings hold what 2000 task starts write while the loop
# is stopped: almost every sample of those tasks has its name, as with
# the stock perf (0.02% unnamed in the same case), where 40% had none
starve big 2000 1900
samples_of big > big.own
total=$(grep -c . big.own)
short=$(awk '$1 == "frshort"' big.own | wc -l)
none=$(unnamed big.own)
log "big rings: $(unnamed big.txt) of $(grep -c . big.txt) samples without a name;" \
    "of the spawned tasks' $total, $none (and $short are frshort's, the rest before its exec)"
[ "$total" -ge 100 ] && [ "$short" -gt 0 ] ||
	fail "big rings: only $total samples of the spawned tasks in the dump, $short of frshort"
[ $((none * 100)) -le "$total" ] ||
	fail "big rings: $none of $total samples of the spawned tasks without a name (over 1%)"
grep -q "tracking records lost" big.err && fail "big rings lost tracking records: $(cat big.err)"

# 2. rings too small for the stall (a 4M --tracking-max-size keeps them
# at 256 pages): the kernel drops tracking records, the closing lines
# say so, and the task still alive at the dump is named from /proc
starve small 1500 1400 --tracking-max-size 4M
live=$(cat small.live)
grep -q "Warning: [1-9][0-9]* tracking records lost: .*named again from /proc [1-9]" small.err ||
	fail "small rings: no tracking records reported lost and named again: $(cat small.err)"
# in time order: the samples before its exec carry its parent's name (the
# shell's), every one after it "frlive"; none is left without a name, and
# none after the first "frlive" has another (a name from /proc stamped
# before the fork the kernel logged would lose to the parent's)
lsamples=$(awk -v t="$live" '$2 == t' small.txt | wc -l)
lnamed=$(awk -v t="$live" '$2 == t && $1 == "frlive"' small.txt | wc -l)
lafter=$(awk -v t="$live" '$2 == t && $1 == "frlive" { on = 1 } $2 == t && on' small.txt | wc -l)
log "small rings: frlive ($live): $lnamed of $lsamples samples named, $lafter from the first on"
[ "$lsamples" -gt 0 ] || fail "small rings: no sample of frlive ($live) in the dump"
[ "$(awk -v t="$live" '$2 == t && $1 ~ /^:[0-9]+$/' small.txt | wc -l)" = 0 ] ||
	fail "small rings: samples of the live frlive have no name: $(awk -v t="$live" '$2 == t' small.txt | sort | uniq -c)"
[ "$lnamed" -gt 0 ] && [ "$lnamed" -eq "$lafter" ] ||
	fail "small rings: $((lsamples - lnamed)) of $lsamples samples of the live frlive are not named frlive: $(awk -v t="$live" '$2 == t' small.txt | sort | uniq -c)"
exit 0
