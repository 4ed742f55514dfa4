#!/bin/bash
# --switch-output-delay dumps what followed the trigger too, a trigger during the delay joins it; --switch-output-max-rate drops and counts triggers beyond N per period, acks dropped snapshots; a trigger read in the round that reaps the workload still gets its dump
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
need_tracepoint syscalls sys_enter_kill
cd "$TMP" || exit 1

# numbered FILE BASE: "number seconds" of each close(BASE + i) in FILE
numbered() {
	"$STOCK" script -i "$1" -F time,trace 2>/dev/null |
		awk '/fd: 0x/ { t = $1; sub(/:$/, "", t); f = $0; sub(/.*fd: /, "", f); print f, t }' |
		hex2dec |
		awk -v b=$2 '$1 >= b && $1 < b + 100000 { print $1 - b, $2 }'
}

# paced OUT BASE KILLS OPTS...: 1500 numbered close() about 1 ms apart,
# a trigger (kill(self, 0)) before each number in KILLS
paced() {
	local out=$1 base=$2 kills=$3
	shift 3
	"$PERF" record --overwrite --switch-output-event=syscalls:sys_enter_kill -c 1 \
		-e syscalls:sys_enter_close -m 4M -o "$out" "$@" -- \
		"$PERF" test -w paced 1500 "$base" 1000 "$kills" 2> "err-$out" ||
		fail "record $out $*: $(cat "err-$out")"
}

# every number 0..1499 once over the files OUT.*, in order inside each file
all_once() {
	local f n=0
	for f in "$1".*; do
		numbered "$f" "$2" > "num-$f"
		sort -n -c "num-$f" 2>/dev/null || fail "$f: numbered events out of order"
		n=$((n + $(wc -l < "num-$f")))
	done
	cat num-"$1".* | awk '{ print $1 }' | sort -n | uniq -d | grep -q . &&
		fail "$1: a numbered event is in two dumps"
	[ "$n" -eq 1500 ] || fail "$1: $n numbered events over the dumps, want 1500"
}

# seconds from event N (the last before a trigger) to the newest numbered
# event of FILE
after() {
	awk -v n=$2 '$1 == n { t0 = $2 } { last = $2 } END { printf "%.3f\n", last - t0 }' "num-$1"
}

# the delay: the dump holds the 0.6 s that followed the trigger (before
# event 300), not just what led up to it; without the delay it ends there
paced dl.data 7000000 300 --switch-output-delay=600ms
[ "$(ls dl.data.* | wc -l)" -eq 2 ] || fail "delay: $(ls dl.data.*), want the triggered and the last dump"
all_once dl.data 7000000
first=$(ls dl.data.* | head -1)
span=$(after "$first" 299)
awk -v s=$span 'BEGIN { exit !(s >= 0.59 && s < 1.0) }' ||
	fail "delay 600ms: the dump ends $span s after the trigger"
paced nd.data 7100000 300
first=$(ls nd.data.* | head -1)
all_once nd.data 7100000
span=$(after "$first" 299)
awk -v s=$span 'BEGIN { exit !(s < 0.3) }' || fail "no delay: the dump ends $span s after the trigger"

# a trigger during the delay starts no window of its own: two triggers
# 0.1 s apart, one dump 0.6 s after the first, none 0.6 s after the second
# (100 paced events, not 400: the paces are relative sleeps, each a little
# over 1 ms, and 400 of them on a loaded machine once took over 0.6 s)
paced mg.data 7200000 300,400 --switch-output-delay=600ms
[ "$(ls mg.data.* | wc -l)" -eq 2 ] || fail "merged triggers: $(ls mg.data.*), want 2 dumps"
all_once mg.data 7200000
span=$(after "$(ls mg.data.* | head -1)" 299)
awk -v s=$span 'BEGIN { exit !(s >= 0.59 && s < 0.85) }' ||
	fail "merged triggers: the dump ends $span s after the first trigger"

