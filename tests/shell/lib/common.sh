# Shared helpers for the end-to-end tests: sourced, never run on its own.
# Each test records with $PERF (this tool) and reads back with the stock perf.

SKIP=2
PERF=${PERF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/perf}
STOCK=${STOCK_PERF:-/usr/bin/perf}
# not /tmp/perf-*: stock perf reads such paths as JIT perf-map files
TMP=$(mktemp -d /tmp/frtest.XXXXXX)
BG_PIDS=()

cleanup() {
	for p in "${BG_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	if [ -n "$PERF_TEST_KEEP" ]; then echo "  kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

log() { [ -n "$PERF_TEST_VERBOSE" ] && echo "  $*" >&2; return 0; }
fail() { echo "  FAIL: $*" >&2; exit 1; }
skip() { echo "  SKIP: $*" >&2; exit $SKIP; }

need_stock() {
	[ -x "$STOCK" ] || skip "no stock perf at $STOCK (apt-get install linux-perf)"
	# Debian's /usr/bin/perf is a wrapper that needs the matching linux-perf-X
	"$STOCK" version >/dev/null 2>&1 || skip "stock perf does not run here"
}

need_tracepoint() {
	grep -q . "/sys/kernel/tracing/events/$1/$2/id" 2>/dev/null ||
		"$PERF" record -q -o "$TMP/probe.data" -e "$1:$2" -- true >/dev/null 2>&1 ||
		skip "no tracepoint $1:$2"
}

# Reads FILE with the stock perf in every way users do; any stderr is a failure.
stock_reads_clean() {
	local f=$1 out
	for cmd in "report --stats" "report --header-only -I" "script" \
		   "script --show-task-events --show-mmap-events" "report --stdio" "evlist -v"; do
		out=$("$STOCK" $cmd -i "$f" 2>&1 >/dev/null)
		[ -z "$out" ] || fail "stock 'perf $cmd -i $f' said: $(echo "$out" | head -3)"
	done
}

# 0x-prefixed hex per line -> decimal per line (mawk has no strtonum)
hex2dec() {
	awk '{ v = 0; s = tolower($1); sub(/^0x/, "", s)
	       for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	       printf "%d\n", v }'
}
