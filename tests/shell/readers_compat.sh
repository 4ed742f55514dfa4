#!/bin/bash
# Readers nobody here wrote: hotspot's perfparser reads this perf's files of every kind (normal, -g, dwarf, tracepoints -a, -z, --overwrite dumps plain, -z and -g, --history dumps, -o - on a pipe) with no line on stderr it does not print for the stock's file of the same kind, and finds the samples and maps the stock perf report --stats counts; the stock perf sched timehist finds callchains in -g dumps
. "$(dirname "$0")/lib/common.sh"
need_stock
PARSER=$(dpkg -L hotspot 2>/dev/null | grep -m1 '/hotspot-perfparser$')
[ -x "$PARSER" ] || skip "no hotspot-perfparser (apt-get install hotspot)"
cd "$TMP" || exit 1

# perfparser's stderr, one line each, numbers as N: its debug lines carry
# times, sizes and ratios that differ from run to run. "FINISHED_ROUND
# detected" is a debug line too: it says the file has rounds, which the
# stock's files do as well (perfparser has already switched to them there
# on the stock's version string, and does not say it again).
parser_lines() {	# ERRFILE
	sed -E 's/[0-9]+/N/g' "$1" | grep -v '^FINISHED_ROUND detected\. Switching to automatic buffering$' |
		sort -u
}

# perfparser's count of WHAT (samples, mmaps) in its --print-stats output
parser_count() {	# OUTFILE WHAT
	sed -n "s/^$2: \([0-9]*\)\$/\1/p" "$1"
}

# The stock perf report --stats count of TYPE events in FILE (0: none)
stock_count() {	# FILE TYPE
	"$STOCK" report --stats -i "$1" 2>/dev/null |
		awk -v t="$2" '$1 == t && $2 == "events:" { n = $3; exit } END { print n + 0 }'
}

# Records both perfs' file of kind KIND with the options after it, runs
# perfparser on both: s-KIND.{out,err} and o-KIND.{out,err}.
# The two recordings run side by side: the stock's waits up to a second
# at its end for its side band thread, on no CPU.
record_both() {	# KIND OPTIONS...
	local kind=$1 s
	shift
	"$STOCK" record -q "$@" -o "s-$kind.data" -- "$PERF" test -w spin 0.3 \
		> /dev/null 2> "s-$kind.rec" &
	s=$!
	"$PERF" record -q "$@" -o "o-$kind.data" -- "$PERF" test -w spin 0.3 \
		> /dev/null 2> "o-$kind.rec" || fail "perf record $*: $(cat "o-$kind.rec")"
	wait $s || fail "stock record $*: $(cat "s-$kind.rec")"
	for w in s o; do
		"$PARSER" --input "$w-$kind.data" --print-stats > "$w-$kind.out" 2> "$w-$kind.err" ||
			fail "perfparser on $w-$kind.data: exit $?: $(head -3 "$w-$kind.err")"
	done
}

# Every stderr line perfparser has for this perf's file of KIND it has for
# the stock's of the same kind too.
no_new_warnings() {	# KIND
	local new
	new=$(comm -13 <(parser_lines "s-$1.err") <(parser_lines "o-$1.err"))
	[ -z "$new" ] || fail "$1: perfparser says on this perf's file only: $(echo "$new" | head -3)"
}

# perfparser's samples and maps on this perf's file of KIND are the stock
# perf's SAMPLE and MMAP+MMAP2 counts.
counts_match() {	# KIND
	local f=o-$1.data out=o-$1.out s m
	s=$(stock_count "$f" SAMPLE)
	m=$(($(stock_count "$f" MMAP) + $(stock_count "$f" MMAP2)))
	[ "$s" -gt 10 ] || fail "$1: only $s samples"
	[ "$(parser_count "$out" samples)" = "$s" ] && [ "$(parser_count "$out" mmaps)" = "$m" ] ||
		fail "$1: perfparser: $(parser_count "$out" samples) samples, $(parser_count "$out" mmaps) mmaps; stock perf: $s, $m"
}

