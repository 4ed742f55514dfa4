#!/bin/bash
# perf record --history: numbered events through a compressed history that wrapped many times: the newest survive in order, the oldest dropped and counted, none in two dumps; read back by the stock perf and this perf's reader; bad values refused; the rings it picks without -m
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "the rings --history picks with the kernel's pinning unlimited"
need_tracepoint syscalls sys_enter_close
need_tracepoint syscalls sys_enter_kill
cd "$TMP" || exit 1

# numbers FILE BASE: the close(BASE + i) events of FILE as i, in file order
numbers() {
	"$STOCK" script -i "$1" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk -v b=$2 '$1 >= b && $1 < b + 10000000 { print $1 - b }'
}

# 600000 numbered close() through 1M of history (2 rings): what is left
# is the newest events, every one of them, in order (at 300000 a second:
# a kernel loss would be a hole, and the sanitizer build drains slowly)
N=600000
"$PERF" record -v --history=1M -m 16M -c 1 -e syscalls:sys_enter_close -o w.data -- \
	"$PERF" test -w closes $N 8000000 300000 2> w.err || fail "record: $(cat w.err)"
numbers w.data 8000000 > w.num
n=$(wc -l < w.num)
first=$(head -1 w.num)
last=$(tail -1 w.num)
[ "$last" = $((N - 1)) ] || fail "the newest event is $last, not $((N - 1))"
[ "$n" -eq $((N - first)) ] || fail "$n events from $first to $((N - 1)): holes or repeats"
awk 'NR > 1 && $1 != prev + 1 { exit 1 } { prev = $1 }' w.num || fail "events out of order"
# reach: 1M of backward ring holds about 12000 of these 88-byte records
[ "$n" -ge 50000 ] || fail "1M of history kept only $n events"
[ "$first" -gt 0 ] || fail "the history never wrapped"
# what is gone was dropped for the size or trimmed to the common window,
# and counted (the workload closes a few other fds as it starts)
dropped=$(sed -nE 's/.*history: ([0-9]+) records .* taken in, ([0-9]+) .*dropped.*/\2/p' w.err)
trimmed=$(sed -nE 's/.* ([0-9]+) samples trimmed to the common window.*/\1/p' w.err)
[ -n "$dropped" ] && [ -n "$trimmed" ] && [ "$dropped" -gt 0 ] &&
	[ $((dropped + trimmed)) -ge "$first" ] && [ $((dropped + trimmed)) -le $((first + 50)) ] ||
	fail "losses not counted (dropped ${dropped:-?}, trimmed ${trimmed:-?}, first kept $first): $(cat w.err)"
grep -q 'lost: 0 dropped by the kernel' w.err || fail "kernel losses: $(cat w.err)"
stock_reads_clean w.data
# this perf's reader gets the same events
ours=$("$PERF" script -i w.data 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
	hex2dec | awk '$1 >= 8000000 && $1 < 9000000' | wc -l)
[ "$ours" -eq "$n" ] || fail "this perf's script reads $ours events, the stock $n"
log "1M of history kept $n of $N events, dropped $dropped"

# dumps on triggers: every event in exactly one dump, in order, and the
# dumps are named by the stock perf
"$PERF" record -q --history=8M --switch-output-event=syscalls:sys_enter_kill -c 1 \
	-e syscalls:sys_enter_close -o t.data -- "$PERF" test -w paced 3000 8100000 100 700,1500,2200 \
	2> t.err || fail "triggered record: $(cat t.err)"
[ "$(ls t.data.* | wc -l)" -eq 4 ] || fail "$(ls t.data.*): want 3 triggered dumps and the last"
for f in t.data.*; do
	numbers "$f" 8100000 > "num-$f"
	sort -n -c "num-$f" 2>/dev/null || fail "$f: out of order"
	"$STOCK" script -i "$f" -F comm 2>/dev/null | grep -q '^ *:' && fail "$f has unnamed samples"
	stock_reads_clean "$f"
done
total=$(cat num-t.data.* | wc -l)
[ "$total" -eq 3000 ] || fail "the dumps hold $total numbered events, want 3000"
[ -z "$(cat num-t.data.* | sort -n | uniq -d)" ] || fail "an event is in two dumps"
[ "$(cat num-t.data.* | sort -n | uniq | wc -l)" -eq 3000 ] || fail "an event is missing"

