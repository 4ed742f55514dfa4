#!/bin/bash
# perf daemon loses no dump: stop waits for a final dump slower than the old 5 s grace (a recorder held to a fiftieth of a CPU, -z19) and kills none; on a full filesystem a new session still answers ping and signal, signal says why it wrote no dump and exits 1, and the status catches up once there is room
. "$(dirname "$0")/lib/common.sh"
need_root "the daemon's sessions record system-wide; a cgroup and a tmpfs are mounted"
need_stock
cd "$TMP" || exit 1
cfg=$TMP/perfconfig
CG=
MNT=

session_pid() { "$PERF" daemon --config "$cfg" -x: | awk -F: -v s="$1" '$2 == s { print $1 }'; }
pinged() { "$PERF" daemon ping --config "$cfg" --session "$1" | grep -q "^OK "; }
stop_daemon() {
	"$PERF" daemon --config "$cfg" > /dev/null 2>&1 && "$PERF" daemon stop --config "$cfg"
}
undo() {
	stop_daemon
	[ -n "$CG" ] && rmdir "$CG" 2> /dev/null
	[ -n "$MNT" ] && umount "$MNT" 2> /dev/null
	cleanup
}
trap undo EXIT
# A new base B, a daemon on it running the one session NAME, which answers
start_daemon() {	# BASE NAME RUN
	B=$1
	mkdir -m 700 "$B"
	printf '[daemon]\nbase = %s\n[session-%s]\nrun = %s\n' "$B" "$2" "$3" > "$cfg"
	"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
	wait_until "session $2 did not answer a ping" pinged "$2"
}

# A cgroup that gives its tasks a fiftieth of one CPU: a dump then takes fifty
# times its CPU time, whatever else the machine does. v1 or v2.
throttle() {	# PID
	if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
		CG=/sys/fs/cgroup/cpu/frtest.$$
		mkdir "$CG" && echo 100000 > "$CG/cpu.cfs_period_us" &&
			echo 2000 > "$CG/cpu.cfs_quota_us" || skip "cannot make a cpu cgroup"
	elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null; then
		CG=/sys/fs/cgroup/frtest.$$
		mkdir "$CG" && echo "2000 100000" > "$CG/cpu.max" || skip "cannot make a cpu cgroup"
	else
		skip "no cgroup cpu controller to slow a dump down with"
	fi
	echo "$1" > "$CG/cgroup.procs" || fail "cannot move $1 into $CG"
}

# 5. stop: the session's final dump of 2 x 1 MB rings at zstd level 19,
# on a fiftieth of a CPU, takes well over the 5 s after which the daemon
# used to SIGKILL it; it is written whole, and stop returns after it.
start_daemon "$TMP/base" slow "--overwrite --switch-output -a -g -e cpu-clock -F 4000 -m 1M -z19"
spid=$(session_pid slow)
# rings full: 1.5 s of samples with callchains on both CPUs
"$PERF" test -w spin 1.5 & "$PERF" test -w spin 1.5
wait
throttle "$spid"
t0=$(date +%s%N)
"$PERF" daemon stop --config "$cfg" 2> stop.err || fail "stop: exit $?: $(cat stop.err)"
took=$(( ($(date +%s%N) - t0) / 1000000 ))
ended "$spid" || fail "session $spid outlived the daemon's stop"
grep -q SIGKILL "$B/output" && fail "the daemon killed the slow final dump: $(grep SIGKILL "$B/output")"
f=$(sed -n 's/^\[ perf record: Dump \(perf.data.[0-9]*\) \]$/\1/p' "$B/session-slow/output" | tail -1)
[ -n "$f" ] && [ -f "$B/session-slow/$f" ] || fail "no final dump: $(tail -3 "$B/session-slow/output")"
stock_reads_clean "$B/session-slow/$f"
[ "$took" -gt 5000 ] || fail "the final dump took only $took ms: too fast to show that a stop waits past 5 s"
log "stop waited $took ms for the final dump $f"
rmdir "$CG" && CG=

# 6. A full filesystem under the base: the status cannot be written, yet
# a session added meanwhile answers ping and signal; a signal that could
# not write a dump says why and exits 1; once there is room the status
# lists it and a signal dumps.
MNT=$TMP/mnt
mkdir -m 700 "$MNT"
mount -t tmpfs -o size=4m,mode=0700 frtest "$MNT" || { MNT=; skip "cannot mount a tmpfs"; }
start_daemon "$MNT/base" a "--overwrite --switch-output -a -e cpu-clock -F 999 -m 64K"
dd if=/dev/zero of="$MNT/fill" bs=64k 2> /dev/null
echo x > "$MNT/probe" 2> /dev/null && fail "the tmpfs is not full"
cat >> "$cfg" <<EOF
[session-b]
run = --overwrite --switch-output -a -e cpu-clock -F 999 -m 64K
EOF
wait_until "session b (started on a full disk) did not answer a ping" pinged b
"$PERF" daemon ping --config "$cfg" > ping.out || fail "ping: exit $?: $(cat ping.out)"
[ "$(sort ping.out | tr '\n' ' ')" = "OK   a OK   b " ] || fail "ping on a full disk: $(cat ping.out)"
"$PERF" test -w spin 0.1
out=$("$PERF" daemon signal --config "$cfg" --session b 2> signal.err) &&
	fail "signal on a full disk reported a dump: '$out'"
grep -q "^perf daemon: signal: session b: no dump written: .*No space left on device" signal.err ||
	fail "signal on a full disk: $(cat signal.err)"
rm "$MNT/fill"
listed() { [ -n "$(session_pid b)" ] && [ "$(session_pid b)" -gt 0 ]; }
wait_until "the status does not list session b once there is room" listed
"$PERF" test -w spin 0.1
f=$("$PERF" daemon signal --config "$cfg" --session b 2> signal.err) || fail "signal: $(cat signal.err)"
[[ $f == "$B"/session-b/perf.data.* ]] && [ -f "$f" ] || fail "signal printed '$f'"
stock_reads_clean "$f"
stop_daemon
exit 0
