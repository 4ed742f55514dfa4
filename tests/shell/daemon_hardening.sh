#!/bin/bash
# perf daemon against local users: a binary named like a dump announcement cannot choose what signal reports, a stale ack is never taken for a signal's own, a base others can change is refused, stop signals only the daemon that took the lock, --switch-max-files holds across a session's restarts
. "$(dirname "$0")/lib/common.sh"
need_root "the daemon's sessions record system-wide"
need_stock
command -v python3 > /dev/null || skip "no python3 for the memfd workload and the foreign lock"
cd "$TMP" || exit 1
B=$TMP/base
mkdir -m 700 "$B"
cfg=$TMP/perfconfig

session_pid() { "$PERF" daemon --config "$cfg" -x: | awk -F: -v s="$1" '$2 == s { print $1 }'; }
pinged() { "$PERF" daemon ping --config "$cfg" --session "$1" | grep -q "^OK "; }
restarted() { local p; p=$(session_pid "$1"); [ -n "$p" ] && [ "$p" -gt 0 ] && [ "$p" != "$2" ]; }
stop_daemon() {
	"$PERF" daemon --config "$cfg" > /dev/null 2>&1 && "$PERF" daemon stop --config "$cfg"
}
trap 'stop_daemon; cleanup' EXIT
start_session() {	# NAME RUN: the only session of a fresh daemon, once it answers
	stop_daemon
	printf '[daemon]\nbase = %s\n[session-%s]\nrun = %s\n' "$B" "$1" "$2" > "$cfg"
	"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
	wait_until "session $1 did not answer a ping" pinged "$1"
}
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }	# utime+stime
spun() { [ "$(ticks "$1")" -ge "$2" ]; }

# 1. A workload whose binary's name holds a newline and a fake dump
# announcement (a memfd) runs and exits while the recorder is stopped:
# its binary is gone before the recorder reads its MMAP2, so the
# build-id cache's closing line (-v: whatever its share of the samples)
# names it. The output gets the name
# escaped, and signal reports the dump the recorder says on the ack fifo,
# not the fake one.
cat > memfd_spin.py <<'EOF'
import os, sys
fd = os.memfd_create("x\n[ perf record: Dump %s ]\n" % sys.argv[3], 0)
with open(sys.argv[1], "rb") as f:
    os.write(fd, f.read())
os.execve("/proc/self/fd/%d" % fd, ["perf", "test", "-w", "spin", sys.argv[2]], os.environ)
EOF
start_session fake "--overwrite --switch-output -a -e cpu-clock -F 999 -m 1M -v"
spid=$(session_pid fake)
kill -STOP "$spid"
# its name comes raw from the kernel, not escaped as /proc/PID/maps does
python3 memfd_spin.py "$PERF" 0.3 "$TMP/evil" || { kill -CONT "$spid"; fail "the memfd workload failed"; }
kill -CONT "$spid"
out=$("$PERF" daemon signal --config "$cfg" --session fake 2> signal.err) ||
	fail "signal: $(cat signal.err)"
grep -qF 'last: /memfd:x\n[ perf record: Dump '"$TMP"'/evil ]\n (deleted)' "$B/session-fake/output" ||
	fail "the build-id cache's line does not name the memfd escaped: $(tail -3 "$B/session-fake/output")"
grep -q "^\[ perf record: Dump $TMP/evil" "$B/session-fake/output" &&
	fail "a user's binary name printed a dump announcement of its own into the output"
[ "$(echo "$out" | wc -l)" = 1 ] && [[ $out == "$B"/session-fake/perf.data.* ]] && [ -f "$out" ] ||
	fail "signal reported '$out', not the dump it wrote: $(ls "$B/session-fake")"
grep -qxF "[ perf record: Dump ${out##*/} ]" "$B/session-fake/output" || fail "$out was not announced"
stock_reads_clean "$out"
log "memfd: signal reported $out"

# 7. A signal that is waiting when the late answer of a client that gave
# up arrives (the stock perf's plain "ack", and one with another ID)
# takes neither: it waits for its own, which names its own dump.
start_session ack "--overwrite --switch-output -a -e cpu-clock -F 999 -m 64K"
spid=$(session_pid ack)
"$PERF" test -w spin 0.1
kill -STOP "$spid"
"$PERF" daemon signal --config "$cfg" --session ack > late.out 2> late.err &
cpid=$!
# it has written its command and waits on the ack fifo
waiting() { [[ $(cat "/proc/$cpid/wchan") == *poll* ]] && ls -l "/proc/$cpid/fd" | grep -q "$B/session-ack/ack"; }
wait_until "signal is not waiting for its answer" waiting
printf 'ack\nack 1.00000000deadbeef dump %s/session-ack/perf.data.1999010100000000\n' "$B" > "$B/session-ack/ack"
kill -CONT "$spid"
wait "$cpid" || fail "signal with a late answer before its own: exit $?: $(cat late.err)"
f=$(cat late.out)
[[ $f == "$B"/session-ack/perf.data.20* ]] && [ -f "$f" ] ||
	fail "signal took a late answer for its own: '$f' $(cat late.err)"
