#!/bin/bash
# perf record --overwrite: bad options, a full disk during a dump, early and stormy SIGUSR2
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "mounting a tmpfs for the full-disk case"
cd "$TMP" || exit 1

AS=()	# a command prefix: who runs perf
one_line_error() {	# PATTERN -- perf args
	local pattern=$1 rc
	shift 2
	"${AS[@]}" "$PERF" "$@" > out 2> err
	rc=$?
	[ $rc -ne 0 ] || fail "perf $* succeeded"
	[ "$(grep -c . err)" -eq 1 ] || fail "perf $*: $(cat err)"
	grep -q -- "$pattern" err || fail "perf $*: '$(cat err)' lacks '$pattern'"
	log "perf $*: rc $rc: $(cat err)"
}

one_line_error "invalid --switch-output 'foo'" -- record --overwrite --switch-output=foo -- true
one_line_error "invalid --switch-output '10'" -- record --switch-output=10 -- true
one_line_error "needs --switch-output" -- record --overwrite --switch-max-files=3 -- true
one_line_error "invalid --switch-max-files '0'" -- record --switch-output --switch-max-files=0 -- true
one_line_error "--control: $TMP/nope/ctl: No such file or directory" -- \
	record --overwrite --control=fifo:$TMP/nope/ctl -- true
touch plain
one_line_error "--control: $TMP/plain: not a fifo" -- record --overwrite --control=fifo:$TMP/plain -- true
one_line_error "--control: 'pipe:x'" -- record --overwrite --control=pipe:x -- true
one_line_error "invalid --dump-window 'some'" -- record --overwrite --dump-window=some -- true
one_line_error "invalid --tracking-max-size 'lots'" -- record --overwrite --tracking-max-size=lots -- true
# rings whose capture buffers cannot fit: said at start, before any ring is
# mapped (each ring here is at least half of what is available, and its
# capture buffer as much again)
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
ring_mb=1
while [ $((ring_mb * 2048)) -lt "$avail_kb" ]; do ring_mb=$((ring_mb * 2)); done
one_line_error "their capture buffers need .*M, only .*M of memory is available: use a smaller -m" \
	-- record --overwrite -a -m ${ring_mb}M -o big.data -- true
[ ! -e big.data ] || fail "a file was written though the rings could not be set up"
one_line_error "event syntax error: 'nosuch'" -- record --overwrite -e nosuch -- true
# an event that fails to open: 'instructions' where there is no PMU (a VM),
# else any event system-wide for an unprivileged user
if ! "$PERF" record -q -e instructions -o probe.data -- true 2>/dev/null; then
	one_line_error "instructions" -- record --overwrite -e instructions -C 0 -- true
elif [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ] && command -v setpriv >/dev/null; then
	chmod 777 .
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	one_line_error "Permission denied" -- record --overwrite -e cpu-clock -a -o "$TMP/np.data" -- true
	AS=()
else
	skip "no event fails to open here: a PMU, and perf_event_paranoid < 1 or no setpriv"
fi
rm -f probe.data
ls | grep -q '\.tmp' && fail "temporary files left"

# SIGUSR2 before the rings exist and while the workload exits, and a storm
# of them: nothing crashes, every file is whole. The workload spins until
# the storm's dump is written (a fixed run could be over, on a busy
# machine, before the recorder is in its loop)
"$PERF" record -q --overwrite --switch-output -e cpu-clock -o storm.data -- \
	sh -c 'until [ -e storm.stop ]; do "$0" test -w spin 0.05; done' "$PERF" &
rec=$!
BG_PIDS+=($rec)
# as soon as perf has SIGUSR2 blocked (bit 12 of SigBlk), in the middle of set-up
# (no sleep between looks: the set-up is short; 30 s at most, and never a
# SIGUSR2 before it is blocked, whose default action would kill perf)
blocked=
for ((end = SECONDS + 30; SECONDS < end; )); do
	blk=$(awk '/^SigBlk/ {print $2}' /proc/$rec/status 2>/dev/null)
	[ -n "$blk" ] && [ $((0x$blk & 0x800)) -ne 0 ] && blocked=1 && break
done
[ -n "$blocked" ] || fail "perf never blocked SIGUSR2 (SigBlk ${blk:-gone})"
kill -USR2 $rec 2>/dev/null
wait_ready $rec
stormed() { compgen -G 'storm.data.*' > /dev/null; }
# a storm, again until one dump is written: a storm before the workload's
# first sample writes nothing
for ((try = 0; try < 60; try++)); do
	for i in $(seq 200); do kill -USR2 $rec 2>/dev/null || break; done
	for i in $(seq 50); do stormed && break; sleep 0.01; done
	stormed && break
done
stormed || fail "storm: no dump after 60 storms"
sleep 0.2	# the workload's pace, not a readiness wait: samples for the last dump
touch storm.stop
for i in $(seq 50); do kill -USR2 $rec 2>/dev/null || break; done
wait $rec || fail "storm: exit status $?"
n=$(ls storm.data.* | wc -l)
[ "$n" -ge 2 ] || fail "storm: $n dumps"
for f in storm.data.*; do stock_reads_clean "$f"; done
log "storm: $n dumps"

# a full disk during a dump: one error line, no partial file, recording
# goes on and the next dump works
mkdir small
mount -t tmpfs -o size=2M tmpfs small 2>/dev/null || skip "cannot mount a tmpfs for the full-disk case"
trap 'umount "$TMP/small" 2>/dev/null; cleanup' EXIT
"$PERF" record --overwrite --switch-output -a -e cpu-clock -m 1M -o small/d.data 2> disk.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
"$PERF" test -w spin 0.5
dd if=/dev/zero of=small/filler bs=64K 2>/dev/null
kill -USR2 $rec
wait_line disk.err "dump failed"
[ "$(ls small | grep -c '^d\.data')" -eq 0 ] || fail "a dump appeared on a full disk: $(ls small)"
ls -a small | grep -q '\.tmp' && fail "partial file left: $(ls -a small)"
grep -q "perf record: dump failed: .*No space left on device" disk.err || fail "no ENOSPC line: $(cat disk.err)"
rm small/filler
"$PERF" test -w spin 0.3
kill -USR2 $rec
wait_line disk.err "Dump small/d.data"
kill -INT $rec
wait_stopped $rec INT || fail "full-disk record exit status $STOPPED_STATUS"
n=$(ls small/d.data.* 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "after the disk had room again: $n dumps, want 2 ($(cat disk.err))"
for f in small/d.data.*; do stock_reads_clean "$f"; done
grep -q '(some failed)' disk.err || fail "summary does not mention the failed dump"
log "full disk: $(grep -c 'dump failed' disk.err) failed dump, then $n whole ones"
umount small
exit 0
