#!/bin/bash
# perf script's default output (no -F), -G, --ns, --max-stack and -F +field/-field/type: on this perf's files (cpu-clock, -g, tracepoints -a with and without -g, a --overwrite dump, a --history dump, -c): byte for byte the stock perf script's, stdout, stderr and exit status
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

rec() {	# NAME OPTIONS...: this perf's file NAME.data
	local name=$1
	shift
	"$PERF" record -q -o "$name.data" "$@" 2> "$name.rec.err" ||
		fail "perf record $*: $(head -2 "$name.rec.err")"
	[ -s "$name.data" ] || fail "perf record $*: no file"
}
rec plain -e cpu-clock -- "$PERF" test -w spin 0.2
rec graph -g -e cpu-clock -- "$PERF" test -w spin 0.2
rec count -e cpu-clock -c 100000 -- "$PERF" test -w spin 0.2
rec trace -a -e sched:sched_switch -- "$PERF" test -w spin 0.2
rec tgraph -a -g -e sched:sched_switch -e cpu-clock -- "$PERF" test -w spin 0.2
rec ow --overwrite -g -e cpu-clock -- "$PERF" test -w spin 0.2
rec hist --history=4M -g -e cpu-clock -- "$PERF" test -w spin 0.2

# same FILE ARGS...: both perfs alike on FILE.data, stdout and stderr
same() {
	local f=$1
	shift
	script_same "$f.data" "$f$(echo "$*" | tr -c 'a-z0-9\n' _)" "$@"
}

for f in plain graph count trace tgraph ow hist; do
	same $f
done
# what the defaults show: symbols with offsets and the DSO, callchains
# under a line that ends at the event, then a blank line
grep -q '^ *[^ ]* *[0-9]* [0-9.]*: *[0-9]* cpu-clock: *[0-9a-f]* [^ ]*+0x[0-9a-f]* (.*)$' plain.ours ||
	fail "no symbol+offset (dso) in the default line: $(head -2 plain.ours)"
grep -q "^$(printf '\t') *[0-9a-f]* .*+0x[0-9a-f]* (.*)$" graph.ours && grep -q '^$' graph.ours ||
	fail "no callchain with symbols: $(head -4 graph.ours)"
grep -q "sched:sched_switch: prev_comm=.*$" tgraph.ours && grep -q "__schedule+0x" tgraph.ours ||
	fail "no tracepoint callchain: $(grep -m1 -A2 sched_switch tgraph.ours)"

for f in graph tgraph ow; do
	same $f -G
	same $f --ns
	same $f --max-stack 2
done
same tgraph -F +pid,-time
same tgraph -F trace:+cpu -F sw:-dso
same tgraph -F sw:-period,-symoff
same plain -F -ip
same plain -F comm,tid,misc,flags,brstack,callindent,synth,ipc
# the stock's refusals: a field the event does not sample, symoff
# without sym, a type without events, wildcard warnings
same plain -F comm,cpu
same plain -F +cpu
same plain -F sw:-sym
same plain -F trace:
same plain -F comm,trace
same plain -F tod
exit 0
