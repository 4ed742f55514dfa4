#!/bin/bash
# perf script --header, --header-only and -I: the header block byte for byte the stock perf script's on the same file, for this perf's files and the stock's (cpu-clock, -g, -c with dummy, a group, tracepoints -a, -z, -k mono, --overwrite and --history dumps, a -o - stream read from a file and from a pipe); --header is the block then the records
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

rec() {	# PERF NAME OPTIONS...: NAME.data
	local perf=$1 name=$2
	shift 2
	"$perf" record -q -o "$name.data" "$@" 2> "$name.rec.err" > "$name.rec.out" ||
		fail "$perf record $*: $(head -2 "$name.rec.err")"
	[ -s "$name.data" ] || fail "$perf record $*: no file"
}
W=("$PERF" test -w spin 0.2)
KINDS=()
for who in ours stock; do
	p=$PERF
	[ $who = stock ] && p=$STOCK
	rec "$p" $who-plain -e cpu-clock -- "${W[@]}"
	rec "$p" $who-graph -g -e cpu-clock -- "${W[@]}"
	rec "$p" $who-count -c 100000 -e cpu-clock,dummy -- "${W[@]}"
	rec "$p" $who-group -e '{cpu-clock,task-clock}' -- "${W[@]}"
	rec "$p" $who-trace -a -e sched:sched_switch -- "${W[@]}"
	rec "$p" $who-zstd -z -e cpu-clock -- "${W[@]}"
	rec "$p" $who-mono -k mono -e cpu-clock -- "${W[@]}"
	rec "$p" $who-ow --overwrite -e cpu-clock -- "${W[@]}"
	"$p" record -q -o - -e cpu-clock -- "${W[@]}" > $who-pipe.data 2> $who-pipe.err ||
		fail "$p record -o -: $(head -2 $who-pipe.err)"
	KINDS+=($who-plain $who-graph $who-count $who-group $who-trace $who-zstd $who-mono $who-ow $who-pipe)
done
rec "$PERF" ours-hist --history=4M -g -e cpu-clock -- "${W[@]}"
KINDS+=(ours-hist)

# same FILE ARGS...: both perfs alike on FILE.data, stdout only
same() {
	local f=$1
	shift
	SCRIPT_SAME_STDOUT=1 script_same "$f.data" "$f$(echo "$*" | tr -c 'a-zA-Z0-9\n' _)" "$@"
}

for f in "${KINDS[@]}"; do
	same $f --header-only
	same $f --header-only -I
	# the block, then exactly what perf script prints without it
	"$PERF" script -i $f.data > $f.records 2>/dev/null
	"$PERF" script -i $f.data --header-only > $f.block 2>/dev/null
	"$PERF" script -i $f.data --header > $f.header 2>/dev/null ||
		fail "$f --header: exit $?"
	case $f in
	*-pipe)	# a stream's features follow the block, before the records
		"$STOCK" script -i $f.data --header 2>/dev/null | sed -n '/^# ====/,/^#$/d; /^#/p' > $f.feat.stock
		sed -n '/^# ====/,/^#$/d; /^#/p' $f.header > $f.feat.ours
		cmp -s $f.feat.ours $f.feat.stock ||
			fail "$f --header: features differ: $(diff $f.feat.ours $f.feat.stock | head -4)"
		grep -q '^# event : name = cpu-clock' $f.feat.ours || fail "$f --header: no event line"
		cat $f.block $f.feat.ours $f.records | cmp -s - $f.header ||
			fail "$f --header: not the block, the features and the records" ;;
	*)	cat $f.block $f.records | cmp -s - $f.header ||
			fail "$f --header: not the block then the records" ;;
	esac
done

# what the block says, checked on its own: not only alike
grep -q "^# event : name = cpu-clock, , id = { [0-9]" ours-plain__header_only.ours ||
	fail "no event line: $(head -20 ours-plain__header_only.ours)"
grep -q "^# compressed : Zstd, level = 1, ratio = [0-9]" ours-zstd__header_only.ours ||
	fail "no compressed line"
grep -q "write_backward = 1" stock-ow__header_only.ours || fail "no write_backward"
grep -q "^# group: {cpu-clock,task-clock}$" ours-group__header_only.ours || fail "no group line"
grep -q "^# CPU 0: Core ID" ours-plain__header_only__I.ours || fail "-I: no CPU topology"
grep -q "^# missing features: " ours-plain__header_only.ours || fail "no missing features line"

# a stream on a pipe: --header-only prints the header's lines only
for who in ours stock; do
	cat $who-pipe.data | "$PERF" script --header-only > $who.pipe.only ||
		fail "$who stream on stdin --header-only: exit $?"
	cat $who-pipe.data | "$STOCK" script --header-only > $who.pipe.only.stock
	diff <(grep -v '^# captured on' $who.pipe.only) <(grep -v '^# captured on' $who.pipe.only.stock) ||
		fail "$who stream on a pipe: --header-only differs"
	[ "$(grep -c '^# data offset    : 0$' $who.pipe.only)" = 1 ] || fail "$who stream: no zero offset"
	cat $who-pipe.data | "$PERF" script --header > $who.pipe.header || fail "$who pipe --header"
	cat $who-pipe.data | "$STOCK" script --header > $who.pipe.header.stock
	diff <(grep '^#' $who.pipe.header | grep -v '^# captured on') \
		<(grep '^#' $who.pipe.header.stock | grep -v '^# captured on') ||
		fail "$who stream on a pipe: --header's lines differ"
done
exit 0
