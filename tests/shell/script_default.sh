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

# same FILE ARGS...: both perfs print the same bytes on stdout and stderr
# and exit alike
same() {
	local f=$1 tag
	shift
	tag=$f$(echo "$*" | tr -c 'a-z0-9\n' _)
	"$PERF" script -i "$f.data" "$@" > "$tag.ours" 2> "$tag.ours.err"
	local ours=$?
	"$STOCK" script -i "$f.data" "$@" > "$tag.stock" 2> "$tag.stock.err"
	local stock=$?
	[ "$ours" = "$stock" ] || fail "$f $*: exit $ours, the stock's $stock: $(head -2 "$tag.ours.err")"
	cmp -s "$tag.ours" "$tag.stock" ||
		fail "$f $*: ours and the stock's differ: $(diff "$tag.ours" "$tag.stock" | head -6)"
	cmp -s "$tag.ours.err" "$tag.stock.err" ||
		fail "$f $*: ours and the stock's say: $(diff "$tag.ours.err" "$tag.stock.err" | head -4)"
	log "$f $*: $(wc -l < "$tag.ours") lines alike"
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
