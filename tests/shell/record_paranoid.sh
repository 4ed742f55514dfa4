#!/bin/bash
# perf record as an unprivileged user: -a is refused with a hint, a workload falls back to :u
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "switching to an unprivileged user"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${NOBODY[@]}" test -x "$PERF" || skip "$PERF is not executable by nobody"
# the :u fallback exists for level 2; restore whatever the machine had
level=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$level" != 2 ]; then
	echo 2 > /proc/sys/kernel/perf_event_paranoid || skip "cannot set perf_event_paranoid to 2"
	trap 'echo "$level" > /proc/sys/kernel/perf_event_paranoid; cleanup' EXIT
fi
cd "$TMP" || exit 1
chmod 777 "$TMP"

# system-wide needs privileges: one line, pointing at perf_event_paranoid
"${NOBODY[@]}" "$PERF" record -o "$TMP/np.data" -a -- true 2> err && fail "unprivileged -a succeeded"
[ "$(grep -c . err)" -eq 1 ] || fail "more than one line: $(cat err)"
grep -q "Permission denied.*perf_event_paranoid" err || fail "no paranoid hint: $(cat err)"
[ -e np.data ] && fail "a refused record left np.data"

# a workload: cpu-clock falls back to cpu-clock:u, says so with -v, and no
# sample is in the kernel even for a workload that lives in close(2)
"${NOBODY[@]}" "$PERF" record -v -e cpu-clock -o "$TMP/u.data" -- "$PERF" test -w closebad 2000000 \
	> /dev/null 2> err || fail "unprivileged workload record: $(cat err)"
grep -q "perf_event_paranoid=2, falling back to excluding kernel" err ||
	fail "-v does not mention the fallback: $(cat err)"
chown root: u.data	# the stock perf reads only its own or root's files
stock_reads_clean u.data
"$STOCK" evlist -v -i u.data 2>/dev/null | grep '^cpu-clock' | grep -q 'exclude_kernel: 1' ||
	fail "cpu-clock is not exclude_kernel: $("$STOCK" evlist -v -i u.data 2>&1 | head -2)"
n=$("$STOCK" script -i u.data -F ip 2>/dev/null | wc -l)
k=$("$STOCK" script -i u.data -F ip 2>/dev/null | grep -c '^ *ffff')
log "$n samples, $k in the kernel"
[ "$n" -gt 20 ] || fail "only $n samples"
[ "$k" -eq 0 ] || fail "$k of $n samples of an :u event are in the kernel"

# --history's bigger default rings are for those the kernel pins them for
# without perf_event_mlock_kb's limit: an unprivileged user gets perf's 512K
"${NOBODY[@]}" "$PERF" record -v --history=$((64 * $(getconf _NPROCESSORS_ONLN)))M -e cpu-clock \
	-o "$TMP/h.data" -- true > /dev/null 2> err || fail "unprivileged --history: $(cat err)"
grep -q 'forward rings of 512K' err || fail "unprivileged --history rings: $(grep memory: err)"
# and so does a container's root: its CAP_IPC_LOCK holds in its own user
# namespace only, where the kernel's check asks for the first one
if unshare -Ur true 2>/dev/null; then
	unshare -Ur "$PERF" record -v --history=$((64 * $(getconf _NPROCESSORS_ONLN)))M -e cpu-clock:u \
		-o "$TMP/hn.data" -- true > /dev/null 2> err || fail "--history in a user namespace: $(cat err)"
	grep -q 'forward rings of 512K' err || fail "--history rings in a user namespace: $(grep memory: err)"
else
	log "no user namespaces here: the container's root case is not checked"
fi
exit 0
