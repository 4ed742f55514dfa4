#!/bin/bash
# bench/run --quick: the harness runs every scenario for both tools (numbers not judged)
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
need_cc
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# The sanitizers' build: the stock's variants are the normal build's run's
# again, with nothing of this perf in them: left out, and their rows with them
tools="stock this" stock_workloads="stock-normal stock-overwrite"
if [[ $(readlink -f "$PERF") == */build-san/perf ]]; then
	export BENCH_NO_STOCK=1
	tools=this stock_workloads=
	echo "  sanitizers' build: the stock's variants and rows left out (the normal build's run has them)" >&2
fi
THIS_PERF=$PERF "$ROOT/bench/run" --quick --out "$TMP/results" > "$TMP/out" 2> "$TMP/err" ||
	fail "bench/run --quick failed: $(tail -5 "$TMP/err")"
md=$TMP/results/latest.md
[ -s "$md" ] || fail "no latest.md"
for metric in "workload seconds" "events lost per dump" "ms, 1MB rings" "recorder CPU s per GB" \
	      "events lost" "tracepoint bytes/record" "cpu-clock s of history per MiB" \
	      "peak anon RSS KB" "% of an exited task's samples named"; do
	for v in $tools; do
		grep -F "| $metric |" "$md" | grep -q "| $v" || fail "no '$metric' row for $v"
	done
done
# the -a dump scenario (tracepoint only in a quick run: cpu-clock -g dumps
# take the stock perf seconds), and the blind window with -a: a number for
# each tool
for metric in "ms, tracepoint, 1MB rings" "dump MB, tracepoint, 1MB rings" \
	      "coherence holes per dump"; do
	for v in $tools; do
		grep -F "| $metric |" "$md" | grep -q "| $v | [0-9]" || fail "no number in '$metric' for $v"
	done
done
# perf data convert --to-pprof against perf script piped to a fold
for metric in "seconds: convert --to-pprof (this), stock perf script piped to a fold (stock)" \
	      "peak RSS MB: convert --to-pprof (this), stock perf script piped to a fold (stock)"; do
	for v in stock this; do
		grep -F "| $metric |" "$md" | grep -q "| $v | [0-9]" || fail "no number in '$metric' for $v"
	done
done
# --history against the stock's normal record (cost) and --overwrite (reach)
for metric in "recorder CPU s per GB (this: --history=64M; stock: normal record)" \
	      "cpu-clock s of history per MiB of recorder memory" \
	      "tracepoint s of history per MiB of recorder memory" \
	      "bytes a sample, -z file of close() records"; do
	for v in $tools; do
		grep -F "| $metric |" "$md" | grep -q "| $v | [0-9]" || fail "no number in '$metric' for $v"
	done
done
for metric in "ms, full 8M history" "ms, full 8M history, -z" "dump ms, 8MB tracepoint rings" \
	      "dump ms, 8MB tracepoint rings, -z" "dump MB, 8MB tracepoint rings, -z" \
	      "s, 64M of --history (from the compressed rate)"; do
	grep -F "| $metric | this | " "$md" | grep -q '| this | [0-9]' || fail "no number in '$metric'"
done
# the value cell itself, after the variant: '| [0-9]' alone would match "| 2a ..."
grep -F "| 2a blind window -a | events lost per dump | this | " "$md" | grep -q '| this | [0-9]' ||
	fail "no -a blind window number for this"
# the zero-copy switch (3d): timed, and a loss count that must be a number
for metric in "ms to switch every CPU's event, one thread" "samples lost across a switch, of 300"; do
	grep -F "| 3d zero-copy capture | $metric | kernel | " "$md" | grep -q '| kernel | [0-9]' ||
		fail "no number in 3d '$metric'"
done
# --history with the rings it picks by itself, held against the stock's --overwrite
for kind in cpu-clock tracepoint; do
	grep -F "| 5h reach | $kind s of history per MiB of recorder memory | this-default | " "$md" |
		grep -q '| this-default | [0-9]' || fail "no number in 5h's this-default $kind row"
