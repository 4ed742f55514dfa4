#!/bin/bash
# perf script --time as the stock reads it: start,stop in seconds (open sides, several ranges), percents (10%/2, 0%-10%, 20%, several), its refusals: the same bytes and exit as the stock perf script
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

"$PERF" record -q -e cpu-clock -c 100000 --switch-events -o t.data -- "$PERF" test -w spin 0.2 2> rec.err ||
	fail "perf record: $(head -2 rec.err)"
"$STOCK" script -i t.data -F time 2> /dev/null | tr -d ' :' > times
n=$(wc -l < times)
[ "$n" -ge 40 ] || fail "only $n samples"
at() { sed -n "$(( n * $1 / 100 + 1 ))p" times; }	# PERCENT: a sample's time
a=$(at 20) b=$(at 40) c=$(at 60) d=$(at 80)

same() { script_same t.data t "$@"; }	# ARGS...: both perfs alike on t.data
kept() {	# ARGS...: --time ARGS leaves some samples out and keeps some
	same --time "$@"
	[ -s t.ours ] && [ "$(wc -l < t.ours)" -lt "$n" ] || fail "--time $*: $(wc -l < t.ours) of $n samples"
}

kept "$a,$b"
kept "$a,"
kept ",$b"
kept "$a,$b $c,$d"
kept "${a}999,${b}001"
kept 10%/2
kept 25%
kept 0%-10%
kept 10%/1,10%/3
kept 0%-10%,50%-60%
# the stock leaves out samples only: every switch is there, in range or not
same --time "$a,$b" --show-switch-events
[ "$(grep -c PERF_RECORD_SWITCH t.ours)" = "$("$STOCK" script -i t.data --show-switch-events | grep -c PERF_RECORD_SWITCH)" ] ||
	fail "--time left switch records out"
same --time ,
for bad in "$a" "$b,$a" "$c,$d $a,$b" "$a,$b,$c" x,y "$a.1234567891," 200%/1 10%/2x 10% 30%x; do
	same --time "$bad"
done
# "0%-10%,20%": the stock crashes (a range without '-'); refused here
"$PERF" script -i t.data --time 0%-10%,20% > /dev/null 2> ours.err
[ $? = 234 ] && [ "$(cat ours.err)" = "Invalid time string" ] || fail "0%-10%,20%: $(cat ours.err)"
exit 0
