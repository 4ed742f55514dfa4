#!/bin/bash
# perf script on KSYMBOL/BPF_EVENT records the kernel over-sized (two recorders at once, BPF programs loaded and unloaded): each read with its own trailer, its time and task, in files of the stock perf and of this perf (which trims them)
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "loading BPF programs, system-wide recording"
need_bpf_load
cd "$TMP" || exit 1
N=12

# The kernel writes one KSYMBOL (and BPF_EVENT) per event that takes them,
# adding each event's trailer size to the same header as it goes: the
# record of a recorder served after another is longer than its body and
# trailer, the rest whatever its ring held. The newest recorder is served
# first, so the outer recorder's records are the over-sized ones; the
# inner one runs the loads, both recording all along.
bpf_loads_sh $N frtk

# oversized F: how many of F's KSYMBOL records are longer than their body
# and the longest trailer (48 bytes), by the stock's dump of F
oversized() {
	"$STOCK" report -D -i "$1" 2>/dev/null |
		sed -n 's/.* \[0x\([0-9a-f]*\)\]: PERF_RECORD_KSYMBOL .* name \(.*\)$/\1 \2/p' |
		while read -r size name; do
			echo $(( 16#$size - 24 - (${#name} + 8) / 8 * 8 ))
		done | awk '$1 > 48 { n++ } END { print n + 0 }'
}

# check F WHO [trimmed]: this perf reads every KSYMBOL and BPF_EVENT of F
# with the time and task of its own trailer: frtkI's, in load order, never
# at 0. F has over-sized KSYMBOL records, or with "trimmed" none (this
# perf's recorder trims them: record_bpf_trim.sh)
check() {
	local f=$1 n out
	n=$(oversized "$f")
	if [ "$3" = trimmed ]; then
		[ "$n" = 0 ] || fail "$f ($2): $n over-sized KSYMBOL records"
	else
		[ "$n" -gt 0 ] || fail "$f ($2): no over-sized KSYMBOL record: the test needs the kernel's"
	fi
	log "$f ($2): $n over-sized KSYMBOL records"
	"$PERF" script --show-bpf-events -i "$f" > "$f.out" 2> "$f.err" ||
		fail "$f ($2): perf script: $(head -2 "$f.err")"
	out=$(grep -E 'PERF_RECORD_KSYMBOL .* name bpf_prog_[0-9a-f]*_frtk[0-9]*_fn$' "$f.out")
	n=$(echo "$out" | grep -c .)
	[ "$n" = $((2 * N)) ] || fail "$f ($2): $n KSYMBOL records of frtk* ($((2 * N)) expected)"
	echo "$out" | grep -E ' 0\.000000: |^ *swapper ' &&
		fail "$f ($2): KSYMBOL records read with another trailer than their own"
	# registered (flags 0x0) in load order: the times are the records' own
	echo "$out" | grep ' flags 0x0 ' | sed 's/.*_frtk\([0-9]*\)_fn$/\1/' | tr '\n' ' ' > order
	[ "$(cat order)" = "$(seq -s ' ' $N) " ] || fail "$f ($2): loads out of order: $(cat order)"
	n=$(grep -c 'PERF_RECORD_BPF_EVENT type [12], ' "$f.out")
	[ "$n" -ge $((2 * N)) ] || fail "$f ($2): $n BPF_EVENT records (at least $((2 * N)))"
	grep 'PERF_RECORD_BPF_EVENT' "$f.out" | grep -E ' 0\.000000: ' | grep -qv '^ *swapper ' &&
		fail "$f ($2): a BPF_EVENT at time 0 outside the synthesized ones"
	return 0
}

# the stock's file (several events: the trailer is the one IDENTIFIER names)
"$STOCK" record -q -a -e cpu-clock -e sched:sched_switch -o s.data -- \
	"$PERF" record -q -a -e cpu-clock -o inner1.data -- ./loads.sh > /dev/null 2> rec.err ||
	fail "stock record: $(head -2 rec.err)"
check s.data "the stock's, this perf inside"

# this perf's own file, the stock's recorder inside
"$PERF" record -q -a -e cpu-clock -e sched:sched_switch -o o.data -- \
	"$STOCK" record -q -a -e cpu-clock -o inner2.data -- ./loads.sh > /dev/null 2> rec.err ||
	fail "perf record: $(head -2 rec.err)"
check o.data "this perf's, the stock inside" trimmed
exit 0
