#!/bin/bash
# perf record --switch-output-exec: a dump every second for 10 s, one recorder's hook sleeping 60 s (killed at --switch-output-exec-timeout, said so, its group gone), another's failing at once (each status logged): no dump delayed behind a hook, none lost; the path reaches the hook as "$1", never as shell text; a SIGINT still ends the recorder within a second, the hook's group with it
. "$(dirname "$0")/lib/common.sh"
need_root "the recorders record system-wide"
cd "$TMP" || exit 1
N=10
TIMEOUT_S=6
MAX_LATENCY_S=3	# a loop that waited on the hook would take TIMEOUT_S

mkdir a b
# a name no shell may read as code: the hook gets it as "$1"
name_b="$TMP/b/x y'\$(touch pwned)\"\`touch pwned2\`;"
"$PERF" record -a -e cpu-clock -F 99 --overwrite --switch-output \
	--switch-output-exec='echo "start $$ {}"; sleep 60' \
	--switch-output-exec-timeout=${TIMEOUT_S}s --switch-output-state="$TMP/a.state" \
	-o "$TMP/a/perf.data" 2> a.err &
A=$!
BG_PIDS+=("$A")
"$PERF" record -a -e cpu-clock -F 99 --overwrite --switch-output \
	--switch-output-exec='printf "path=%s trigger=%s\n" {} "$PERF_DUMP_TRIGGER"; exit 1' \
	--switch-output-state="$TMP/b.state" -o "$name_b" 2> b.err &
B=$!
BG_PIDS+=("$B")
wait_ready "$A"
wait_ready "$B"

dumps() { grep -c '^\[ perf record: Dump ' "$1"; }
empties() { grep -c 'nothing written' "$1"; }
# waits for recorder WHO (PID)'s Nth dump; fails with what its stderr
# says last. A trigger that found no sample yet ("No samples recorded:
# nothing written": at -F 99, right after the start) is sent again:
# EMPTY is the count of those lines before the trigger.
wait_dump() {	# WHO PID N EMPTY
	local i empty=$4
	for ((i = 0; i < 3000; i++)); do
		[ "$(dumps "$1.err")" -ge "$3" ] && return 0
		if [ "$(empties "$1.err")" -gt "$empty" ]; then
			empty=$((empty + 1))
			log "recorder $1: no sample yet for dump $3: asked again"
			kill -USR2 "$2"
		fi
		sleep 0.01
	done
	fail "recorder $1: dump $3 after 30 s: $(tail -3 "$1.err")"
}
now() { date +%s.%N; }

# a trigger every second: each dump must be in place long before the
# sleeping hook's timeout, whatever the hooks of the dumps before do
worst=0
for ((i = 1; i <= N; i++)); do
	t0=$(now)
	ea=$(empties a.err) eb=$(empties b.err)
	kill -USR2 "$A" "$B"
	wait_dump a "$A" "$i" "$ea"
	wait_dump b "$B" "$i" "$eb"
	lat=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
	log "dump $i in place $lat s after its SIGUSR2"
	worst=$(awk -v w="$worst" -v l="$lat" 'BEGIN { print (l > w) ? l : w }')
	# the next trigger a second after this one
	rest=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { r = 1 - (b - a); print (r > 0) ? r : 0 }')
	sleep "$rest"
done
awk -v w="$worst" -v m="$MAX_LATENCY_S" 'BEGIN { exit !(w < m) }' ||
	fail "a dump was in place $worst s after its trigger (hooks run ${TIMEOUT_S} s)"
# none lost: every dump is a file
[ "$(ls a | grep -c '^perf\.data\.')" = $N ] || fail "recorder A: $(ls a | wc -l) files, want $N"
[ "$(ls b | wc -l)" = $N ] || fail "recorder B: $(ls b | wc -l) files, want $N"
[ ! -e pwned ] && [ ! -e pwned2 ] || fail "the dump's path was run as shell code"

# B: every run got its path and trigger, and its failure was logged
for f in b/*; do
	grep -qF "perf record: post-dump: pid " b.err || fail "no output of B's hook"
	grep -qF "path=$TMP/$f trigger=signal" b.err || fail "B's hook did not get '$TMP/$f'"
done
wait_until "B: $N failures logged" grep -q "exit status 1 after .* ($N failed so far)" b.err

# A: the first run is killed at its timeout, said, and its group is gone
wait_line a.err "still running after ${TIMEOUT_S}.000 s (--switch-output-exec-timeout): SIGKILL to its process group (1 killed so far)"
first=$(grep -m1 -o 'post-dump: pid [0-9]*: start' a.err | awk '{ print $3 }' | tr -d :)
[ -n "$first" ] || fail "no output of A's first run: $(head -5 a.err)"
wait_until "A's first run's group ($first) gone" bash -c "! pgrep -g $first >/dev/null"
grep -q "^hook_killed 1$" a.state || wait_line a.state "^hook_killed [1-9]"
grep -q "^hook_dropped 0$" a.state || fail "A dropped runs: $(cat a.state)"
# B's counters as the log says them
wait_line b.state "^hook_failed $N$"
grep -q "^hook_runs $N$" b.state && grep -q "^dumps $N$" b.state ||
	fail "B's state: $(cat b.state)"

# a SIGINT while A's hook sleeps: the recorder ends within a second plus
# its last dump, and the hook's group goes with it
run=$(grep -o 'post-dump: pid [0-9]*: start' a.err | tail -1 | awk '{ print $3 }' | tr -d :)
pgrep -g "$run" >/dev/null || fail "A's hook $run does not run"
kill -INT "$A" "$B"
wait_gone "$A" "SIGINT with a post-dump hook running"
wait_gone "$B" "SIGINT"
# a grandchild killed with its group is init's to reap: a moment
wait_until "A's hook $run outlived the recorder" bash -c "! pgrep -g $run >/dev/null"
grep -q "post-dump: pid $run for .*: recording ended: SIGTERM to its process group" a.err ||
	fail "A's end said nothing of its hook: $(tail -5 a.err)"
grep -q "no run, recording ended first" a.err || fail "A's queued runs: $(tail -5 a.err)"
[ "$(ls a | grep -c '^perf\.data\.')" = $((N + 1)) ] || fail "A's last dump is missing"
log "worst dump latency ${worst}s with hooks running; $(grep -c 'failed so far' b.err) failures logged"
exit 0