need_tracepoint sched sched_switch
record_both plain -e cpu-clock
record_both g -g -e cpu-clock
record_both dwarf --call-graph dwarf -e cpu-clock
record_both tp -a -e sched:sched_switch
record_both ow --overwrite -e cpu-clock
record_both owg --overwrite -g -e cpu-clock
for kind in plain g dwarf tp ow owg; do
	no_new_warnings $kind
	counts_match $kind
done

# -z: the COMPRESSED feature as the stock writes it (version 0: perfparser
# refuses the file with any other), and what the stock leaves uncompressed
# (the maps and names made in user space) left so: a perfparser built
# without zstd (Debian's) still finds those, as many as in the stock's
record_both z -z -e cpu-clock
record_both owz -z --overwrite -e cpu-clock
for kind in z owz; do
	no_new_warnings $kind
	if grep -q 'zstd decompression support not available' "s-$kind.err"; then
		want=$(parser_count "s-$kind.out" mmaps)
		got=$(parser_count "o-$kind.out" mmaps)
		[ "${want:-0}" -ge 1 ] && [ "$got" = "$want" ] ||
			fail "$kind: perfparser without zstd: $got mmaps outside the COMPRESSED records, $want in the stock's file"
	else
		counts_match $kind
	fi
done

# --history dumps: no stock counterpart; the stock's --overwrite dumps
# are the kind they stand for
"$PERF" record -q --history=4M -e cpu-clock -o o-hist.data -- "$PERF" test -w spin 0.3 \
	> /dev/null 2> hist.rec || fail "perf record --history: $(cat hist.rec)"
"$PARSER" --input o-hist.data --print-stats > o-hist.out 2> o-hist.err ||
	fail "perfparser on the --history dump: $(head -3 o-hist.err)"
cp s-ow.err s-hist.err
no_new_warnings hist
counts_match hist

# -o -: perfparser reads the stream on its stdin
"$STOCK" record -q -o - -e cpu-clock -- "$PERF" test -w spin 0.3 2> /dev/null |
	"$PARSER" --print-stats > s-pipe.out 2> s-pipe.err &
s=$!
"$PERF" record -q -o - -e cpu-clock -- "$PERF" test -w spin 0.3 2> /dev/null > o-pipe.data ||
	fail "perf record -o -"
wait $s
"$PARSER" --print-stats < o-pipe.data > o-pipe.out 2> o-pipe.err || fail "perfparser on stdin"
no_new_warnings pipe
s=$(parser_count o-pipe.out samples)
[ "$s" -gt 100 ] && [ "$s" = "$("$STOCK" script -i - < o-pipe.data 2> /dev/null | wc -l)" ] ||
	fail "pipe: perfparser found $s samples, the stock perf script $("$STOCK" script -i - < o-pipe.data 2> /dev/null | wc -l)"

# -g dumps: the tracking dummy says it has callchains too, as in normal
# mode and as the stock's does, or perf sched timehist refuses them
"$PERF" record -q --overwrite -a -g -e sched:sched_switch -o th.data -- "$PERF" test -w spin 0.2 \
	2> th.rec || fail "record --overwrite -a -g: $(cat th.rec)"
"$STOCK" evlist -v -i th.data 2> /dev/null | grep '^dummy' > th.attr
grep -q "sample_type: IP|TID|TIME|CALLCHAIN|CPU|IDENTIFIER," th.attr || fail "-g dump's dummy: $(cat th.attr)"
"$STOCK" sched timehist -i th.data > th.out 2>&1
! grep -q "do not have callchains" th.out && grep -q ' <- ' th.out ||
	fail "-g dump: sched timehist: $(head -5 th.out)"
"$STOCK" report --stdio -i th.data > th.report 2> th.rerr
[ ! -s th.rerr ] && grep -q -- '--' th.report || fail "-g dump: perf report: $(head -3 th.rerr th.report)"
exit 0
