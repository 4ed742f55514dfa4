#!/bin/bash
# perf script -F on files of this perf record (-d, -c, -P, --sample-cpu, {a,b}:S, --call-graph dwarf, events of different layouts): the same values, field by field, as the stock perf script
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

need_tracepoint sched sched_process_exec
# NAME and perf record's options: the spin workload into NAME.data; mixed
# has events of different layouts, a tracepoint's CPU|RAW trailer next to
# cpu-clock's and page-faults'
while read -r name opts; do
	# shellcheck disable=SC2086 # the options are words
	"$PERF" record -q -o "$name.data" $opts -- "$PERF" test -w spin 0.2 2> "$name.err" ||
		fail "perf record $opts: $(cat "$name.err")"
done <<EOF
data -e page-faults -c 1 -d
count -c 100000
period -c 100000 -P
cpu --sample-cpu
dwarf --call-graph dwarf -c 1000000
mixed -e cpu-clock -e page-faults -e sched:sched_process_exec
group -e {cpu-clock,page-faults}:S
plain
EOF

# same NAME FIELDS: both perfs print the same lines and the same warnings
same() {
	local name=$1 fields=$2
	"$PERF" script -i "$name.data" -F "$fields" > "$name.ours" 2> "$name.ours.err" ||
		fail "$name: perf script -F $fields: $(head -2 "$name.ours.err")"
	"$STOCK" script -i "$name.data" -F "$fields" > "$name.stock" 2> "$name.stock.err" ||
		fail "$name: stock perf script -F $fields: $(head -2 "$name.stock.err")"
	# the stock's warnings ('trace' not valid for software events), no other word
	cmp -s "$name.ours.err" "$name.stock.err" ||
		fail "$name: perf script -F $fields said: $(diff "$name.ours.err" "$name.stock.err" | head -3)"
	[ -s "$name.stock" ] || fail "$name: the stock perf prints no sample with -F $fields"
	cmp -s "$name.ours" "$name.stock" ||
		fail "$name: -F $fields: ours and stock differ: $(diff "$name.ours" "$name.stock" | head -4)"
	log "$name -F $fields: $(wc -l < "$name.ours") lines alike: $(head -1 "$name.ours")"
}

# -d: data addresses (page faults have real ones) and data sources
same data comm,tid,pid,time,period,event,addr,data_src,ip
[ "$(awk '{ print $6 }' data.ours | sort -u | grep -vc '^0$')" -gt 1 ] ||
	fail "-d: fewer than two distinct data addresses: $(head -2 data.ours)"

# -c: the period the attr fixes; -P: each sample's own PERIOD field
same count comm,tid,time,period,event,ip
same period period,ip
[ "$(awk '{ print $1 }' period.ours | sort -u)" = 100000 ] || fail "-P: periods $(sort -u period.ours | head -3)"

same cpu comm,tid,cpu,time,event,ip

# --call-graph dwarf: user registers and stack dumps; each user sample's
# registers by name (the callchains are the kernel's only: the stock perf
# unwinds the stack dump into more, which this perf script does not)
same dwarf comm,tid,time,period,event,addr,data_src,uregs
grep -q 'ABI:2 .* SP:0x[0-9a-f]* .* IP:0x[1-9a-f]' dwarf.ours || fail "dwarf: no user registers: $(head -2 dwarf.ours)"
"$PERF" script -i dwarf.data > dwarf.default 2> dwarf.default.err || fail "dwarf: $(head -2 dwarf.default.err)"
[ "$(grep -c 'cpu-clock:' dwarf.default)" = "$(wc -l < dwarf.ours)" ] ||
	fail "dwarf: $(grep -c 'cpu-clock:' dwarf.default) default lines, $(wc -l < dwarf.ours) with -F"

# events of different layouts in one file
[ "$("$STOCK" evlist -v -i mixed.data 2>/dev/null | grep -c 'CPU|PERIOD|RAW')" = 1 ] ||
	fail "mixed: no tracepoint with its own layout: $("$STOCK" evlist -v -i mixed.data)"
same mixed comm,tid,time,period,event,ip,trace
for ev in cpu-clock page-faults sched:sched_process_exec; do
	grep -q " $ev: " mixed.ours || fail "mixed: no $ev sample"
done

# :S: each sample reads the group, and each member whose count grew is a
# line of its own with the growth as its period, as the stock shows them
same group comm,tid,time,period,event,ip
[ "$(grep -c ' page-faults: ' group.ours)" -gt 0 ] && [ "$(grep -c ' cpu-clock: ' group.ours)" -gt 0 ] ||
	fail ":S: not every member shown: $(head -3 group.ours)"

# a field one event does not sample, or no such field: one line, the
# stock's exit status (255, and 129 for a usage error)
"$PERF" script -i plain.data -F comm,addr > /dev/null 2> noaddr.err
[ $? = 255 ] || fail "-F addr without ADDR: exit status not 255"
[ "$(wc -l < noaddr.err)" = 1 ] && grep -q "do not have ADDR attribute set" noaddr.err ||
	fail "-F addr without ADDR: $(cat noaddr.err)"
"$PERF" script -i plain.data -F comm,nosuch > /dev/null 2> nosuch.err
[ $? = 129 ] || fail "-F nosuch: exit status not 129"
[ "$(wc -l < nosuch.err)" = 1 ] && grep -q "nosuch" nosuch.err || fail "-F nosuch: $(cat nosuch.err)"
exit 0
