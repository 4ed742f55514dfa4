#!/bin/bash
# perf record beside another recorder while BPF programs load and unload: the KSYMBOL and BPF_EVENT records the kernel over-sizes reach the file trimmed to their fields (normal mode, --threads, a flight dump), and the stock reads them clean
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "loading BPF programs, system-wide recording"
need_bpf_load
cd "$TMP" || exit 1
N=6

# The kernel writes one KSYMBOL (and BPF_EVENT) per event that takes them,
# newest event first, adding each one's trailer size to the same header:
# the records of the recorder started first say they are longer than
# their fields, the rest being stale ring bytes. So this perf records
# first and the other recorder runs the loads inside it; which records
# would have been over-sized is then certain, not a matter of luck.
bpf_loads_sh $N frtt

# trailer F: the bytes of the sample_id trailer of F's event that takes
# KSYMBOLs, from its sample_type as the stock prints it
trailer() {
	"$STOCK" evlist -v -i "$1" 2>/dev/null | grep 'ksymbol: 1' | head -1 |
		sed 's/.*sample_type: \([A-Z_|]*\),.*/\1/' | tr '|' '\n' |
		grep -cxE 'TID|TIME|ID|STREAM_ID|CPU|IDENTIFIER' | awk '{ print $1 * 8 }'
}

# check F WHAT: each KSYMBOL and BPF_EVENT of F, by the stock's dump, is
# as long as its fields need (header, fixed fields, the name with its NUL
# padded to 8, one trailer); the loads' are all there; the stock's
# perf script --show-bpf-events and perf report read F with no word on
# stderr
check() {
	local f=$1 t bad n
	t=$(trailer "$f")
	[ -n "$t" ] && [ "$t" -gt 0 ] || fail "$f ($2): no event with ksymbol"
	"$STOCK" report -D -i "$f" > "$f.dump" 2> "$f.dump.err" ||
		fail "$f ($2): stock report -D: $(head -2 "$f.dump.err")"
	bad=$(sed -n 's/.* \[0x\([0-9a-f]*\)\]: PERF_RECORD_KSYMBOL .* name \(.*\)$/\1 \2/p' "$f.dump" |
		while read -r size name; do
			need=$((24 + (${#name} + 8) / 8 * 8 + t))
			[ $((16#$size)) = $need ] || echo "$name: $((16#$size)) bytes, $need needed"
		done)
	[ -z "$bad" ] || fail "$f ($2): KSYMBOL records over-sized: $(echo "$bad" | head -3)"
	bad=$(sed -n 's/.* \[0x\([0-9a-f]*\)\]: PERF_RECORD_BPF_EVENT .*/\1/p' "$f.dump" |
		while read -r size; do
			[ $((16#$size)) = $((24 + t)) ] || echo "$((16#$size)) bytes"
		done)
	[ -z "$bad" ] || fail "$f ($2): BPF_EVENT records over-sized: $(echo "$bad" | head -3)"
	n=$(grep -c 'PERF_RECORD_KSYMBOL .* name bpf_prog_[0-9a-f]*_frtt[0-9]*_fn$' "$f.dump")
	[ "$n" = $((2 * N)) ] || fail "$f ($2): $n KSYMBOL records of frtt* ($((2 * N)) expected)"
	"$STOCK" script --show-bpf-events -i "$f" > "$f.script" 2> "$f.err" ||
		fail "$f ($2): stock perf script: $(head -2 "$f.err")"
	[ -s "$f.err" ] && fail "$f ($2): stock perf script --show-bpf-events said: $(head -3 "$f.err")"
	n=$(grep -c 'PERF_RECORD_KSYMBOL .* name bpf_prog_[0-9a-f]*_frtt[0-9]*_fn$' "$f.script")
	[ "$n" = $((2 * N)) ] || fail "$f ($2): the stock's script shows $n frtt* KSYMBOLs"
	"$STOCK" report --stdio -i "$f" > /dev/null 2> "$f.err" ||
		fail "$f ($2): stock perf report: $(head -2 "$f.err")"
	[ -s "$f.err" ] && fail "$f ($2): stock perf report said: $(head -3 "$f.err")"
	log "$f ($2): $(grep -c PERF_RECORD_KSYMBOL "$f.dump") KSYMBOL records, trailer $t bytes"
}

# normal mode, the stock recording inside
"$PERF" record -q -a -e cpu-clock -o n.data -- \
	"$STOCK" record -q -a -e cpu-clock -o inner1.data -- ./loads.sh > /dev/null 2> n.err ||
	fail "perf record: $(head -2 n.err)"
check n.data "normal mode, the stock inside"

# --threads: the drain threads' files, read as one directory
"$PERF" record -q --threads -a -e cpu-clock -o t.data -- \
	"$STOCK" record -q -a -e cpu-clock -o inner2.data -- ./loads.sh > /dev/null 2> t.err ||
	fail "perf record --threads: $(head -2 t.err)"
check t.data "--threads, the stock inside"

# a flight recorder's SIGUSR2 dump, this perf recording inside
"$PERF" record --overwrite -a -e cpu-clock --switch-output=signal -o f.data 2> f.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
"$PERF" record -q -a -e cpu-clock -o inner3.data -- ./loads.sh > /dev/null 2> i.err ||
	fail "inner perf record: $(head -2 i.err)"
kill -USR2 $rec
wait_line f.err 'Dump f\.data'
kill -INT $rec
wait_gone $rec "flight recorder"
wait $rec
dump=$(sed -n 's/.*Dump \(f\.data\.[0-9]*\).*/\1/p' f.err | head -1)
[ -f "$dump" ] || fail "no dump file: $(cat f.err)"
check "$dump" "a flight dump, this perf inside"
exit 0
