#!/bin/bash
# --off-cpu and --switch-output-when across CPU hotplug: once cpu 1 went offline and came back, its events opened anew, the BPF programs emit into the new ones: a block that ends on cpu 1 is an offcpu-time sample, a span that ends there fires its condition
. "$(dirname "$0")/lib/common.sh"
need_bpf "offlining a CPU"
need_stock
need_cpu1_hotplug
cd "$TMP" || exit 1
cp /bin/sleep hp-nap || exit 1

# cpu 1 offline, then back; the recorder (stderr in ERR) says its events
# are open again
cycle_cpu1() {	# ERR
	echo 0 > $ONLINE || fail "cannot offline cpu 1"
	echo 1 > $ONLINE || fail "cannot online cpu 1"
	wait_line "$1" 'cpu 1 is back online'
	grep -q "BPF programs' event" "$1" && fail "$(cat "$1")"
	return 0
}

# nap_after_cycle ERR ARGS...: a recorder of every CPU with ARGS (its pid
# in rp, its stderr in ERR), cpu 1 offline and back under it, then hp-nap
# (its pid in nap) blocking 0.3 s on cpu 1
nap_after_cycle() {
	local err=$1
	shift
	"$PERF" record -v -a -e cpu-clock "$@" 2> "$err" &
	rp=$!
	BG_PIDS+=($rp)
	wait_ready $rp
	cycle_cpu1 "$err"
	taskset -c 1 ./hp-nap 0.3 &
	nap=$!
	wait $nap || fail "hp-nap"
}

# --off-cpu: hp-nap's block on cpu 1, after it came back
nap_after_cycle oc.err --off-cpu -o oc.data
kill -INT $rp
wait_stopped $rp INT || fail "--off-cpu: recorder status $STOPPED_STATUS: $(tail -3 oc.err)"
stock_reads_clean oc.data
"$STOCK" script -i oc.data -F tid,cpu,event,period > oc.txt 2>/dev/null
awk -v n=$nap '$1 == n && $2 == "[001]" && /offcpu-time/ && $4 > 0.28e9 { f = 1 } END { exit !f }' oc.txt ||
	fail "--off-cpu: no offcpu-time sample of hp-nap ($nap) on cpu 1 after it came back;" \
	     "its samples: $(awk -v n=$nap '$1 == n' oc.txt | head -5 | tr '\n' ';')" \
	     "the recorder: $(grep -v '^ *BPF\|^libbpf' oc.err | tail -4 | tr '\n' ';')"

# --switch-output-when: the span of hp-nap on cpu 1 fires
nap_after_cycle sw.err --overwrite --switch-output -F 49 \
	--switch-output-when='offcpu>100ms,comm=hp-nap' -o sw.data
wait_line sw.err "Dump sw\.data"
kill -INT $rp
wait_stopped $rp INT || fail "--switch-output-when: recorder status $STOPPED_STATUS: $(tail -3 sw.err)"
for f in sw.data.*; do
	stock_reads_clean "$f"
	"$STOCK" script -i "$f" 2>/dev/null | sed -n 's/^ *BPF string: "\(.*\)"$/\1/p'
done > sw.txt
grep -Eq "^offcpu>100ms,comm=hp-nap: hp-nap pid $nap tid $nap offcpu" sw.txt ||
	fail "--switch-output-when: no record of hp-nap on cpu 1: $(cat sw.txt)"
exit 0
