#!/bin/bash
# perf daemon --json and ping --json, read by jq: the daemon's pid, base and config, a session's recorder pid, state and restarts, its dumps counted as the files N SIGUSR2s left, its last dump, its post-dump runs (PERF_DAEMON_SESSION and the path given, failures counted, the last status), a changed post-dump-timeout restarting it; hostile bytes in the base (a quote, a backslash, a control byte, invalid UTF-8) come out as valid JSON that says them
. "$(dirname "$0")/lib/common.sh"
need_root "the daemon's sessions record system-wide"
command -v jq >/dev/null || skip "no jq (tests/install-deps installs it)"
cd "$TMP" || exit 1
N=4
# a base whose name JSON must escape: " \ \x01 and a byte of no UTF-8
B=$TMP/$(printf 'b"a\\se\001\377')
mkdir -m 700 "$B"
cfg=$TMP/perfconfig
cat > "$cfg" <<CFG
[daemon]
base = $B
[session-cpu]
run = --overwrite --switch-output -a -e cpu-clock -F 99 --switch-max-files=20
post-dump = echo "hook \$PERF_DAEMON_SESSION \$PERF_DUMP_TRIGGER" {}; exit 3
post-dump-timeout = 10s
CFG
chmod 600 "$cfg"
trap '"$PERF" daemon stop --config "$cfg" >/dev/null 2>&1; cleanup' EXIT

json() { "$PERF" daemon --config "$cfg" --json; }
field() { json | jq -r "$1"; }
"$PERF" daemon start --config "$cfg" || fail "the daemon did not start"
up() { [ "$(field '.sessions[0].state')" = running ] && [ "$(field '.sessions[0].pid')" != null ]; }
wait_until "the session's recorder up" up
json > j1 || fail "perf daemon --json failed"
jq -e . j1 >/dev/null || fail "not JSON: $(head -c 300 j1)"

# the daemon: its pid is the lock's owner the listing names, the base and
# config as they are, bytes JSON cannot carry as U+FFFD
dpid=$("$PERF" daemon --config "$cfg" -x: | head -1 | cut -d: -f1)
[ "$(jq .daemon.pid j1)" = "$dpid" ] || fail "daemon pid $(jq .daemon.pid j1), the listing's $dpid"
want_base=$(printf '%s' "$B" | sed 's/\xff/\xef\xbf\xbd/')
[ "$(jq -j .daemon.base j1)" = "$want_base" ] || fail "base $(jq .daemon.base j1)"
grep -qF '\"a\\se\u0001\ufffd' j1 || fail "the base's bytes not escaped as JSON says: $(grep -o '"base":"[^,]*' j1)"
[ "$(jq -r .daemon.config j1)" = "$cfg" ] || fail "config $(jq .daemon.config j1)"

# the session: its pid is the recorder the daemon started (its output's
# mark), a perf record
spid=$(jq .sessions[0].pid j1)
grep -q "session starts: pid $spid ]" "$B/session-cpu/output" || fail "pid $spid is not the recorder"
tr '\0' ' ' < "/proc/$spid/cmdline" | grep -q " record " || fail "pid $spid is no perf record"
wait_ready "$spid"
[ "$(jq .sessions[0].restarts j1)" = 0 ] && [ "$(jq .sessions[0].dumps j1)" = 0 ] ||
	fail "a new session: $(jq -c .sessions[0] j1)"

# N SIGUSR2s, each awaited: dumps = files present; each post-dump run's
# failure counted, its status the last one's
ndumps() { grep -c '^\[ perf record: Dump ' "$B/session-cpu/output"; }
# a SIGUSR2 right after a dump may find no sample since (-F 99): the
# recorder says so and writes nothing, rightly; that one is asked again,
# up to 10 times (at 99 Hz on 2 CPUs a sample is never 10 asks away):
# a recorder that never dumps again fails, never hangs the test
nnone() { grep -c '^\[ perf record: No samples since the last dump' "$B/session-cpu/output"; }
dumped_or_none() { [ "$(ndumps)" -ge "$1" ] || [ "$(nnone)" -gt "$2" ]; }
for ((i = 1; i <= N; i++)); do
	for ((ask = 1; ; ask++)); do
		[ $ask -le 10 ] || fail "dump $i: 10 SIGUSR2s found no sample: $(tail -3 "$B/session-cpu/output")"
		none=$(nnone)
		kill -USR2 "$spid" || fail "no recorder $spid for dump $i"
		wait_until "dump $i" dumped_or_none "$i" "$none"
		[ "$(ndumps)" -ge "$i" ] && break
	done
