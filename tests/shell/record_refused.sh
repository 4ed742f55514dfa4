#!/bin/bash
# perf record -e of a tracepoint the kernel refuses: one line naming the event as given, with the kernel's reason; the perf_event_paranoid hint only where the level binds (not for root)
. "$(dirname "$0")/lib/common.sh"
need_root "the kernel's refusals to root and to a user namespace's root"
need_stock
cd "$TMP" || exit 1

# refused PATTERN -- perf args...: exit 1, one stderr line matching
# PATTERN, the event never renamed (":u", "functionu")
refused() {
	local pattern=$1 rc
	shift 2
	"$@" > out 2> err
	rc=$?
	log "$*: rc=$rc: $(cat err)"
	[ $rc -eq 1 ] || fail "$*: exit $rc, want 1 ($(cat err))"
	[ "$(grep -c . err)" -eq 1 ] || fail "$*: not one line: $(cat err)"
	grep -Eq -- "$pattern" err || fail "$*: '$(cat err)' does not match '$pattern'"
	grep -Eq -- ":u[: ]|functionu|switchu" err && fail "$*: the event was renamed: $(cat err)"
	[ -e x.data ] && fail "$*: a refused record left x.data"
	return 0
}

# Root: the function trace event, which perf asks for without user call
# chains; a kernel without function tracing for perf refuses it to root
# too (EPERM), and the paranoid level has nothing to do with it.
grep -q . /sys/kernel/tracing/events/ftrace/function/id 2>/dev/null ||
	skip "no ftrace:function tracepoint"
if "$PERF" record -q -o ok.data -e ftrace:function -- true >/dev/null 2>&1; then
	skip "this kernel lets root trace functions through perf: nothing refuses"
fi
# the stock perf is refused the same event, as root
"$STOCK" record -q -o stock.data -e ftrace:function -- true > /dev/null 2> stock.err &&
	fail "the stock perf records ftrace:function where this perf is refused"
grep -q "ftrace:function" stock.err || fail "the stock perf said: $(cat stock.err)"
refused "^perf record: ftrace:function: perf_event_open: (Operation not permitted|Permission denied): the kernel refuses this event even to root \(not kernel.perf_event_paranoid" \
	-- "$PERF" record -o x.data -e ftrace:function -- true
grep -q "perf_event_paranoid <=" err && fail "a paranoid hint for root: $(cat err)"

# A user namespace's root: the level binds (the kernel lifts it only for
# capabilities in the first namespace), and the hint says so, naming the
# tracepoint as given.
level=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$level" -ge 0 ] || skip "kernel.perf_event_paranoid is $level: nothing is refused to users"
unshare -U -r true 2>/dev/null || skip "no user namespaces"
refused "^perf record: sched:sched_switch: Permission denied: .*tracepoint samples needs kernel.perf_event_paranoid <= -1, it is $level" \
	-- unshare -U -r "$PERF" record -o x.data -e sched:sched_switch -- true
exit 0
