#!/bin/bash
# --control: disable/enable cut exact numbered spans, the fd: form, many triggers make one dump
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
need_tracepoint syscalls sys_enter_kill
cd "$TMP" || exit 1

cmd() {	# WORD: send it, wait for its ack
	echo "$1" >&7
	read -r -t 20 answer <&8 || fail "no ack for $1"
	[ "$answer" = ack ] || fail "ack for $1 was '$answer'"
}

# count FILE BASE: close(BASE + i) events in FILE (bases nobody else uses:
# other tests may run at the same time and this records system-wide)
count() {
	"$STOCK" script -i "$1" -F trace 2>/dev/null | awk '/fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk -v b=$2 '$1 >= b && $1 < b + 100000' | wc -l
}

# disable and enable, acked, are exact: every close() while disabled is
# missing, every one while enabled is there (a fifo, normal mode)
mkfifo ctl ack
exec 7<>ctl 8<>ack
"$PERF" record -q --control=fifo:ctl,ack -a -c 1 -e syscalls:sys_enter_close -m 16M -o en.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
"$PERF" test -w closes 3000 5100000
cmd disable
"$PERF" test -w closes 3000 5200000
cmd enable
"$PERF" test -w closes 3000 5300000
cmd stop
wait $rec || fail "enable/disable record exit status $?"
# normal mode: --control neither renames the output nor switches files
f=en.data
ls en.data.* >/dev/null 2>&1 && fail "--control renamed or switched the output: $(ls en.data*)"
stock_reads_clean "$f"
a=$(count "$f" 5100000) b=$(count "$f" 5200000) c=$(count "$f" 5300000)
log "enabled $a, disabled $b, enabled again $c"
[ "$a" -eq 3000 ] && [ "$b" -eq 0 ] && [ "$c" -eq 3000 ] ||
	fail "close() events before/while/after disabled: $a $b $c, want 3000 0 3000"

# the fd: form, with --overwrite: a snapshot's ack means its file is there
mkfifo c2 a2
exec 5<>c2 6<>a2 7>&- 8<&-
exec 7>&5 8<&6
"$PERF" record -q --overwrite --control=fd:5,6 -a -e cpu-clock -o fd.data &
rec=$!
BG_PIDS+=($rec)
exec 5>&- 6<&-
wait_ready $rec
# samples to dump: the first cpu-clock tick comes up to 250 us after the
# events are enabled, and a snapshot before it rightly writes nothing
"$PERF" test -w spin 0.05
cmd snapshot
[ "$(ls fd.data.* 2>/dev/null | wc -l)" -eq 1 ] || fail "fd: after the snapshot ack: $(ls fd.data.*)"
cmd stop
wait $rec || fail "fd: record exit status $?"
[ "$(ls fd.data.* | wc -l)" -eq 2 ] || fail "fd: no final dump after stop: $(ls fd.data.*)"
for f in fd.data.*; do stock_reads_clean "$f"; done

# 30 triggers while the recorder is frozen: one dump, not 30
# (two fifos: a second read of one could open it while the first echo
# still holds it, and take its close for the second go)
mkfifo go goend
"$PERF" record --overwrite --switch-output-event=syscalls:sys_enter_kill -e cpu-clock -o tr.data -- \
	sh -c '"$0" test -w spin 0.3; read x < go; for i in $(seq 30); do kill -0 $$; done
	       : > kills.done; read x < goend; "$0" test -w spin 0.2' "$PERF" 2> tr.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
kill -STOP $rec
echo > go		# the workload's first read returns
wait_until "the workload did not do its kills" test -e kills.done
grep -c 'Dump tr.data' tr.err | grep -qx 0 || fail "a dump while frozen: $(cat tr.err)"
kill -CONT $rec
wait_line tr.err 'Dump tr.data'
wait_ready $rec		# back in poll: every trigger it read has been handled
n=$(grep -c 'Dump tr.data\|nothing written' tr.err)
[ "$n" -eq 1 ] || fail "30 triggers made $n dumps: $(cat tr.err)"
[ "$(ls tr.data.* | wc -l)" -eq 1 ] || fail "not one file: $(ls tr.data.*)"
stock_reads_clean tr.data.*
echo > goend		# the workload spins (the last dump) and ends
wait $rec || fail "trigger record exit status $?: $(cat tr.err)"
[ "$(ls tr.data.* | wc -l)" -eq 2 ] || fail "no last dump: $(cat tr.err)"

# a last dump with nothing new: no file, said so, and still status 0 with
# the summary (kill(2) samples: the workload's exit makes none)
mkfifo go2
"$PERF" record --overwrite --control=fifo:c2,a2 -e syscalls:sys_enter_kill -o nd.data -- \
	sh -c 'kill -0 $$; : > killed; read x < "$0"' go2 2> nd.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_until "the workload did not kill" test -e killed
cmd snapshot
[ "$(ls nd.data.* | wc -l)" -eq 1 ] || fail "no snapshot of the kill(2) sample: $(cat nd.err)"
echo > go2
wait $rec
rc=$?
[ "$(ls nd.data.* | wc -l)" -eq 1 ] || fail "a file after the last dump had nothing new: $(cat nd.err)"
grep -q 'nothing written' nd.err || fail "the empty last dump is not announced: $(cat nd.err)"
[ $rc -eq 0 ] || fail "a last dump with nothing new: exit $rc ($(cat nd.err))"
grep -q '1 dumps, .* records written' nd.err || fail "no summary after an empty last dump: $(cat nd.err)"
exit 0
