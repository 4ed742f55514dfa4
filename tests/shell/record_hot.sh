#!/bin/bash
# perf record: a C program's hot function, attributed by the stock perf
. "$(dirname "$0")/lib/common.sh"
need_stock
need_cc

cat > "$TMP/hot.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void hot_function(void)
{
	for (unsigned long i = 0; i < 300000000UL; i++)
		sink += i;
}
int main(void) { hot_function(); return 7; }
C
cc -O0 -g -fno-omit-frame-pointer -o "$TMP/hotprog" "$TMP/hot.c" || fail "compile"

cd "$TMP" || exit 1
"$PERF" record -o hot.data -- ./hotprog 2> rec.err
rc=$?
[ $rc -eq 7 ] || fail "perf record returned $rc, the workload's status is 7"
grep -q '^\[ perf record: Captured and wrote .* MB hot.data ([0-9]* samples) \]$' rec.err ||
	fail "no closing line: $(cat rec.err)"
[ "$(stat -c %a hot.data)" = 600 ] || fail "hot.data mode $(stat -c %a hot.data)"
stock_reads_clean hot.data

top=$("$STOCK" report -i hot.data --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep . | head -1)
log "top: $top"
pct=$(echo "$top" | awk '{print int($1)}')
echo "$top" | grep -q 'hotprog  *hotprog  *\[\.\] hot_function' || fail "top entry: $top"
[ "$pct" -ge 80 ] || fail "hot_function only $pct%"

# -g: frame-pointer callchains reach main
"$PERF" record -q -g -o cg.data -- ./hotprog
stock_reads_clean cg.data
"$STOCK" script -i cg.data -F ip,sym 2>/dev/null | grep -q ' main$' ||
	fail "no callchain through main"

# our own reader agrees on the sample count
n_ours=$("$PERF" script -i hot.data | grep -c ' cpu-clock: ')
n_stock=$("$STOCK" script -i hot.data -F event 2>/dev/null | grep -c cpu-clock)
[ "$n_ours" -eq "$n_stock" ] && [ "$n_ours" -gt 100 ] || fail "samples: ours $n_ours stock $n_stock"
exit 0
