#!/bin/bash
# --off-cpu and --switch-output-when across CPU hotplug: once cpu 1 went offline and came back, its events opened anew, the BPF programs emit into the new ones: a block that ends on cpu 1 is an offcpu-time sample, a span that ends there fires its condition
. "$(dirname "$0")/lib/common.sh"
need_root "offlines a CPU, loads BPF programs"
need_stock
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ -w $ONLINE ] || skip "cpu 1 cannot go offline here (no $ONLINE)"
[ "$(cat $ONLINE)" = 1 ] || skip "cpu 1 is offline"
# whatever happens, cpu 1 comes back
trap 'echo 1 > $ONLINE; cleanup' EXIT
trap 'exit 1' INT TERM HUP
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

# --off-cpu: hp-nap blocks 0.3 s on cpu 1, after it came back
"$PERF" record -v --off-cpu -a -e cpu-clock -o oc.data 2> oc.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
cycle_cpu1 oc.err
taskset -c 1 ./hp-nap 0.3 &
nap=$!
wait $nap || fail "hp-nap"
kill -INT $rp
wait_stopped $rp INT || fail "--off-cpu: recorder status $STOPPED_STATUS: $(tail -3 oc.err)"
stock_reads_clean oc.data
"$STOCK" script -i oc.data -F tid,cpu,event,period > oc.txt 2>/dev/null
awk -v n=$nap '$1 == n && $2 == "[001]" && /offcpu-time/ && $4 > 0.28e9 { f = 1 } END { exit !f }' oc.txt ||
	fail "--off-cpu: no offcpu-time sample of hp-nap ($nap) on cpu 1 after it came back;" \
	     "its samples: $(awk -v n=$nap '$1 == n' oc.txt | head -5 | tr '\n' ';')" \
	     "the recorder: $(grep -v '^ *BPF\|^libbpf' oc.err | tail -4 | tr '\n' ';')"

# --switch-output-when: the span of hp-nap on cpu 1 fires
"$PERF" record -v --overwrite --switch-output -a -e cpu-clock -F 49 \
	--switch-output-when='offcpu>100ms,comm=hp-nap' -o sw.data 2> sw.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
cycle_cpu1 sw.err
taskset -c 1 ./hp-nap 0.3 &
nap=$!
wait $nap || fail "hp-nap"
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
