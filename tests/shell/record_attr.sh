#!/bin/bash
# perf record attrs: the stock perf's own attr tests (tests/attr/test-record-*), this perf passes every one the stock passes
. "$(dirname "$0")/lib/common.sh"

# Debian's linux-perf ships the stock runner and its expectations here
ATTR_TESTS=${ATTR_TESTS:-/usr/lib/perf-core/tests}
ATTR_PY=$ATTR_TESTS/attr.py

# Tests the stock passes and this perf deliberately does not: name, then a
# one-line reason. A listed test still runs and is shown; it just does not
# fail the suite.
declare -A DELIBERATE=(
)

need_stock
command -v python3 >/dev/null || skip "no python3 to run $ATTR_PY"
[ -r "$ATTR_PY" ] || skip "no $ATTR_PY (apt-get install linux-perf)"
command -v kill >/dev/null || skip "no kill(1): every attr test records it"
# built beside the binary, with the same sanitizer flags (make, make san)
SHIM=${ATTR_SHIM:-$(dirname "$(readlink -f "$PERF")")/attr-shim.so}
[ -r "$SHIM" ] || fail "no attr shim $SHIM beside $PERF: make builds it"

# An ASan perf wants its runtime first in the library list: the sanitized
# shim comes after it, never before.
PRELOAD=$SHIM
asan=$(ldd "$(readlink -f "$PERF")" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -z "$asan" ] || PRELOAD="$asan $SHIM"

# attr.py runs `$wrapper record -o DIR/perf.data ARGS` in a shell and
# compares the exit status, so that goes through; perf's stderr and the
# event files it opened are kept for the report, which attr.py throws away.
wrapper=$TMP/perf-attr
cat > "$wrapper" <<EOF
#!/bin/sh
LD_PRELOAD='$PRELOAD' '$PERF' "\$@" 2> '$TMP/perf.err'
rc=\$?
cat '$TMP/perf.err' >&2
rm -rf '$TMP/opened' && mkdir '$TMP/opened' && cp "\$PERF_TEST_ATTR"/event* '$TMP/opened/' 2>/dev/null
exit \$rc
EOF
chmod +x "$wrapper"

# The shim writes what the stock's own PERF_TEST_ATTR hook writes: under the
# stock perf, with ATTR_SHIM_DIR sending it elsewhere, both sets of files
# must be byte for byte the same (names, sections, every key and value).
shim_matches_stock() {	# record args...
	local d=$TMP/hook
	rm -rf "$d" && mkdir -p "$d/stock" "$d/shim" || fail "cannot make $d"
	# the stock perf is not sanitized: no leak report of its own
	ASAN_OPTIONS=detect_leaks=0 PERF_TEST_ATTR=$d/stock ATTR_SHIM_DIR=$d/shim LD_PRELOAD=$PRELOAD \
		"$STOCK" record --no-bpf-event -o "$d/perf.data" "$@" >/dev/null 2>&1
	[ -n "$(ls "$d/stock")" ] || fail "the stock perf's hook wrote nothing for record $*"
	diff -r "$d/stock" "$d/shim" >&2 ||
		fail "the shim's files differ from the stock hook's for record $*"
	log "record $*: shim = stock hook ($(ls "$d/stock" | tr '\n' ' '))"
}
shim_matches_stock -- kill
shim_matches_stock -e '{cpu-clock,task-clock}:S' -C 0 -- kill

# and it sees this perf's opens: nothing at all would mean perf no longer
# goes through libc's syscall(), and every test would fail for nothing
mkdir "$TMP/probe" || fail "cannot make $TMP/probe"
PERF_TEST_ATTR=$TMP/probe "$wrapper" record -q -o "$TMP/probe.data" -- true >/dev/null 2>&1
[ -n "$(ls "$TMP/probe")" ] ||
	fail "the shim saw no perf_event_open of $PERF: $(head -c 300 "$TMP/perf.err")"

# attr.py -vvv's output of one test -> pass, fail, unsupp (the exit status
# was not the expected one), skipped (another arch) or error
verdict() {	# log rc
	if grep -q "^unsupp " "$1"; then echo unsupp
	elif grep -q "^skipped " "$1"; then echo skipped
	elif grep -q "^FAILED " "$1"; then echo fail
	elif [ "$2" = 0 ] && grep -q "^running '" "$1"; then echo pass
	else echo error
	fi
}

# Why this perf failed TEST, from its attr.py log: the event that matched
# nothing, the candidate attr.py diffed it with, and that diff. attr.py
# compares both ways: an unmatched test event lacks a twin in this perf,
# an unmatched event-TYPE-CONFIG-FD is one this perf opened that the test
# does not expect (its 'expected' values are then this perf's).
why_failed() {	# log
	local unmatched cand
	unmatched=$(grep -o '^    matching \[.*\]' "$1" | tail -1 | sed 's/.*\[\(.*\)\]/\1/')
	cand=$(grep -o '^      to \[.*\]' "$1" | tail -1 | sed 's/.*\[\(.*\)\]/\1/')
	case $unmatched in
	event-*-*-*) echo "    this perf's $unmatched matches none of the test's events; vs [$cand]:" ;;
	*) echo "    the test's [$unmatched] matches none of this perf's events; vs its $cand:" ;;
	esac
	grep '^expected .*=.*, got ' "$1" | sed 's/^/      /'
	grep '^FAILED ' "$1" | grep -v 'match failure' | sed 's/^/      /'
	echo "    this perf opened: $(ls "$TMP/opened" 2>/dev/null | sed 's/-[0-9]*$//' |
				  sort | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')"
}

