#!/bin/bash
# perf record --off-cpu: the sums of the blocks below --off-cpu-thresh, written at the end, carry the recording's end as their time (after every other sample, never 0), in a file, in the exit dump of --overwrite and of --history, with the stock perf reading them under the right comm; a flight recorder's dump (--overwrite, --history) holds the block that ended before its trigger
. "$(dirname "$0")/lib/common.sh"
need_stock
need_bpf
need_cc "the napping workload"
cd "$TMP" || exit 1

NAPS=20
NAP_MS=2
# napper N MS: N naps of MS ms in napper_naps(), each a block far below
# the threshold the test sets; then "long MS" blocks once for MS ms
cat > napper.c <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <time.h>

static __attribute__((noinline)) void napper_one(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void napper_naps(int n, long ms)
{
	for (int i = 0; i < n; i++)
		napper_one(ms);
}

__attribute__((noinline)) void napper_long(long ms) { napper_one(ms); }

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "long"))
		napper_long(atol(argv[2]));
	else
		napper_naps(atoi(argv[1]), atol(argv[2]));
	return 0;
}
EOF
cc -O0 -g -fno-omit-frame-pointer -o napper napper.c || fail "cc napper.c"

# sums_after F WHAT: F holds offcpu-time samples of napper summing at least
# 95 % of NAPS * NAP_MS ms, and every offcpu-time sample (all sums: nothing reaches
# the threshold) is stamped after every other sample, never 0
sums_after() {
	"$STOCK" script -i "$1" -F comm,time,event,period 2>"$1.err" > "$1.txt" ||
		fail "$2: stock perf script: $(head -2 "$1.err")"
	awk -v naps=$NAPS -v ms=$NAP_MS -v what="$2" '
		{ t = $2; sub(/:$/, "", t); t += 0 }
		/offcpu-time/ {
			if (!first || t < first) first = t
			if ($1 == "napper") ns += $3
			n++
			next
		}
		{ if (t > other) other = t }
		END {
			if (!n) { print what ": no offcpu-time sample"; exit 1 }
			if (first <= 0) { print what ": a sum stamped " first; exit 1 }
			if (first < other) { printf "%s: a sum stamped %.6f, before a sample at %.6f\n", what, first, other; exit 1 }
			# a block is the time off CPU, inside the nap: each a few us
			# short of it (the nap starts before the switch), within 5 %
			if (ns < 0.95 * naps * ms * 1e6) { printf "%s: napper\047s sums: %d ns, not 95 %% of %d naps of %d ms\n", what, ns, naps, ms; exit 1 }
		}' "$1.txt" >&2 || fail "$2: see above ($1)"
}

# normal mode: a workload whose every block is short; with no other
# event the sums are the only samples, after the workload's records
for ev in dummy cpu-clock; do
	"$PERF" record -q --off-cpu --off-cpu-thresh=100000 -g -e $ev -o nm.data -- \
		./napper $NAPS $NAP_MS 2>nm.err || fail "record -e $ev: $(cat nm.err)"
	sums_after nm.data "normal mode, -e $ev"
	stock_reads_clean nm.data
done

# the flight recorder: the exit dump holds the sums
for mode in --overwrite --history=16M; do
	rm -f fl.data*
	"$PERF" record -q $mode --switch-output --off-cpu --off-cpu-thresh=100000 -a \
		-e cpu-clock -o fl.data 2>fl.err &
	rp=$!
	BG_PIDS+=($rp)
	wait_ready $rp
	./napper $NAPS $NAP_MS || fail "napper"
	kill -INT $rp
	wait_stopped $rp INT || fail "$mode: recorder status $STOPPED_STATUS: $(cat fl.err)"
	dump=$(compgen -G "fl.data.*" | sort | tail -1)
	[ -n "$dump" ] || fail "$mode: no exit dump: $(cat fl.err)"
	sums_after "$dump" "$mode exit dump"
	stock_reads_clean "$dump"
done

# blocked F: the period of napper's offcpu-time sample blocked in
# napper_long in F, as the stock reads it; 0 if none
blocked() {
	"$STOCK" script -i "$1" -F comm,event,period,ip,sym 2>/dev/null | awk '
		/offcpu-time/ { p = 0; if ($1 == "napper") for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) p = $i; next }
		/[[:space:]]napper_long$/ { if (p) { print p; found = 1; exit } }
		END { if (!found) print 0 }'
}

# the first dump after a block holds it, in every mode, each time
for mode in --overwrite --history=16M; do
	rm -f fl.data*
	"$PERF" record -q $mode --switch-output --off-cpu -a -e cpu-clock -o fl.data 2>fl.err &
	rp=$!
	BG_PIDS+=($rp)
	wait_ready $rp
	for n in 1 2 3; do
		./napper long 200 || fail "napper"
		kill -USR2 $rp
		wait_until "$mode: no dump $n after SIGUSR2" \
			bash -c "[ \$(compgen -G 'fl.data.*' | wc -l) -ge $n ]"
		dump=$(compgen -G "fl.data.*" | sort | tail -1)
		p=$(blocked "$dump")
		awk -v p="$p" 'BEGIN { exit !(p > 190e6 && p < 1e9) }' ||
			fail "$mode: dump $n ($dump) does not hold the 200 ms block before it (period $p)"
	done
	kill -INT $rp
	wait_stopped $rp INT || fail "$mode: recorder status $STOPPED_STATUS: $(cat fl.err)"
done
exit 0
