#!/bin/bash
# --switch-output triggers: max files, time, size, an event, a control fifo; rotation stands alone
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
need_tracepoint syscalls sys_enter_kill
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

# --switch-max-files=2: 5 dumps leave this run's newest 2, and nothing else is touched
# (the workload spins until the 4 dumps are written: a fixed run could
# end before a busy machine lets them all through)
echo keep > mf.data.2000010100000000
"$PERF" record --overwrite --switch-output --switch-max-files=2 -e cpu-clock -o mf.data \
	-- sh -c 'until [ -e mf.stop ]; do "$0" test -w spin 0.05; done' "$PERF" 2> mf.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
dumps() { [ "$(grep -c 'Dump mf\.data' mf.err)" -ge "$1" ]; }
# SIGUSR2 until the Nth dump is written (again now and then: a trigger
# that finds no sample since the last dump writes nothing)
dump_n() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ $((i % 50)) -eq 0 ] && kill -USR2 $rec
		dumps $1 && return 0
		sleep 0.01
	done
	fail "dump $1 not written after 30 s: $(cat mf.err)"
}
for i in 1 2 3 4; do dump_n $i; done
touch mf.stop
wait $rec || fail "max-files record: $(cat mf.err)"
dumps 5 || fail "fewer than 5 dumps: $(cat mf.err)"
# this run's files are all but the planted one, whatever today's date
mine=$(ls mf.data.* | grep -vx mf.data.2000010100000000)
n=$(echo "$mine" | grep -c .)
[ "$n" -eq 2 ] || fail "--switch-max-files=2 left $n files: $(ls mf.data.*)"
[ "$(cat mf.data.2000010100000000)" = keep ] || fail "a file of another run was touched"
for f in $mine; do stock_reads_clean "$f"; done

# time: every second during 3.3 s, plus the final dump
"$PERF" record --overwrite --switch-output=1s -e cpu-clock -o t.data -- "$PERF" test -w spin 3.3 2> t.err ||
	fail "time record"
n=$(ls t.data.* | wc -l)
# 3 periodic dumps and the final one; a slow (sanitizer) start may cost one
[ "$n" -ge 3 ] && [ "$n" -le 5 ] || fail "--switch-output=1s over 3.3 s made $n files"
grep -c 'Dump t.data' t.err | grep -qx "$n" || fail "one Dump line per file: $(cat t.err)"

# size, normal mode: the file rotates, and every file stands alone
{
	"$PERF" record --switch-output=200K -c 1 -e syscalls:sys_enter_close -m 16M -o s.data -- \
		"$PERF" test -w closes 30000 2> s.err || fail "size record: $(cat s.err)"
	n=$(ls s.data.* | wc -l)
	[ "$n" -ge 3 ] || fail "--switch-output=200K made $n files: $(cat s.err)"
	total=0
	# (all of the stock perf's reads of the first and last file: each of
	# 6 runs over ~10 files took a minute under load)
	stock_reads_clean "$(ls s.data.* | head -1)"
	stock_reads_clean "$(ls s.data.* | tail -1)"
	for f in s.data.*; do
		# named by the tracking prelude, not ":PID"
		"$STOCK" script -i "$f" -F comm 2>/dev/null | grep -q '^ *:' && fail "$f has unnamed samples"
		c=$("$STOCK" script -i "$f" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
			hex2dec | awk '$1 >= 1000000' | wc -l)
		total=$((total + c))
	done
	[ "$total" -eq 30000 ] || fail "rotated files hold $total numbered events, want 30000"
	grep -q 'Captured and wrote '"$n"' files' s.err || fail "closing line: $(cat s.err)"
}

# size, overwrite mode: dumps when the rings took in 256K; 20100 numbered
# close() events (~1.4 MB, a ring holds them all) come out once each
# (a cpu-clock at -c 10000 here once starved the workload for minutes)
# (the size is checked every 100 ms: the workload stays a second after them,
# then closes 100 more for the last dump, and spins: see the bug below)
"$PERF" record -q --overwrite --switch-output=256K -c 1 -e syscalls:sys_enter_close -m 4M -o os.data -- \
	sh -c '"$0" test -w closes 20000 5500000 && "$0" test -w spin 1 && "$0" test -w closes 100 5520000 &&
	    "$0" test -w spin 0.2' \
	"$PERF" || fail "overwrite size record"
