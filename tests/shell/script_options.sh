#!/bin/bash
# perf script's options with the stock's names and lines: --comms/-c, --pid, --tid, --cpu/-C filters, -s and -l without a script engine, -G on tracepoint callchains, accepted -f, -v, --demangle, --full-source-path: the same bytes as the stock perf script
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

"$PERF" record -q -a -g -e sched:sched_switch -o t.data -- "$PERF" test -w spin 0.2 2> rec.err ||
	fail "perf record: $(head -2 rec.err)"

same() { script_same t.data t "$@"; }	# ARGS...: both perfs alike on t.data

# a task and a CPU the file has: each filter leaves some samples out and
# keeps some
"$STOCK" script -i t.data -F comm,tid > tasks 2>/dev/null
read -r comm tid < <(awk 'NF == 2 && $2 != 0 { print $1, $2; exit }' tasks)
[ -n "$tid" ] && [ -n "$comm" ] || fail "no task in the file: $("$STOCK" script -i t.data -F comm,tid | head -2)"
all=$("$STOCK" script -i t.data -F tid 2>/dev/null | wc -l)
same --comms "$comm"
same -c "$comm,swapper"
# an idle CPU's samples: no COMM names tid 0, the line says swapper
same -c swapper
same --pid "$tid"
same --tid "$tid,0"
[ "$(wc -l < t.ours)" -gt 0 ] && [ "$("$STOCK" script -i t.data -F tid --tid "$tid,0" | wc -l)" -lt "$all" ] ||
	fail "--tid $tid,0 leaves nothing out or keeps nothing"
same --cpu 0
same -C 1
same --cpu 0-1
same -G
same -G --comms "$comm"
same -f
same --demangle
same --no-demangle
same --full-source-path

# no script engine: the stock's words when it has none
"$PERF" script -s x.py -i t.data > /dev/null 2> s.err && fail "-s accepted"
grep -q "^Python scripting not supported" s.err || fail "-s x.py: $(cat s.err)"
[ "$("$PERF" script -l)" = "List of available trace scripts:" ] || fail "-l: $("$PERF" script -l)"
exit 0