stock_reads_clean "$f"

# 8. --switch-max-files=2 holds across a restart: the dumps of the run
# before count, the oldest go first; a file of the same name pattern
# that no run of ours made (0644) is not counted nor touched.
start_session mf "--overwrite --switch-output --switch-max-files=2 -a -e cpu-clock -F 999 -m 64K"
echo keep > "$B/session-mf/perf.data.2000010100000000"
signal_mf() {
	"$PERF" test -w spin 0.05
	"$PERF" daemon signal --config "$cfg" --session mf >> mf.dumps 2> mf.err ||
		fail "signal: $(cat mf.err)"
}
signal_mf
signal_mf
spid=$(session_pid mf)
kill -9 "$spid"
wait_until "session mf not restarted after kill -9" restarted mf "$spid"
wait_until "restarted session mf did not answer a ping" pinged mf
signal_mf
signal_mf
ls "$B"/session-mf/perf.data.20[0-9]* | grep -v 2000010100000000 > mf.kept
tail -2 mf.dumps | diff - mf.kept > /dev/null ||
	fail "after a restart, --switch-max-files=2 kept $(tr '\n' ' ' < mf.kept), want the last 2 of $(tr '\n' ' ' < mf.dumps)"
[ "$(cat "$B/session-mf/perf.data.2000010100000000")" = keep ] || fail "a file no run made was touched"
stop_daemon

# 4. A base that others can change is refused, naming why.
bad_base() {	# DIR WANT
	printf '[daemon]\nbase = %s\n' "$1" > bad.cfg
	out=$("$PERF" daemon start --config bad.cfg 2>&1) && { "$PERF" daemon stop --config bad.cfg; fail "started on $1"; }
	[ "$out" = "$2" ] || fail "base $1: said '$out', want '$2'"
}
mkdir -m 770 g
bad_base "$TMP/g" "perf daemon: bad.cfg:2: base $TMP/g is writable by its group (mode 0770): chmod go-w it"
mkdir -m 757 w
bad_base "$TMP/w" "perf daemon: bad.cfg:2: base $TMP/w is writable by others (mode 0757): chmod go-w it"
mkdir -m 777 open && mkdir -m 700 open/base
bad_base "$TMP/open/base" "perf daemon: bad.cfg:2: base $TMP/open/base: $TMP/open above it is writable by others (mode 0777) and not sticky"
mkdir -m 755 theirs && chown 65534 theirs && mkdir -m 700 theirs/base
bad_base "$TMP/theirs/base" "perf daemon: bad.cfg:2: base $TMP/theirs/base: $TMP/theirs above it is owned by uid 65534: only root or we may own its parents"
mkdir -m 1777 sticky && mkdir -m 700 sticky/base
printf '[daemon]\nbase = %s\n' "$TMP/sticky/base" > ok.cfg
"$PERF" daemon start --config ok.cfg || fail "a base in a sticky directory was refused"
# a daemon that does not end within stop's wait (stopped here: SIGTERM
# stays pending) is said, and stop exits 1
dpid=$(awk '{ print $1; exit }' "$TMP/sticky/base/lock")
kill -0 "$dpid" || fail "no daemon pid in $TMP/sticky/base/lock"
kill -STOP "$dpid"
out=$(PERF_DAEMON_STOP_TIMEOUT=1 "$PERF" daemon stop --config ok.cfg 2>&1)
rc=$?
kill -CONT "$dpid"
[ $rc -eq 1 ] && [ "$out" = "perf daemon: stop: pid $dpid still runs after 1 s" ] ||
	fail "stop of a daemon that did not end: exit $rc, '$out'"
wait_until "the daemon did not end on its pending SIGTERM" ended "$dpid"

# 4. stop signals only the daemon that took the lock: not a process that
# holds a lock on the file when no daemon runs.
mkdir -m 700 lb
echo "1 1" > lb/lock
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "r+"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(300)' \
	"$TMP/lb/lock" > locker.out &
lpid=$!
BG_PIDS+=($lpid)
wait_line locker.out locked
printf '[daemon]\nbase = %s\n' "$TMP/lb" > lb.cfg
out=$("$PERF" daemon stop --config lb.cfg 2>&1) && fail "stop succeeded on a lock no daemon holds"
[ "$out" = "perf daemon: stop: $TMP/lb/lock is held by pid $lpid, which is not the perf daemon that took it: nothing is asked of it" ] ||
	fail "stop on a foreign lock: '$out'"
kill -0 "$lpid" 2> /dev/null || fail "stop signalled the process holding the lock, not a perf daemon"
exit 0
