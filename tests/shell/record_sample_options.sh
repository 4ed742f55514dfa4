#!/bin/bash
# perf record sample options (-d -P -R -n -i --sample-cpu --no-buffering --no-bpf-event -g --call-graph): the attrs the stock perf would set, read back and decoded by the stock perf
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# rec NAME ARGS...: records the spin workload into NAME.data, which the
# stock perf must read without a word
rec() {
	local name=$1
	shift
	"$PERF" record -q -o "$name.data" "$@" -- "$PERF" test -w spin 0.2 2> "$name.err" ||
		fail "perf record $*: $(cat "$name.err")"
	stock_reads_clean "$name.data"
	"$STOCK" evlist -v -i "$name.data" 2>/dev/null | head -1 > "$name.attr"
	log "$name: $(cat "$name.attr")"
}
# has NAME WORD...: the first event's attr line has every WORD
has() {
	local name=$1 w
	shift
	for w; do grep -q -- "$w" "$name.attr" || fail "$name: no '$w' in: $(cat "$name.attr")"; done
}
hasnt() {
	local name=$1 w
	shift
	for w; do ! grep -q -- "$w" "$name.attr" || fail "$name: '$w' in: $(cat "$name.attr")"; done
}

rec plain
has plain "sample_type: IP|TID|TIME|PERIOD," "mmap: 1" "comm: 1" "task: 1" "inherit: 1" \
	"enable_on_exec: 1" "ksymbol: 1"
hasnt plain "watermark" "read_format" "dummy"
[ "$("$STOCK" evlist -i plain.data 2>/dev/null | wc -l)" = 1 ] ||
	fail "one event, no dummy, as the stock records a workload: $("$STOCK" evlist -i plain.data)"

# -c fixes the period: no PERIOD field, unless -P; then every sample says it
rec count -c 100000
has count "sample_type: IP|TID|TIME,"
rec period -c 100000 -P
has period "sample_type: IP|TID|TIME|PERIOD,"
periods=$("$STOCK" script -i period.data -F period 2>/dev/null | sort -u | tr -d ' ')
[ "$periods" = 100000 ] || fail "-c 100000 -P: periods '$periods'"

rec data -d
has data "ADDR" "DATA_SRC" "mmap_data: 1"
"$STOCK" script -i data.data -F addr 2>/dev/null | grep -q '[0-9a-f]' || fail "-d: no addr decoded"

NCPU=$(getconf _NPROCESSORS_ONLN)
for opt in -R --sample-cpu; do
	rec cpu "$opt"
	has cpu "CPU"
	[ "$opt" = -R ] && has cpu "RAW"
	cpus=$("$STOCK" script -i cpu.data -F cpu 2>/dev/null | tr -d '[] ' | sort -u)
	[ -n "$cpus" ] || fail "$opt: no cpu decoded"
	for c in $cpus; do
		[ "$((10#$c))" -lt "$NCPU" ] || fail "$opt: cpu $c of $NCPU"
	done
done

# -n: counting only (no samples: the stock report refuses such a file, so
# only its script is asked)
"$PERF" record -q -o nosamples.data -n -- "$PERF" test -w spin 0.2 2> nosamples.err ||
	fail "-n: $(cat nosamples.err)"
[ "$("$STOCK" script -i nosamples.data 2>&1 | grep -c .)" = 0 ] || fail "-n: samples recorded"
"$STOCK" evlist -v -i nosamples.data 2>/dev/null | head -1 > nosamples.attr
hasnt nosamples "sample_freq"
has nosamples "freq: 1"

rec noinherit -i
hasnt noinherit "inherit: 1"
rec nobuffering --no-buffering
has nobuffering "wakeup_events, wakeup_watermark }: 1"
hasnt nobuffering "watermark: 1"
rec nobpf --no-bpf-event
hasnt nobpf "ksymbol" "bpf_event"

rec two -e cpu-clock -e task-clock
has two "|ID|" "read_format: ID"
names=$("$STOCK" script -i two.data -F event 2>/dev/null | tr -d ': ' | sort -u | tr '\n' ' ')
[ "$names" = "cpu-clock task-clock " ] || fail "two events: '$names'"

rec fp -g
has fp "CALLCHAIN"
hasnt fp "REGS_USER"

# dwarf: the stock perf unwinds a program built without frame pointers
# from the user stack dumps
need_cc "the dwarf check"
cat > dw.c <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void leaf_fn(void) { for (unsigned long i = 0; i < 300000000UL; i++) sink += i; }
__attribute__((noinline)) void middle_fn(void) { leaf_fn(); sink++; }
int main(void) { middle_fn(); return 0; }
C
cc -O1 -g -fomit-frame-pointer -o dw dw.c || fail "compile"
# (-m 8M: 8K stack dumps at 4 kHz fill the default 512K ring in 15 ms, and
# a loaded machine, or the sanitizer build, then loses a few, which the
# stock rightly warns about; the ring size is no attr)
for mode in dwarf dwarf,4096; do
	"$PERF" record -q -m 8M -o dw.data --call-graph "$mode" -- ./dw 2> dw.err ||
		fail "$mode: $(cat dw.err)"
	stock_reads_clean dw.data
	"$STOCK" evlist -v -i dw.data 2>/dev/null | head -1 > dw.attr
	size=${mode#dwarf}; size=${size#,}
	grep -q "REGS_USER|STACK_USER" dw.attr && grep -q "sample_stack_user: ${size:-8192}" dw.attr &&
		grep -q "exclude_callchain_user: 1" dw.attr || fail "$mode: $(cat dw.attr)"
	"$STOCK" report -i dw.data --stdio --no-children -S leaf_fn -G 2>/dev/null > dw.report
	grep -q middle_fn dw.report && grep -q 'main' dw.report ||
		fail "$mode: leaf_fn's callers not unwound: $(head -40 dw.report)"
done

# -a -g: the tracking dummy says it has callchains too, as the stock's
# does, or the stock perf sched timehist refuses the file
"$PERF" record -q -a -g -e sched:sched_switch -o th.data -- "$PERF" test -w spin 0.2 2> th.err ||
	fail "-a -g sched_switch: $(cat th.err)"
"$STOCK" evlist -v -i th.data 2>/dev/null | grep '^dummy' > th.attr
grep -q "sample_type: IP|TID|TIME|CALLCHAIN|CPU|IDENTIFIER," th.attr || fail "-a -g dummy: $(cat th.attr)"
"$STOCK" sched timehist -i th.data > th.out 2>&1
! grep -q "do not have callchains" th.out && grep -q ' <- ' th.out ||
	fail "-a -g: sched timehist: $(head -5 th.out)"

# bad values: perf's wording, exit 129
for bad in "foo" "dwarf,0" "dwarf,70000" "dwarf,x" "lbr"; do
	"$PERF" record -o bad.data --call-graph "$bad" -- true 2> bad.err
	rc=$?
	[ $rc = 129 ] && [ "$(grep -c . bad.err)" = 1 ] || fail "--call-graph $bad: rc $rc: $(cat bad.err)"
	[ ! -e bad.data ] || fail "--call-graph $bad left a file"
done
grep -q "LBR" bad.err || fail "lbr: $(cat bad.err)"
exit 0
