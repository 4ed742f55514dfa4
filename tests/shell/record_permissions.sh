#!/bin/bash
# perf record: events that cannot be opened as asked get the real cause, or a said fallback
. "$(dirname "$0")/lib/common.sh"
cd "$TMP" || exit 1
need_stock
# root records -a and sets perf_event_paranoid; a user is played with setpriv
[ "$(id -u)" = 0 ] || skip "needs root"

PARANOID=/proc/sys/kernel/perf_event_paranoid
old_paranoid=$(cat $PARANOID)
# the sysctl is the machine's: put it back whatever happens
restore() {
	[ "$(cat $PARANOID)" = "$old_paranoid" ] || echo "$old_paranoid" > $PARANOID
	cleanup
}
trap restore EXIT

# one_line EXIT_CODE PATTERN CMD...: CMD fails with exactly one stderr line matching PATTERN
one_line() {
	local want_rc=$1 pattern=$2 rc
	shift 2
	timeout 20 "$@" > out 2> err
	rc=$?
	log "$*: rc=$rc: $(cat err)"
	[ $rc -eq "$want_rc" ] || fail "$*: exit $rc, want $want_rc ($(cat err))"
	[ "$(grep -c . err)" -eq 1 ] || fail "$*: not one line on stderr: $(cat err)"
	grep -q -- "$pattern" err || fail "$*: '$(cat err)' does not match '$pattern'"
}

# the stock perf's view of an attr field of the first event
attr_field() {
	"$STOCK" evlist -f -v -i "$1" 2>/dev/null | head -1 | sed -n "s/.*[ ,]$2: \([^,]*\).*/\1/p"
}

# record_at_rate ARGS...: records page-faults (few samples whatever the rate, so
# it stays fast) into cap.data; sets max_rate to the limit it ran under. The
# kernel lowers the limit when sampling interrupts take too long (a busy
# machine): a run during which it changed is run again.
MAX_RATE=/proc/sys/kernel/perf_event_max_sample_rate
record_at_rate() {
	for try in 1 2 3; do
		max_rate=$(cat $MAX_RATE)
		"$PERF" record -o cap.data "$@" -- true 2> err || fail "record $*: $(cat err)"
		[ "$(cat $MAX_RATE)" = "$max_rate" ] && return 0
	done
	skip "perf_event_max_sample_rate keeps changing"
}

# -F and freq= above perf_event_max_sample_rate: capped, said once, recorded
over=$(($(cat $MAX_RATE) * 10))
for ev in "-F $over -e page-faults" "-e page-faults/freq=$over/"; do
	record_at_rate $ev
	want="warning: page-faults: Maximum frequency rate ($max_rate Hz) exceeded, throttling from $over Hz to $max_rate Hz"
	[ "$(grep -vc '^\[ perf record: ' err)" -eq 1 ] && grep -qF "$want" err ||
		fail "record $ev: not the one capping line: $(cat err)"
	[ "$(attr_field cap.data '{ sample_period, sample_freq }')" = "$max_rate" ] ||
		fail "record $ev: sample_freq is $(attr_field cap.data '{ sample_period, sample_freq }')"
	stock_reads_clean cap.data
done
record_at_rate -F "$(cat $MAX_RATE)" -e page-faults
grep -q warning err && fail "-F at the limit itself was capped: $(cat err)"

# a low soft RLIMIT_NOFILE is raised to the hard one, as perf does; the hard one is the end
# (30 events: over 20 fds even on one CPU, and still quick to set up and tear down)
if grep -q . /sys/kernel/tracing/events/syscalls/sys_enter_close/id 2>/dev/null; then
	ev='syscalls:sys_enter_[a-c]*'
	n=$(ls -d /sys/kernel/tracing/events/syscalls/sys_enter_[a-c]* | wc -l)
	(ulimit -S -n 20 && "$PERF" record -q -o fd.data -e "$ev" -a -- true) 2> err ||
		fail "soft limit 20 not raised: $(cat err)"
	got=$("$STOCK" evlist -i fd.data 2>/dev/null | grep -c '^syscalls:sys_enter_')
	[ "$got" -eq "$n" ] || fail "fd.data holds $got of $n syscall events"
	one_line 1 "too many open files: the hard limit of 20 is reached" \
		bash -c "ulimit -n 20 && exec '$PERF' record -q -o fd.data -e '$ev' -a -- true"
else
	echo "  (no syscalls tracepoints: RLIMIT_NOFILE case not run)" >&2
fi

# the rest needs an unprivileged user and a paranoid level the test may set
command -v setpriv >/dev/null || skip "needs setpriv to run perf as an unprivileged user"
USER_RUN=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${USER_RUN[@]}" test -x "$PERF" || skip "$PERF is not executable by uid 65534"
chmod 777 "$TMP"
echo 2 > $PARANOID || skip "cannot set $PARANOID"

# an explicit :k cannot fall back to user space: it fails, with the paranoid hint
one_line 1 "cpu-clock:k: Permission denied: .*kernel profiling needs kernel.perf_event_paranoid <= 1, it is 2" \
	"${USER_RUN[@]}" "$PERF" record -o "$TMP/k.data" -e cpu-clock:k -- true
[ -e k.data ] && fail ":k left k.data"
# ... while an event without a modifier still falls back to :u, like perf
"${USER_RUN[@]}" "$PERF" record -q -o "$TMP/u.data" -e cpu-clock -- true 2> err ||
	fail "unprivileged cpu-clock did not fall back to :u: $(cat err)"
[ "$("$STOCK" evlist -f -i u.data 2>/dev/null | head -1)" = "cpu-clock:u" ] &&
	[ "$(attr_field u.data exclude_kernel)" = 1 ] || fail "u.data: $("$STOCK" evlist -f -v -i u.data)"

# CPU-wide: the paranoid level is the cause, and the message names the one needed
one_line 1 "Permission denied: .*CPU-wide monitoring needs kernel.perf_event_paranoid <= 0, it is 2" \
	"${USER_RUN[@]}" "$PERF" record -o "$TMP/a.data" -a -- true

# another user's process: ptrace access is the cause, whatever the paranoid level
for level in 2 1; do
	echo $level > $PARANOID
	one_line 1 "no permission to attach to pid 1: Permission denied (ptrace access denied" \
		"${USER_RUN[@]}" "$PERF" record -o "$TMP/p.data" -p 1
done
echo 2 > $PARANOID

# tracefs the user cannot read: say so and how to fix it, not "unknown tracepoint"
if "${USER_RUN[@]}" test -r /sys/kernel/tracing/events -a -x /sys/kernel/tracing/events; then
	echo "  (tracefs is readable by uid 65534: its permission case not run)" >&2
else
	for ev in sched:sched_switch 'syscalls:sys_enter_*'; do
		one_line 129 "event syntax error: '${ev//\*/\\*}': no permission to read /sys/kernel/tracing/events (Permission denied); try 'sudo mount -o remount,mode=755 /sys/kernel/tracing'" \
			"${USER_RUN[@]}" "$PERF" record -o "$TMP/t.data" -e "$ev" -- true
	done
fi
exit 0