[ "$(ls os.data.* | wc -l)" -ge 2 ] || fail "--overwrite --switch-output=256K made no size dump"
total=0
for f in os.data.*; do
	c=$("$STOCK" script -i "$f" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk '$1 >= 5500000 && $1 < 5520100' | wc -l)
	total=$((total + c))
done
[ "$total" -eq 20100 ] || fail "overwrite size dumps hold $total numbered events, want 20100"
# the last dump keeps the workload's last events: recording has ended, so
# nothing newer than the copy is left to a next dump that never comes (it
# used to lose most of these 100)
"$PERF" record -q --overwrite -c 1 -e syscalls:sys_enter_close -m 4M -o last.data -- \
	"$PERF" test -w closes 100 5530000 || fail "last-events record"
c=$("$STOCK" script -i last.data -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
	hex2dec | awk '$1 >= 5530000 && $1 < 5530100' | wc -l)
[ "$c" -eq 100 ] || fail "the last dump holds $c of the workload's last 100 events"

# an event as the trigger: one kill(2) -> one dump, plus the final one
# (the workload spins, for samples in both: a sleeping one has none to
# dump; after the kill it spins on until the trigger's dump is written)
{
	"$PERF" record -q --overwrite --switch-output-event=syscalls:sys_enter_kill -e cpu-clock \
		-o ev.data -- sh -c '"$0" test -w spin 0.2; kill -0 $$
			until ls ev.data.* >/dev/null 2>&1; do "$0" test -w spin 0.05; done
			"$0" test -w spin 0.2' "$PERF" || fail "event record"
	n=$(ls ev.data.* | wc -l)
	[ "$n" -eq 2 ] || fail "--switch-output-event: $n files, want 2"
}

# a /no-overwrite/ event rides the forward rings and still lands in the dump
{
	"$PERF" record -q --overwrite -e cpu-clock -e 'sched:sched_switch/no-overwrite/' -a \
		-o no.data -- sleep 0.3 || fail "no-overwrite record"
	stock_reads_clean no.data
	"$STOCK" evlist -v -i no.data 2>/dev/null | grep '^sched:sched_switch' | grep -q write_backward &&
		fail "/no-overwrite/ event is backward"
	n=$("$STOCK" script -i no.data -F event 2>/dev/null | grep -c sched_switch)
	[ "$n" -gt 0 ] || fail "no sched_switch samples from the forward ring in the dump"
}

# a control fifo: "snapshot" dumps, and the ack comes once the file is in
# place (a spin first gives the rings samples; a snapshot that still finds
# none says so and writes nothing, and the next one is tried)
mkfifo ctl ack
"$PERF" record --overwrite --control=fifo:ctl,ack -a -e cpu-clock -o c.data 2> c.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
exec 7<>ack
for try in 1 2 3 4 5; do
	"$PERF" test -w spin 0.05
	echo snapshot > ctl
	read -r -t 60 answer <&7 || fail "no ack"
	[ "$answer" = ack ] || fail "ack was '$answer'"
	n=$(ls c.data.* 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] && break
	[ "$(grep -c 'nothing written' c.err)" -eq "$try" ] ||
		fail "after snapshot+ack: $n files, and no 'nothing written': $(cat c.err)"
done
[ "$n" -eq 1 ] || fail "after 5 snapshots+acks: $n files: $(cat c.err)"
stock_reads_clean c.data.*
echo stop > ctl
read -r -t 60 answer <&7 || fail "no ack for stop"
wait $rec || fail "control record exit status: $(cat c.err)"
[ "$(ls c.data.* | wc -l)" -eq 2 ] || fail "no final dump after stop"
exit 0