done
# the switch-pair capture (3e): timed, and its exactness counted
for metric in "ms to switch every CPU's sampling event to its twin, one thread" \
	      "close() records across 9 switches" "of those, missing from both rings" \
	      "of those, in both rings after the cut"; do
	grep -F "| 3e switch-pair capture | $metric | kernel | " "$md" | grep -q '| kernel | [0-9]' ||
		fail "no number in 3e '$metric'"
done
for kind in tracepoint; do
	for metric in "memcpy ms under the sampling, as many bytes as this $kind 1MB dump" \
		      "write+rename ms under the sampling, as many bytes as this $kind 1MB dump"; do
		grep -qF "| $metric | floor | " "$md" || fail "no floor row '$metric'"
		grep -F "| $metric | floor | " "$md" | grep -q '| floor | [0-9]' ||
			fail "no number in floor '$metric'"
	done
	grep -F "| this dump ms / floor (memcpy + write+rename) ms, $kind 1MB rings | this | " "$md" |
		grep -q '| this | [0-9]' ||
		fail "no this/floor ratio for $kind"
	# the recorder's own -v line gives the capture time
	grep -F "| 3b capture time -a | ms, $kind, 1MB rings | this | " "$md" |
		grep -q '| this | [0-9]' || fail "no capture time for $kind"
done
for n in 8 32; do
	grep -q "| 8 pipeline | ms per GB, $n rings of 1MB | this | [0-9]" "$md" ||
		fail "no dump pipeline time for $n rings"
	grep -q "| 8 pipeline | merge+write / write floor, $n rings of 1MB | this | [0-9]" "$md" ||
		fail "no dump pipeline floor ratio for $n rings"
	grep -q "| 8 pipeline | peak RSS GB per GB of ring, $n rings of 1MB | this | [0-9]" "$md" ||
		fail "no dump pipeline RSS for $n rings"
done
for v in bare $stock_workloads this-normal this-overwrite; do
	grep -q "| workload seconds | $v | [0-9]" "$md" || fail "scenario 1: no number for $v"
done
# the BPF scenarios: the off-CPU program's cost beside the stock's
# sched_switch tracepoint (14), kernel triggers (15: none false, none
# missed, a latency), reach with --off-cpu (16)
for v in bare $tools this-each; do
	grep -F "| 14 off-CPU cost | sched pipe usecs/op | $v | " "$md" | grep -q "| $v | [0-9]" ||
		fail "no number in 14's usecs/op for $v"
done
for kind in syscall offcpu; do
	for metric in "false triggers (fired beyond the spans over 20 ms)" "missed (spans over 20 ms that fired none)"; do
		grep -F "| 15 kernel triggers | $kind: $metric | this | 0 " "$md" >/dev/null ||
			fail "15 $kind: '$metric' is not 0: $(grep -F "$kind: $metric" "$md")"
	done
	# missed is 0 only if there were spans to miss: every 22 ms one counted
	grep -F "| 15 kernel triggers | $kind: spans of 22 ms (each must fire) | this | 5 " "$md" >/dev/null ||
		fail "15 $kind: not the 5 spans of 22 ms: $(grep -F "$kind: spans of 22 ms" "$md")"
	grep -F "| 15 kernel triggers | $kind: ms from the span's end to the dump's cut, median | this | " "$md" |
		grep -q '| this | [0-9]' || fail "no trigger latency for $kind"
done
for v in this this-offcpu; do
	grep -F "| 16 reach with --off-cpu | cpu-clock s of history per MiB of rings | $v | " "$md" |
		grep -q "| $v | [0-9]" || fail "no number in 16's reach for $v"
done
grep -F "| 16 reach with --off-cpu | offcpu-time s of history in the dump | this-offcpu | " "$md" |
	grep -q '| this-offcpu | [0-9]' || fail "no offcpu-time history in 16"
# every row has a number or says why not
grep '^| [0-9]' "$md" | grep -v '| [0-9.e+-]* ([0-9.e+-]*-[0-9.e+-]*) |' | grep -v 'cannot run here' |
	head -1 | grep -q . && fail "a row without a number: $(grep '^| [0-9]' "$md" | grep -v '([0-9.e+-]*-' | head -1)"
[ -s "$TMP/results/latest.png" ] || fail "no chart"
exit 0