# a control snapshot, delayed: acked once its dump is in place, which
# holds what came 0.3 s after it (paced events 1 ms apart); then stop
mkfifo ctl ack
exec 7<>ctl 8<>ack
"$PERF" record -q --history=4M --control=fifo:ctl,ack --switch-output-delay=300ms -c 1 \
	-e syscalls:sys_enter_close -o c.data -- "$PERF" test -w paced 100000 8200000 1000 &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
sleep 0.2	# the workload's pace, not a readiness wait: some events before the trigger
echo snapshot >&7
t0=$(date +%s.%N)
read -r -t 20 answer <&8 || fail "no ack for the delayed snapshot"
t1=$(date +%s.%N)
[ "$answer" = ack ] || fail "ack was '$answer'"
awk -v a=$t0 -v b=$t1 'BEGIN { exit !(b - a >= 0.29) }' || fail "acked $(awk -v a=$t0 -v b=$t1 'BEGIN{print b - a}') s after the snapshot, before its delay"
f=$(ls c.data.* | head -1)
[ -n "$f" ] && [ "$(numbers "$f" 8200000 | wc -l)" -ge 250 ] || fail "the delayed dump holds $(numbers "$f" 8200000 | wc -l) events"
echo stop >&7	# ends the workload too
wait_gone $rec "control stop"

# a dump reads the history a chunk at a time: a full 16M history of
# profile-like samples (142M decompressed) dumps in well under that (20M
# here; the sanitizers take more)
hd=$(dirname "$(readlink -f "$PERF")")/history-dump
[ -x "$hd" ] || fail "no $hd: make builds it"
line=$("$hd" -d "$TMP" 2x16) || fail "history-dump: $line"
log "$line"
rss=$(echo "$line" | sed -nE 's/.*peak RSS +([0-9]+)\.[0-9] MB.*/\1/p')
file=$(echo "$line" | sed -nE 's/.* file +([0-9]+)\.[0-9] MB.*/\1/p')
[ -n "$rss" ] && [ "$file" -gt 100 ] && [ "$rss" -lt 100 ] ||
	fail "a full 16M history dumped ${file:-?} MB with ${rss:-?} MB of peak RSS: $line"

# without -m the forward rings hold a quarter of the history at most, from
# perf's 512K up to 8M (512K lost 3% of a million records a second in bench
# 4h, 8M none): root's rings are let past perf_event_mlock_kb
ncpu=$(getconf _NPROCESSORS_ONLN)
rings() {	# KB of each forward ring a --history recording says it has
	"$PERF" record -v -a -e cpu-clock "$@" -o rings.data -- true 2>&1 |
		sed -nE 's/.* forward rings of ([0-9]+)K.*/\1/p' | head -1
}
for want in 512 2048 8192; do
	got=$(rings --history=$((4 * ncpu * want))K)
	[ "$got" = $want ] || fail "--history=$((4 * ncpu * want))K on $ncpu CPUs: rings of ${got:-?}K, want ${want}K"
done
got=$(rings --history=$((16 * ncpu * 8192))K)
[ "$got" = 8192 ] || fail "a huge history: rings of ${got:-?}K, want the 8192K cap"
got=$(rings --history=$((4 * ncpu * 8192))K -m 1M)
[ "$got" = 1024 ] || fail "-m 1M with --history: rings of ${got:-?}K"
rm -f rings.data*

# bad values: one line, exit 129, nothing recorded
for bad in "--history=junk" "--history=0" "--history=1M,0" "--history=1M,23" "--history=1M,x" \
	   "--history=1M --overwrite"; do
	out=$("$PERF" record $bad -o bad.data -- true 2>&1)
	rc=$?
	[ $rc -eq 129 ] || fail "$bad: exit $rc ($out)"
	[ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q -- '--history' || fail "$bad: '$out'"
done
out=$("$PERF" record --history=100K -C 0,1 -o bad.data -- true 2>&1)
[ $? -ne 0 ] && echo "$out" | grep -q 'too small for 2 rings: at least 1024K' ||
	fail "a history too small for its rings: '$out'"
ls bad.data* >/dev/null 2>&1 && fail "a refused record left a file"
exit 0
