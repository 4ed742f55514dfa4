#!/bin/bash
# perf script --show-switch-events, --show-lost-events, --show-namespace-events, --show-cgroup-events, --show-bpf-events, --show-text-poke-events, --show-round-events: the same bytes as the stock perf script on this perf's files, each with lines of its records
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "loading a BPF program, system-wide recording"
LOAD=$(dirname "$(readlink -f "$PERF")")/bpf-load
[ -x "$LOAD" ] || fail "no $LOAD: make builds it"
cd "$TMP" || exit 1

# -a with a BPF program loaded and unloaded (KSYMBOL, BPF_EVENT), tasks
# forked (NAMESPACES), the switches between them (one task on each CPU:
# -C 1 has switches to compare) and the cgroups
"$PERF" record -q -a --switch-events --namespaces --all-cgroups -e cpu-clock -c 100000 \
	-o t.data -- sh -c "'$LOAD' frt_show < /dev/null > /dev/null; taskset -c 1 /bin/true; taskset -c 0 /bin/true" 2> rec.err ||
	fail "perf record: $(head -2 rec.err)"
# per task: context switches only, no -a (SWITCH rather than SWITCH_CPU_WIDE);
# a spinning task on an idle CPU may never be switched out, a sleeping one
# always is, and switched back in when it wakes
"$PERF" record -q --switch-events -e cpu-clock -o u.data -- sh -c "sleep 0.02; '$PERF' test -w spin 0.05" 2> rec.err ||
	fail "perf record: $(head -2 rec.err)"

same() {	# FILE PATTERN ARGS...: both perfs print the same bytes, with PATTERN
	local f=$1 pat=$2
	shift 2
	# samples are script_default.sh's: a sample in a BPF program names
	# the program (this perf: [unknown]), here only records are compared
	"$PERF" script -i "$f" "$@" 2> ours.err | grep -v ' cpu-clock: ' > ours
	local ours=${PIPESTATUS[0]}
	"$STOCK" script -i "$f" "$@" 2> /dev/null | grep -v ' cpu-clock: ' > stock
	local stock=${PIPESTATUS[0]}
	[ "$ours" = "$stock" ] || fail "$f $*: exit $ours, the stock's $stock: $(head -2 ours.err)"
	grep -q "$pat" stock || fail "$f $*: no $pat in the stock's output: nothing to compare"
	cmp -s ours stock || fail "$f $*: ours and the stock's differ: $(diff ours stock | head -6)"
	log "$f $*: $(grep -c "$pat" ours) $pat lines alike"
}

same t.data PERF_RECORD_SWITCH_CPU_WIDE --show-switch-events
same t.data PERF_RECORD_SWITCH_CPU_WIDE --show-switch-events -C 1
same t.data PERF_RECORD_SWITCH_CPU_WIDE --show-switch-events -F +pid,+misc
same u.data "PERF_RECORD_SWITCH IN" --show-switch-events
same t.data PERF_RECORD_NAMESPACES --show-namespace-events
same t.data PERF_RECORD_CGROUP --show-cgroup-events
same t.data "PERF_RECORD_KSYMBOL.*frt_show" --show-bpf-events
same t.data PERF_RECORD_BPF_EVENT --show-bpf-events
same t.data "PERF_RECORD_KSYMBOL.*frt_show" --show-text-poke-events
same t.data PERF_RECORD_NAMESPACES --show-switch-events --show-namespace-events --show-cgroup-events \
	--show-bpf-events --show-task-events --show-mmap-events

# FINISHED_ROUND: a line where the recorder marked a round; the records
# then in file order, as the stock prints them with it (the whole output,
# samples included: a stock-written file, tracepoints and cpu-clock -a)
same t.data PERF_RECORD_FINISHED_ROUND --show-round-events --show-task-events
"$STOCK" record -q -a -e sched:sched_switch -e cpu-clock -o r.data -- "$PERF" test -w spin 0.3 ||
	fail "stock perf record -a"
"$PERF" script -i r.data --show-round-events > ours 2> ours.err || fail "r.data: $(head -2 ours.err)"
"$STOCK" script -i r.data --show-round-events > stock 2> /dev/null
[ "$(grep -c '^PERF_RECORD_FINISHED_ROUND$' stock)" -gt 0 ] || fail "r.data: no round in the stock's output"
cmp -s ours stock || fail "r.data --show-round-events: ours and the stock's differ: $(diff ours stock | head -6)"
log "r.data --show-round-events: $(wc -l < ours) lines alike"

# LOST: a one-page ring at 100k samples a second on each CPU overflows
# before the drain empties it (tried with a faster rate if not)
for c in 10000 5000 2000; do
	"$PERF" record -q -a -m 1 -e cpu-clock -c $c -o l.data -- "$PERF" test -w spin 0.3 2> rec.err ||
		fail "perf record: $(head -2 rec.err)"
	"$STOCK" script -i l.data --show-lost-events 2> /dev/null | grep -q PERF_RECORD_LOST && break
done
same l.data "PERF_RECORD_LOST lost" --show-lost-events
exit 0