# the rate limit: 5 triggers, 2 per hour: 2 dumps and the last one, 3 said
# and counted, and no event lost for it (the rings keep them for later)
paced rl.data 7300000 200,450,700,950,1200 --switch-output-max-rate=2/1h
[ "$(ls rl.data.* | wc -l)" -eq 3 ] || fail "rate limit: $(ls rl.data.*), want 3 dumps"
all_once rl.data 7300000
n=$(grep -c 'trigger ignored: over --switch-output-max-rate' err-rl.data)
[ "$n" -eq 3 ] || fail "rate limit: $n 'trigger ignored' lines, want 3: $(cat err-rl.data)"
grep -q '3 triggers ignored: over --switch-output-max-rate' err-rl.data ||
	fail "rate limit: no count in the summary: $(cat err-rl.data)"
for f in rl.data.*; do stock_reads_clean "$f"; done

# a control snapshot over the rate is acked at once (a client waiting for
# its ack must not hang), and makes no dump
mkfifo ctl ack
exec 7<>ctl 8<>ack
"$PERF" record -q --overwrite --control=fifo:ctl,ack --switch-output-max-rate=1/1h -e cpu-clock \
	-o ct.data -- "$PERF" test -w spin 30 &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
# the first is acked once its dump is done; those the limit drops, at once
# (2 s leaves a loaded machine room)
for i in 1 2 3; do
	echo snapshot >&7
	read -r -t $([ $i = 1 ] && echo 20 || echo 2) answer <&8 ||
		fail "rate limit: no ack for snapshot $i"
	[ "$answer" = ack ] || fail "rate limit: ack for snapshot $i was '$answer'"
done
[ "$(ls ct.data.* 2>/dev/null | wc -l)" -eq 1 ] || fail "rate limit 1/1h: $(ls ct.data.*) after 3 snapshots"
kill -INT $rec
wait_gone $rec "rate-limited control"

# a trigger read in the same round as the workload's end: the recorder
# stopped (SIGSTOP) while the workload fires it and exits, then resumed
# with both the ring and the SIGCHLD pending: the trigger gets its dump
# (all 100 numbers), then the exit's finds nothing new
mkfifo go
"$PERF" record --overwrite --switch-output-event=syscalls:sys_enter_kill -c 1 \
	-e syscalls:sys_enter_close -o re.data -- \
	sh -c "read _ < go; exec '$PERF' test -w paced 100 7500000 0 50" 2> re.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
work=$(pgrep -P $rec)
kill -STOP $rec
echo > go
zombie() { [ "$(awk '{ print $3 }' "/proc/$work/stat" 2>/dev/null)" = Z ]; }
wait_until "the workload $work did not end" zombie
kill -CONT $rec
wait $rec || fail "reaped trigger: recorder status $?: $(cat re.err)"
[ "$(grep -c '^\[ perf record: Dump re\.data\.' re.err)" = 1 ] &&
	grep -q '^\[ perf record: No samples since the last dump: nothing written \]$' re.err ||
	fail "reaped trigger: no dump of its own before the exit's: $(cat re.err)"
[ "$(numbered re.data.* 7500000 | wc -l)" = 100 ] || fail "reaped trigger: $(numbered re.data.* 7500000 | wc -l) of 100 numbers"

# bad values: one line naming the option, exit 129
for bad in "--switch-output-delay=5" "--switch-output-delay=0ms" "--switch-output-delay=2d" \
	    "--switch-output-max-rate=0/1h" "--switch-output-max-rate=3" "--switch-output-max-rate=3/x" \
	    "--switch-output-max-rate=3/0s"; do
	out=$("$PERF" record --overwrite --switch-output "$bad" -o bad.data -- true 2>&1)
	rc=$?
	[ $rc -eq 129 ] || fail "$bad: exit $rc"
	[ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q -- "${bad%%=*}" ||
		fail "$bad: '$out'"
done
out=$("$PERF" record --switch-output-delay=1s -o bad.data -- true 2>&1)
[ $? -eq 129 ] && echo "$out" | grep -q 'needs --switch-output' || fail "delay without a trigger: '$out'"
# a normal recording's --control has no snapshot to delay, limit or rotate
for opt in --switch-output-delay=1s --switch-output-max-rate=1/1h --switch-max-files=2; do
	out=$("$PERF" record --control=fifo:ctl,ack "$opt" -o bad.data -- true 2>&1)
	[ $? -eq 129 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
		echo "$out" | grep -q -- "${opt%%=*} needs --switch-output" ||
		fail "$opt with only --control in normal mode: '$out'"
done
exit 0
