#!/bin/bash
# perf record -a: samples in BPF programs named bpf_prog_<tag>_<name> (loaded before, during, with --threads too; unloaded before a dump), BPF_PROG_INFO/BPF_BTF, --no-bpf-event
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "loading BPF programs"
[ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" = 1 ] ||
	skip "the BPF JIT is off: BPF programs have no symbols"
LOAD=$(dirname "$(readlink -f "$PERF")")/bpf-load
[ -x "$LOAD" ] || fail "no $LOAD: make builds it"
cd "$TMP" || exit 1

# run.sh NAME MS: loads program NAME (function NAME_fn) on the getppid
# tracepoint, calls getppid for MS ms, unloads it and waits until it is
# gone. NAME.out: "ID TAG BTF_ID".
cat > run.sh <<EOF
#!/bin/bash
mkfifo "\$1.in" || exit 1
"$LOAD" "\$1" < "\$1.in" > "\$1.out" & lp=\$!
exec 8> "\$1.in"
until [ -s "\$1.out" ]; do kill -0 \$lp 2>/dev/null || exit 1; sleep 0.01; done
"$LOAD" --spin "\$2"
exec 8>&-
# the loader ends at EOF; 5 s at most
for i in \$(seq 500); do kill -0 \$lp 2>/dev/null || break; sleep 0.01; done
kill -0 \$lp 2>/dev/null && { echo "bpf-load \$1 did not end at EOF" >&2; exit 1; }
wait \$lp
EOF
chmod +x run.sh

# one program for the whole test, loaded before any recording
mkfifo pre.in
"$LOAD" frt_pre < pre.in > pre.out & BG_PIDS+=($!)
exec 8> pre.in
wait_until "frt_pre not loaded" test -s pre.out
read -r pre_id pre_tag pre_btf < pre.out

# named F NAME ID TAG: the stock names samples of program NAME after the
# kernel's symbol, and its header has the program's info
named() {
	local f=$1 sym="bpf_prog_$4_$2_fn" n
	n=$("$STOCK" script -i "$f" -F ip,sym 2>/dev/null | grep -c " $sym\$")
	[ "$n" -ge 20 ] || fail "$f: $n samples named $sym (at least 20 expected)"
	"$STOCK" report -i "$f" --sort sym --stdio 2>/dev/null | grep -q "\[k\] $sym\$" ||
		fail "$f: perf report --sort sym does not name $sym"
	grep -q "^# bpf_prog_info $3: $sym addr 0x[0-9a-f]* size [1-9]" "$f.header" ||
		fail "$f: no bpf_prog_info of $3 ($sym): $(grep bpf_prog_info "$f.header")"
	grep -q "^# btf info of id [1-9]" "$f.header" || fail "$f: no BTF in the header"
	log "$f: $n samples in $sym"
}

# header F: the stock's header output in F.header; missing() its list of
# the features F lacks
header() {
	"$STOCK" report -i "$1" --header-only -I > "$1.header" 2>/dev/null || fail "$1: header"
}
missing() { grep "^# missing features:" "$1.header"; }

# normal mode: one program loaded before perf (synthesized), one during
"$PERF" record -q -a -e cpu-clock -o n.data -- ./run.sh frt_dur 400 || fail "normal record"
read -r dur_id dur_tag _ < frt_dur.out
stock_reads_clean n.data
header n.data
missing n.data | grep -q "BPF_PROG_INFO\|BPF_BTF" && fail "n.data: features missing: $(missing n.data)"
named n.data frt_pre "$pre_id" "$pre_tag"
named n.data frt_dur "$dur_id" "$dur_tag"
# the kernel's own symbol is what the synthesized one must match, and
# the info has the program's address and its BTF
addr=$(awk -v s="bpf_prog_${pre_tag}_frt_pre_fn" '$3 == s {print $1}' /proc/kallsyms)
[ -n "$addr" ] || fail "the kernel calls frt_pre otherwise: $(grep frt_pre /proc/kallsyms)"
grep -q "^# bpf_prog_info $pre_id: bpf_prog_${pre_tag}_frt_pre_fn addr 0x$addr size" n.data.header ||
	fail "n.data: frt_pre is not at $addr: $(grep bpf_prog_info n.data.header)"
grep -q "^# btf info of id $pre_btf\$" n.data.header || fail "n.data: no BTF $pre_btf of frt_pre"

# --threads: the drain threads read the BPF_EVENTs of a program loaded
# during the recording; its info is in the header as without them
"$PERF" record -q --threads -a -e cpu-clock -o t.data -- ./run.sh frt_thr 400 ||
	fail "--threads record"
read -r thr_id thr_tag _ < frt_thr.out
[ -d t.data ] || fail "--threads: no directory"
stock_reads_clean t.data
header t.data
named t.data frt_pre "$pre_id" "$pre_tag"
named t.data frt_thr "$thr_id" "$thr_tag"

# --threads, loads the side band lost: the recorder (sampling little, so
# that its rings keep the BPF_EVENTs) is stopped while 150
# programs load and unload (their records fill the side band's page) and
# then NM load and stay; their BPF_EVENTs wait in the rings, which the
# drain threads read, and each of the NM is in BPF_PROG_INFO
NM=20
mkfifo many.in
"$PERF" record -q -F 10 --threads -a -e cpu-clock -o m.data 2> m.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
kill -STOP $rec
"$LOAD" --fill 150 frt_fill || fail "bpf-load --fill 150 frt_fill"
exec 9<> many.in
for i in $(seq $NM); do "$LOAD" frt_m$i < many.in > mp$i.out 2>&1 & BG_PIDS+=($!); done
loaded() { [ "$(cat mp*.out | grep -c '^[0-9]* [0-9a-f]* [0-9]*$')" -ge $NM ]; }
wait_until "$NM programs not loaded: $(cat mp*.out | grep -v '^[0-9]' | head -3)" loaded
kill -CONT $rec
kill -INT $rec
wait $rec
rc=$?
[ $rc = 130 ] || fail "--threads, $NM loads: exit $rc: $(cat m.err)"
header m.data
n=0
for i in $(seq $NM); do
	read -r id _ < mp$i.out
	grep -q "^# bpf_prog_info $id: bpf_prog_[0-9a-f]*_frt_m${i}_fn " m.data.header && n=$((n + 1))
done
exec 9>&-
[ $n -eq $NM ] || fail "--threads: $n of the $NM programs loaded during the recording in BPF_PROG_INFO"
stock_reads_clean m.data

# flight recorder: the program is unloaded before the dump at the end
"$PERF" record -q --overwrite -a -e cpu-clock -o o.data -- ./run.sh frt_gone 400 ||
	fail "overwrite record"
read -r gone_id gone_tag _ < frt_gone.out
grep -q "_frt_gone_fn" /proc/kallsyms && fail "frt_gone still loaded"
stock_reads_clean o.data
header o.data
named o.data frt_gone "$gone_id" "$gone_tag"

# --no-bpf-event: no such records, no such features
for opt in "" --overwrite; do
	"$PERF" record -q $opt --no-bpf-event -a -e cpu-clock -o x.data -- ./run.sh frt_off 100 ||
		fail "--no-bpf-event $opt record"
	rm -f frt_off.in
	stock_reads_clean x.data
	"$STOCK" report -i x.data --stats 2>/dev/null | grep -q "KSYMBOL\|BPF_EVENT" &&
		fail "--no-bpf-event $opt: $("$STOCK" report -i x.data --stats | grep "KSYMBOL\|BPF_EVENT")"
	header x.data
	m=$(missing x.data)
	[[ $m == *" BPF_PROG_INFO "* && $m == *" BPF_BTF "* ]] ||
		fail "--no-bpf-event $opt: BPF features written ($m)"
done
exit 0
