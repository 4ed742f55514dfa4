#!/bin/bash
# perf record, normal mode: output checked up front, a full disk keeps the data, size triggers count after the prelude, kill -9 leaves nothing
. "$(dirname "$0")/lib/common.sh"
need_stock
[ "$(id -u)" = 0 ] || skip "needs root to mount small and read-only tmpfs"
cd "$TMP" || exit 1
mounts=()
trap 'for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; cleanup' EXIT
mount_tmpfs() {	# DIR OPTIONS
	mkdir -p "$1" && mount -t tmpfs -o "$2" tmpfs "$1" || skip "cannot mount tmpfs on $1"
	mounts+=("$TMP/$1")
}

# -o DIR: moved to DIR.old up front, as the stock perf does
mkdir dir.data && touch dir.data/inside
"$PERF" record -q -e cpu-clock -o dir.data -- "$PERF" test -w spin 0.2 || fail "-o DIR"
[ -f dir.data ] && [ -f dir.data.old/inside ] || fail "-o DIR: $(ls -la)"
stock_reads_clean dir.data

# a read-only filesystem: refused before recording, not after it
mount_tmpfs ro ro,size=1M
for mode in "" --overwrite; do
	start=$(date +%s%N)
	"$PERF" record $mode -e cpu-clock -o ro/x.data -- "$PERF" test -w spin 10 2> ro.err &&
		fail "$mode: a read-only output was accepted"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -lt 5000 ] || fail "$mode: read-only output refused only after ${ms} ms of recording"
	[ "$(grep -c . ro.err)" -eq 1 ] &&
		grep -q "cannot create output file ro/x.data: Read-only file system" ro.err ||
		fail "$mode: read-only: $(cat ro.err)"
done

# a name ending in '/' names no file: refused up front
"$PERF" record -q -e cpu-clock -o newdir/ -- true 2> slash.err && fail "-o newdir/ accepted"
grep -q "newdir/: ends in '/'" slash.err || fail "-o newdir/: $(cat slash.err)"

# an existing empty output is simply replaced (perf keeps only a non-empty one)
: > empty.data
"$PERF" record -q -e cpu-clock -o empty.data -- "$PERF" test -w spin 0.2 || fail "-o over an empty file"
[ -s empty.data ] && [ ! -e empty.data.old ] || fail "-o over an empty file: $(ls -la empty.data*)"

# a full disk: recording stops, the file keeps what was written and reads
# clean, and the workload runs on to give its own exit status
mount_tmpfs small size=512K
"$PERF" record -e cpu-clock -c 20000 -m 64K -o small/full.data -- \
	sh -c '"$0" test -w spin-cpu 1.5; exit 5' "$PERF" 2> full.err
rc=$?
[ $rc -eq 5 ] || fail "full disk: exit $rc, want the workload's 5 ($(cat full.err))"
grep -q "perf record: writing small/full.data: No space left on device: recording stopped, what was written is kept" full.err ||
	fail "full disk: no message: $(cat full.err)"
[ -f small/full.data ] || fail "full disk: the file is gone: $(ls -a small)"
ls -a small | grep -q tmp && fail "full disk: a temporary file is left: $(ls -a small)"
n=$("$STOCK" report -i small/full.data --stats 2>/dev/null | awk '/SAMPLE events/ {print $3; exit}')
[ "${n:-0}" -gt 1000 ] || fail "full disk: ${n:-no} samples kept"
"$STOCK" script -i small/full.data -F comm 2>/dev/null | grep -q . || fail "full disk: stock perf script reads nothing"
log "full disk: $n samples kept"
umount small

# a size trigger counts what came after the file's prelude: a prelude
# bigger than the size (-a synthesizes every task) must not rotate for ever,
# and SIGINT ends the recorder however it rotates
"$PERF" record -q --switch-output=10K -a -e cpu-clock -c 50000000 -o sz.data 2> sz.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
sleep 1.5	# the window observed: rotations, if any, happen in it
kill -INT $rec
wait_gone $rec "--switch-output=10K"
n=$(ls sz.data.* 2>/dev/null | wc -l)
# (the bug rotated ~100 files a second; tracking records of other tasks
# may fill a few 10K files honestly on a busy machine)
[ "$n" -ge 1 ] && [ "$n" -le 30 ] || fail "--switch-output=10K -a at 20 samples/s: $n files in 1.5 s"
for f in sz.data.*; do stock_reads_clean "$f"; done

# a control fifo in normal mode neither renames the output nor rotates
mkfifo ctl ack
"$PERF" record -q -e cpu-clock --control=fifo:ctl,ack -o nc.data -- "$PERF" test -w spin 1 &
rec=$!
BG_PIDS+=($rec)
exec 7<>ack
echo snapshot > ctl
read -r -t 10 answer <&7 || fail "normal mode: no ack for snapshot"
wait $rec || fail "normal mode with --control: exit status"
[ -f nc.data ] && ! ls nc.data.* >/dev/null 2>&1 || fail "--control renamed the output: $(ls nc.data*)"

# kill -9 while writing: the file being written has no name, nothing stays;
# a kill in the set-up's instant when its O_TMPFILE probe has a name, or on
# a filesystem without O_TMPFILE, leaves a hidden leftover that the next
# run to the same name removes (the dead run's pid is in it): checked after
# that second run
"$PERF" record -q -e cpu-clock -o k9.data -- "$PERF" test -w spin 10 &
rec=$!
BG_PIDS+=($rec)
has_output_open() { ls -l /proc/$rec/fd | grep -q "$TMP/"; }
wait_until "kill -9: the recorder never opened its file" has_output_open
child=$(pgrep -P $rec)
kill -9 $rec
wait $rec 2>/dev/null
[ -n "$child" ] && kill $child 2>/dev/null
[ -e k9.data ] && fail "kill -9: k9.data was named"
# the file being written had no name: at most the probe's can be there
ls -a | grep '^\.k9\.data' | grep -qv '\.probe$' && fail "kill -9 left a named file: $(ls -a | grep k9)"
"$PERF" record -q -e cpu-clock -o k9.data -- true 2>/dev/null
ls -a | grep -q '^\.k9\.data' && fail "kill -9 left: $(ls -a | grep k9)"
exit 0