run_attr() {	# perf test log -> prints the verdict
	python3 -W ignore "$ATTR_PY" -d "$ATTR_TESTS/attr" -p "$1" -t "$2" -vvv > "$3" 2>&1
	verdict "$3" $?
}

# The stock perf 6.1 now and then aborts in its build-id pass at exit
# ("buffer overflow detected", exit 134) on a test it passes otherwise: a
# stock run killed by a signal is run again, twice at most. If it dies every
# time the verdict is 'died', and this perf must then pass the test: the
# stock's crash never takes a test out of the comparison. This perf gets
# no retry.
run_stock() {	# test log
	local v i
	for i in 1 2 3; do
		v=$(run_attr "$STOCK" "$1" "$2")
		[ "$v" = unsupp ] && grep -q "ret '1[3-9][0-9]', expected" "$2" || { echo "$v"; return; }
		log "$1: the stock perf died ($(grep -o "ret '[0-9]*'" "$2")), run $i"
	done
	echo died
}

# The stock's verdicts, 8 tests at a time, beside this perf's runs (the
# two share nothing but the test files): each of its recordings waits up
# to a second at its end for its side band thread, on no CPU. TEST's
# verdict is in stock/TEST.verdict once it is complete.
stock_all() {
	local t name
	for t in "$ATTR_TESTS"/attr/test-record-*; do
		[ -e "$t" ] || continue
		name=${t##*/}
		while [ "$(jobs -pr | wc -l)" -ge 8 ]; do wait -n; done
		{ run_stock "$name" "$TMP/stock/$name.log" > "$TMP/stock/$name.tmp" &&
			mv "$TMP/stock/$name.tmp" "$TMP/stock/$name.verdict"; } &
	done
	wait
}
mkdir "$TMP/stock" || fail "cannot make $TMP/stock"
stock_all &
stock_job=$!
BG_PIDS+=($stock_job)

nr=0 stock_passed=0 stock_died=0 bad=() report=
printf '  %-36s %-8s %s\n' test stock this >&2
for t in "$ATTR_TESTS"/attr/test-record-*; do
	[ -e "$t" ] || continue
	name=${t##*/}
	nr=$((nr + 1))
	rm -rf "$TMP/opened" "$TMP/perf.err"
	p=$(run_attr "$wrapper" "$name" "$TMP/this.log")
	until [ -e "$TMP/stock/$name.verdict" ]; do
		kill -0 $stock_job 2>/dev/null || [ -e "$TMP/stock/$name.verdict" ] ||
			fail "the stock's run of $name gave no verdict"
		sleep 0.05
	done
	cp "$TMP/stock/$name.log" "$TMP/stock.log"
	s=$(cat "$TMP/stock/$name.verdict")
	note="" flagged=""
	[ "$s" = pass ] && stock_passed=$((stock_passed + 1))
	[ "$s" = died ] && stock_died=$((stock_died + 1))
	if [ "$s" = died ] && [ "$p" != pass ]; then
		note="REGRESSION (the stock died each time: this perf is held to pass)" flagged=1
	elif [ "$s" = pass ] && [ "$p" != pass ]; then
		if [ -n "${DELIBERATE[$name]}" ]; then
			note="deliberate: ${DELIBERATE[$name]}"
		else
			note=REGRESSION flagged=1
		fi
	elif [ -n "${DELIBERATE[$name]}" ]; then
		note="listed as deliberate, but no longer differs: drop it from DELIBERATE" flagged=1
	fi
	# a sanitizer report fails whatever attr.py said: the tests both perfs
	# cannot pass here still run this perf's option and event parsing
	if grep -q -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$TMP/perf.err" 2>/dev/null; then
		note+=" SANITIZER: $(grep -m1 -E 'Sanitizer|runtime error:' "$TMP/perf.err")" flagged=1
	fi
	[ -z "$flagged" ] || bad+=("$name")
	printf '  %-36s %-8s %-8s %s\n' "$name" "$s" "$p" "$note" >&2
	case $p in
	fail) report+="  $name:"$'\n'$(why_failed "$TMP/this.log")$'\n' ;;
	unsupp|error)
		report+="  $name: $(grep -o "ret '.*', expected '.*'" "$TMP/this.log")"
		said=$(grep -v '^ *$' "$TMP/perf.err" 2>/dev/null | head -2 | tr -s '\n ' ' ')
		report+="${said:+ (perf said: $said)}"$'\n'
		[ "$p" = error ] && report+="$(tail -3 "$TMP/this.log" | sed 's/^/    /')"$'\n' ;;
	esac
done
[ "$nr" -gt 0 ] || skip "no test-record-* in $ATTR_TESTS/attr"
# a runner that cannot run at all (say, a python without SafeConfigParser)
# would leave nothing to compare
[ "$stock_passed" -gt 0 ] || fail "the stock perf passes none of the $nr attr tests: $(tail -1 "$TMP/stock.log")"
[ -z "$report" ] || printf 'this perf, where it does not pass:\n%s' "$report" >&2
[ ${#bad[@]} -eq 0 ] ||
	fail "${#bad[@]} attr tests: ${bad[*]} (of $stock_passed the stock passes; see the table)"
echo "  all $stock_passed attr tests the stock passes pass with this perf" \
	"(and the $stock_died where the stock died)" >&2