done
hooks_done() { [ "$(field '.sessions[0].hooks.runs')" = $N ] && [ "$(field '.sessions[0].hooks.running')" = false ]; }
wait_until "$N post-dump runs in the JSON" hooks_done
json > j2
files=$(ls "$B/session-cpu" | grep -c '^perf\.data\.')
[ "$files" = $N ] || fail "$files files after $N SIGUSR2s"
[ "$(jq .sessions[0].dumps j2)" = "$files" ] || fail "dumps $(jq .sessions[0].dumps j2), files $files"
last=$(ls "$B/session-cpu" | grep '^perf\.data\.' | sort | tail -1)
[ "$(jq -j .sessions[0].last_dump j2)" = "$want_base/session-cpu/$last" ] ||
	fail "last_dump $(jq .sessions[0].last_dump j2), want .../$last"
jq -e --argjson now "$(date +%s)" '.sessions[0].last_dump_time | . > $now - 120 and . <= $now + 1' j2 >/dev/null ||
	fail "last_dump_time $(jq .sessions[0].last_dump_time j2)"
jq -e '.sessions[0].hooks | .failed == 4 and .killed == 0 and .dropped == 0 and .queued == 0 and
       .last_exit_status == 3 and .last_signal == null' j2 >/dev/null ||
	fail "hooks: $(jq -c .sessions[0].hooks j2)"
# the log escapes the path's bytes (lib/escape.c)
esc_B="$TMP/"'b"a\\se\x01\xff'
[ "$(grep -F "hook cpu signal $esc_B/session-cpu/perf.data" "$B/session-cpu/output" | grep -c "post-dump: pid ")" = $N ] ||
	fail "the runs' output: $(grep post-dump "$B/session-cpu/output" | head -3)"

# ping --json: the same object, each session with its answer
"$PERF" daemon ping --config "$cfg" --json > j3 || fail "ping --json failed"
[ "$(jq -r .sessions[0].ping j3)" = ok ] && [ "$(jq .sessions[0].pid j3)" = "$spid" ] ||
	fail "ping: $(jq -c '.sessions[0] | {ping, pid}' j3)"
"$PERF" daemon ping --config "$cfg" --json --session nosuch > j4 2> j4.err &&
	fail "ping of no session succeeded"
jq -e '.sessions == []' j4 >/dev/null && grep -q "no session 'nosuch'" j4.err ||
	fail "ping of no session: $(cat j4 j4.err)"

# a recorder killed: restarted, counted, the new pid listed
kill -9 "$spid"
restarted() { local p; p=$(field '.sessions[0].pid'); [ "$p" != null ] && [ "$p" != "$spid" ] &&
	[ "$(field '.sessions[0].state')" = running ]; }
wait_until "the session restarted" restarted
json > j5
[ "$(jq .sessions[0].restarts j5)" = 1 ] || fail "restarts $(jq .sessions[0].restarts j5)"

# a changed post-dump-timeout alone restarts the session, as a changed run does
spid=$(jq .sessions[0].pid j5)
sed -i 's/^post-dump-timeout = 10s$/post-dump-timeout = 20s/' "$cfg"
wait_until "the session restarted for its new post-dump-timeout" restarted
[ "$(field .sessions[0].restarts)" = 2 ] || fail "restarts $(field .sessions[0].restarts)"
spid=$(field .sessions[0].pid)
tr '\0' ' ' < "/proc/$spid/cmdline" | grep -q -- " --switch-output-exec-timeout=20s " ||
	fail "pid $spid runs $(tr '\0' ' ' < "/proc/$spid/cmdline")"
grep -q "session cpu: run or post-dump changed, restarting it" "$B/output" ||
	fail "the daemon's log: $(tail -3 "$B/output")"
"$PERF" daemon start --config "$cfg" --json 2>/dev/null && fail "start took --json"
"$PERF" daemon --config "$cfg" --json -x: > jx 2> jx.err; rc=$?
[ $rc = 129 ] && [ ! -s jx ] && grep -q -- "-x and --json" jx.err ||
	fail "-x with --json: exit $rc, $(head -c 200 jx jx.err)"
exit 0
