#!/bin/bash
# perf daemon: bad configs, a bad reload keeps the last good one, a killed session is restarted, backoff 1-2-4 s, 1000 signals keep --switch-max-files dumps and leak no fd, files 0600/0700, SIGTERM stops all, a --history session dumps and rotates
. "$(dirname "$0")/lib/common.sh"
need_root "the daemon's sessions record system-wide"
need_stock
cd "$TMP" || exit 1
B=$TMP/base
mkdir -m 700 "$B"
cfg=$TMP/perfconfig

daemon_pid() { "$PERF" daemon --config "$cfg" -x: | head -1 | cut -d: -f1; }
session_pid() { "$PERF" daemon --config "$cfg" -x: | awk -F: -v s="$1" '$2 == s { print $1 }'; }
pinged() { "$PERF" daemon ping --config "$cfg" --session "$1" | grep -q "^OK "; }
restarted() { local p; p=$(session_pid "$1"); [ -n "$p" ] && [ "$p" -gt 0 ] && [ "$p" != "$2" ]; }
# fds but those a flight recorder holds on the files its tasks map: they
# come and go with the tasks (buildid/held-files.c). Only those are opened
# read-only with O_NONBLOCK; the mode tells nothing, as shared libraries
# need not be executable.
# The held ones are counted apart (nheld): a build-id read or a cache copy
# opens files the same way, so a leak there shows as more than the 256
# the recorder may hold.
nfds() {	# PID [held]
	local f fl t n=0 held=0
	for f in /proc/$1/fd/*; do
		fl=$(awk '$1 == "flags:" { print $2 }' "/proc/$1/fdinfo/${f##*/}" 2>/dev/null)
		# a regular file, also one deleted since (a memfd's too)
		t=$(readlink "$f")
		if { [ -f "$t" ] || [[ $t == /*" (deleted)" ]]; } && [ -n "$fl" ] &&
			(( (8#$fl & 8#4003) == 8#4000 )); then
			held=$((held + 1))
		else
			n=$((n + 1))
		fi
	done
	[ "${2:-}" = held ] && echo $held || echo $n
}
stop_daemon() {
	local pid
	pid=$(daemon_pid 2>/dev/null)
	[ -n "$pid" ] && "$PERF" daemon stop --config "$cfg"
}
trap 'stop_daemon; cleanup' EXIT

# A bad config: one line naming the file, the line and the problem.
bad_config() {	# WANT-LINE; the config is on stdin
	cat > bad.cfg
	out=$("$PERF" daemon start --config bad.cfg 2>&1) && fail "started with a bad config: $1"
	[ "$out" = "$1" ] || fail "bad config: said '$out', want '$1'"
}
bad_config "perf daemon: bad.cfg:3: unknown key 'bse' in [daemon]" <<EOF
# comment
[daemon]
bse = $B
EOF
bad_config "perf daemon: bad.cfg:4: session 'a' has no run" <<EOF
[daemon]
base = $B

[session-a]
[session-b]
run = -a
EOF
bad_config "perf daemon: bad.cfg:6: duplicate session 'a'" <<EOF
[daemon]
base = $B
[session-a]
run = -a
[record]
[session-a]
run = -a
EOF
bad_config "perf daemon: bad.cfg:2: base $TMP/bad.cfg is not a directory" <<EOF
[daemon]
base = $TMP/bad.cfg
EOF
mkdir other && chown 65534 other
bad_config "perf daemon: bad.cfg:3: base $TMP/other is owned by uid 65534, not by us (uid 0)" <<EOF
[daemon]

base = $TMP/other
EOF
bad_config "perf daemon: bad.cfg:2: unknown key 'runn' in [session-x]" <<EOF
[session-x]
runn = -a
[daemon]
base = $B
EOF
# the lock is never a symlink followed
ln -s "$TMP/elsewhere" "$B/lock"
printf '[daemon]\nbase = %s\n' "$B" > "$cfg"
out=$("$PERF" daemon start --config "$cfg" 2>&1) && fail "started over a symlinked lock"
[ -e "$TMP/elsewhere" ] && fail "the lock symlink was followed"
[ "$out" = "failed: perf daemon: lock $B/lock: Too many levels of symbolic links" ] ||
	fail "symlinked lock: '$out'"
rm "$B/lock"

# the flight recorder: -a, overwrite, dumps on signal, 3 kept
cat > "$cfg" <<EOF
[daemon]
base = $B

[session-fr]
run = --overwrite --switch-output --switch-max-files=3 -a -e cpu-clock -F 2000 -m 64K
EOF
"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
dpid=$(daemon_pid)
wait_until "session fr did not answer a ping" pinged fr
# a second daemon on the base is refused, naming the owner
out=$("$PERF" daemon start --config "$cfg" 2>&1) && fail "a second daemon started"
[ "$out" = "failed: another perf daemon (pid $dpid) owns $B" ] || fail "second daemon: '$out'"

# files: 0600, directories 0700, fifos for control
for f in "$B/lock" "$B/output" "$B/status" "$B/session-fr/output"; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f"), want 600"
done
[ "$(stat -c %a "$B/session-fr")" = 700 ] || fail "session dir is $(stat -c %a "$B/session-fr")"
for f in control ack; do
	[ -p "$B/session-fr/$f" ] && [ "$(stat -c %a "$B/session-fr/$f")" = 600 ] ||
		fail "$f: $(ls -l "$B/session-fr/$f")"
done

# kill -9 of a session: noticed, logged, restarted
spid=$(session_pid fr)
kill -9 "$spid"
wait_until "session fr not restarted after kill -9" restarted fr "$spid"
wait_until "restarted session fr did not answer a ping" pinged fr
grep -q "session fr: pid $spid ended (killed by signal 9 (Killed)) after [0-9]*s; restart in 1s" \
	"$B/output" || fail "the death is not logged: $(tail -3 "$B/output")"
spid=$(session_pid fr)

# 1000 signals: each waits for its dump's ack and prints its file; the
# recorder keeps the newest 3; no fd leaks in the recorder or the daemon
wait_ready "$spid"
fd_rec=$(nfds "$spid") fd_daemon=$(nfds "$dpid")
for ((i = 0; i < 1000; i++)); do
	"$PERF" daemon signal --config "$cfg" --session fr >> dumps 2>> signal.err ||
		fail "signal $i: $(tail -1 signal.err)"
done
[ "$(wc -l < dumps)" = 1000 ] || fail "1000 signals printed $(wc -l < dumps) dump names: $(tail -2 signal.err)"
[ "$(sort -u dumps | wc -l)" = 1000 ] || fail "the 1000 dump names are not distinct"
[ -s signal.err ] && fail "signal said: $(head -2 signal.err)"
ls "$B"/session-fr/perf.data.* > kept
tail -3 dumps | diff - kept > /dev/null || fail "kept $(cat kept), want the last 3 dumps $(tail -3 dumps)"
[ "$(session_pid fr)" = "$spid" ] || fail "the session was restarted during the signals"
[ "$(nfds "$spid")" = "$fd_rec" ] || fail "recorder fds: $fd_rec before, $(nfds "$spid") after"
[ "$(nfds "$spid" held)" -le 256 ] || fail "recorder holds $(nfds "$spid" held) files: over its cap of 256"
[ "$(nfds "$dpid")" = "$fd_daemon" ] || fail "daemon fds: $fd_daemon before, $(nfds "$dpid") after"
stock_reads_clean "$(tail -1 dumps)"
log "1000 signals: kept $(tr '\n' ' ' < kept)"

# a bad reload is refused with one line, and the session goes on untouched
cat >> "$cfg" <<EOF
[session-fr2]
run = -a
colour = blue
EOF
wait_line "$B/output" "$cfg:8: unknown key 'colour' in \[session-fr2\]"
grep -q "config not reloaded, the last good one stays: $cfg:8: unknown key 'colour' in \[session-fr2\]" \
	"$B/output" || fail "reload error: $(tail -1 "$B/output")"
[ "$(session_pid fr)" = "$spid" ] || fail "a refused reload restarted session fr"
[ "$("$PERF" daemon --config "$cfg" -x: | wc -l)" = 2 ] || fail "a refused reload added a session"
pinged fr || fail "session fr gone after a refused reload"

# SIGTERM: the daemon and its session end, promptly, the session's last dump written
kill -TERM "$dpid"
wait_gone "$dpid" "perf daemon after SIGTERM"
ended "$spid" || fail "session $spid outlived the daemon"
tail -5 "$B/session-fr/output" | grep -q "Dump perf.data" ||
	fail "no final dump: $(tail -3 "$B/session-fr/output")"
[ -e "$B/status" ] && fail "status left behind"
out=$("$PERF" daemon --config "$cfg" 2>&1) && fail "a listing without a daemon succeeded"
[ "$out" = "perf daemon: no daemon runs on $B" ] || fail "listing without a daemon: '$out'"

# --switch-output-max-rate: the triggers over it are ignored, and perf
# daemon -v counts those of the session's current run
cat > "$cfg" <<EOF
[daemon]
base = $B
[session-rl]
run = --overwrite --switch-output --switch-output-max-rate=2/1h -a -e cpu-clock -F 1000 -m 64K
EOF
"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
wait_until "session rl did not answer a ping" pinged rl
# a signal over the rate writes no dump: it says why and exits 1
rl_signals() {	# N; a spin before each gives each accepted one samples to dump
	local i
	for ((i = 0; i < $1; i++)); do
		"$PERF" test -w spin 0.05
		"$PERF" daemon signal --config "$cfg" --session rl >> rl.dumps 2> rl.err1 ||
			[ "$(cat rl.err1)" = "perf daemon: signal: session rl: no dump written: the trigger is over --switch-output-max-rate" ] ||
			fail "signal $i: $(tail -1 rl.err1)"
		cat rl.err1 >> rl.err
	done
}
rl_ignored() {	# WANT: the count perf daemon -v shows, none for 0
	"$PERF" daemon -v --config "$cfg" > rl.list || fail "perf daemon -v: exit $?"
	if [ "$1" = 0 ]; then
		grep -q "ignored:" rl.list && fail "perf daemon -v shows ignored triggers: $(cat rl.list)"
	else
		grep -qx "  ignored: $1 triggers over --switch-output-max-rate" rl.list ||
			fail "perf daemon -v does not show $1 ignored triggers: $(cat rl.list)"
	fi
}
rl_ignored 0
rl_signals 5
[ "$(grep -c . rl.dumps)" = 2 ] || fail "5 signals at 2/1h made dumps: $(cat rl.dumps)"
rl_ignored 3
spid=$(session_pid rl)
kill -9 "$spid"
wait_until "session rl not restarted after kill -9" restarted rl "$spid"
wait_until "restarted session rl did not answer a ping" pinged rl
rl_ignored 0	# a new run: its predecessor's count is not its own
rl_signals 3
rl_ignored 1
spid=$(session_pid rl)
stop_daemon
wait_gone "$spid" "session rl after perf daemon stop"

# a --history session: each signal is a dump of the history since the
# last, acked, named and rotated like the backward rings'
cat > "$cfg" <<EOF
[daemon]
base = $B
[session-h]
run = --history=4M --switch-output --switch-max-files=2 -a -e cpu-clock -F 1000
EOF
"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
wait_until "session h did not answer a ping" pinged h
for ((i = 0; i < 3; i++)); do
	"$PERF" test -w spin 0.05
	"$PERF" daemon signal --config "$cfg" --session h >> h.dumps 2>> h.err ||
		fail "--history signal $i: $(tail -1 h.err)"
done
[ "$(sort -u h.dumps | grep -c .)" = 3 ] || fail "3 --history signals printed: $(cat h.dumps h.err)"
ls "$B"/session-h/perf.data.* > h.kept
tail -2 h.dumps | diff - h.kept > /dev/null || fail "--history kept $(cat h.kept), want $(tail -2 h.dumps)"
f=$(tail -1 h.dumps)
[ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f")"
stock_reads_clean "$f"
[ "$("$STOCK" script -i "$f" -F period 2>/dev/null | grep -c .)" -gt 10 ] || fail "$f: few samples"
spid=$(session_pid h)
stop_daemon
wait_gone "$spid" "session h after perf daemon stop"

# a session that dies young again and again: restarted after 1, 2, 4 s
printf '[daemon]\nbase = %s\n[session-bad]\nrun = -e no_such_event -a\n' "$B" > "$cfg"
"$PERF" daemon start --config "$cfg" || fail "start: exit $?"
wait_line "$B/output" "session bad: pid [0-9]* ended (exit status 129) after 0s; restart in 4s"
[ "$(grep -o 'session bad: pid [0-9]* ended (exit status 129) after 0s; restart in [0-9]*s' "$B/output" |
     sed 's/.*restart in //' | tr '\n' ' ')" = "1s 2s 4s " ] || fail "backoff: $(grep 'session bad' "$B/output")"
grep -q "unknown event 'no_such_event'" "$B/session-bad/output" || fail "record's error not in its output"
stop_daemon
exit 0
