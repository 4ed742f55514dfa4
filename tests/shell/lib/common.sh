# Shared helpers for the end-to-end tests: sourced, never run on its own.
# Each test records with $PERF (this tool) and reads back with the stock perf.

# 77, as automake does: 1 and 2 are what bash itself exits with on errors
SKIP=77
PERF=${PERF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/perf}
STOCK=${STOCK_PERF:-/usr/bin/perf}
# not /tmp/perf-*: stock perf reads such paths as JIT perf-map files
TMP=$(mktemp -d /tmp/frtest.XXXXXX)
# the build-id cache this perf fills (and hands the stock perf it runs as
# --buildid-dir): the test's own, never the user's ~/.debug
export PERF_BUILDID_DIR=$TMP/.debug
BG_PIDS=()

cleanup() {
	for p in "${BG_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	if [ -n "$PERF_TEST_KEEP" ]; then echo "  kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

log() { [ -n "$PERF_TEST_VERBOSE" ] && echo "  $*" >&2; return 0; }
fail() { echo "  FAIL: $*" >&2; exit 1; }
skip() { echo "  SKIP: $*" >&2; exit $SKIP; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root: $*"; }

# OUT, a binary of lib/tagged.c with a build id of its own (TAG, a number)
build_tagged() {	# OUT TAG [cc flags]
	cc -O1 -Wl,--build-id -DTAG="$2" "${@:3}" -o "$1" \
		"$(dirname "${BASH_SOURCE[0]}")/tagged.c" || fail "compile $1"
}

# Skips unless this perf's BPF programs (--off-cpu, --switch-output-when)
# can load here: root, and the kernel's BTF they are relocated against
# (CO-RE). WHY: what else the test needs root for.
need_bpf() {	# [WHY]
	need_root "loading BPF programs${1:+, $1}"
	[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF (/sys/kernel/btf/vmlinux)"
}

need_cc() {	# [WHAT FOR]
	command -v cc >/dev/null || skip "no C compiler${1:+ for $1}"
}

# ONLINE: cpu 1's online switch, for a test that takes cpu 1 offline;
# skips unless cpu 1 is online and may go offline. Whatever ends the
# test, cpu 1 comes back.
need_cpu1_hotplug() {
	ONLINE=/sys/devices/system/cpu/cpu1/online
	[ -w $ONLINE ] || skip "cpu 1 cannot go offline here (no $ONLINE)"
	[ "$(cat $ONLINE)" = 1 ] || skip "cpu 1 is offline"
	trap 'echo 1 > $ONLINE; cleanup' EXIT
	trap 'exit 1' INT TERM HUP
}

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

# Reads FILE with the stock perf in every way users do and prints the first
# complaint on stderr (in this order), nothing if there is none. The reads
# share nothing but the file: they run side by side, on a CPU a test
# mostly leaves idle.
stock_complaint() {
	local f=$1 out d i cmds pids=()
	cmds=("report --stats" "report --header-only -I" "script"
	      "script --show-task-events --show-mmap-events" "report --stdio" "evlist -v")
	d=$(mktemp -d "$TMP/complaint.XXXXXX") || { echo "stock_complaint: no temporary directory"; return; }
	for i in "${!cmds[@]}"; do
		"$STOCK" ${cmds[$i]} -i "$f" > /dev/null 2> "$d/$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in "${!cmds[@]}"; do
		out=$(cat "$d/$i")
		[ -z "$out" ] || { echo "stock 'perf ${cmds[$i]} -i $f' said: $(echo "$out" | head -3)"; break; }
	done
	rm -rf "$d"
}

# DIR/perf for the stock perf's own shell tests: `perf record` (and `perf
# --buildid-dir D record`) is the perf under test, every other subcommand
# the stock's.
route_record() {	# DIR
	mkdir -p "$1" || return
	cat > "$1/perf" <<EOF
#!/bin/sh
case "\$1" in
record) exec "$PERF" "\$@" ;;
--buildid-dir) [ "\$3" = record ] && exec "$PERF" "\$@" ;;
--buildid-dir=*) [ "\$2" = record ] && exec "$PERF" "\$@" ;;
esac
exec "$STOCK" "\$@"
EOF
	chmod +x "$1/perf"
}

# LOAD: the helper that loads a BPF program (tests/bpf-load), which make
# builds beside perf.
need_bpf_load() {
	LOAD=$(dirname "$(readlink -f "$PERF")")/bpf-load
	[ -x "$LOAD" ] || fail "no $LOAD: make builds it"
}

# ./loads.sh: loads BPF programs NAME1 .. NAMEN one after the other, each
# unloaded before the next (need_bpf_load first).
bpf_loads_sh() {	# N NAME
	cat > loads.sh <<EOF
#!/bin/sh
i=0
while [ \$i -lt $1 ]; do i=\$((i + 1)); "$LOAD" $2\$i < /dev/null > /dev/null || exit 1; done
EOF
	chmod +x loads.sh
}

# Any stderr of the stock perf reading FILE is a failure.
stock_reads_clean() {
	local out
	out=$(stock_complaint "$1")
	[ -z "$out" ] || fail "$out"
}

# 0x-prefixed hex per line -> decimal per line (mawk has no strtonum);
# the line's other fields, if any, follow it
hex2dec() {
	awk '{ v = 0; s = tolower($1); sub(/^0x/, "", s)
	       for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	       printf "%d", v; for (i = 2; i <= NF; i++) printf " %s", $i; printf "\n" }'
}

# Waits until PID has exec'd COMM (a `cmd &` is bash for a moment).
wait_exec() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || fail "$1 ended before it ran $2"
		sleep 0.01
	done
	fail "$1 is not $2 after 30 s"
}

# Polls until CMD succeeds; fails with WHAT after 30 s. With WAIT_LOG set
# (WAIT_LOG=rec.err wait_until ...), the failure ends with how that file
# ended then (what a recorder last said), not how it was when the wait began.
wait_until() {	# WHAT CMD...
	local what=$1 i
	shift
	for ((i = 0; i < 3000; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.01
	done
	fail "$what after 30 s${WAIT_LOG:+; $WAIT_LOG ends: $(grep -v '^libbpf' "$WAIT_LOG" 2>/dev/null |
		tail -6 | tr '\n' ';')}"
}

ended() { ! kill -0 "$1" 2>/dev/null; }

# Waits (5 s at most: SIGINT must end a recorder within a second plus the
# dump in progress) until PID is gone; fails naming WHAT if it is not.
wait_gone() {
	for _ in $(seq 500); do ended "$1" && return 0; sleep 0.01; done
	fail "$2: the recorder did not end within 5 s"
}

# Waits for recorder PID that signal SIG (INT, TERM, HUP) stopped: like the
# stock perf it must die of SIG (a shell reads 128+N) once its file is
# complete. 1 with the status it had in STOPPED_STATUS otherwise.
wait_stopped() {	# PID SIG
	local st=0
	wait "$1" || st=$?
	STOPPED_STATUS=$st
	[ "$st" = $((128 + $(kill -l "$2"))) ]
}

# Waits until FILE has a line matching the grep PATTERN; a failure says
# how FILE ended.
wait_line() {
	WAIT_LOG=$1 wait_until "no line '$2' in $1" grep -q -- "$2" "$1"
}

# Waits until recorder PID is in its main loop: its rings are mapped and it
# sleeps in poll(2), which it only reaches once the events are open, the
# existing tasks synthesized and the workload started. Polls; never a fixed
# sleep.
wait_ready() {
	local pid=$1 i wchan
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$pid" 2>/dev/null || fail "recorder $pid ended before it was ready"
		if grep -q 'anon_inode:\[perf_event\]' "/proc/$pid/maps" 2>/dev/null; then
			wchan=$(cat "/proc/$pid/wchan" 2>/dev/null)
			[[ $wchan == *poll* ]] && return 0
		fi
		sleep 0.01
	done
	fail "recorder $pid not in its poll loop after 30 s (wchan ${wchan:-?})"
}

# PID's CPU time so far in clock ticks (utime + stime; comm may hold spaces)
cpu_ticks_of() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	awk '{ print $12 + $13 }' <<< "$stat"
}

# Waits until PID has run SECONDS more on a CPU: a sampled task's samples
# come with its CPU time, which a busy machine hands out slowly, so a test
# that needs N samples waits for the time they take, not for a fixed
# sleep. Fails after 60 s, or when PID ends first.
wait_cpu() {	# PID SECONDS
	local t0 t want i
	t0=$(cpu_ticks_of "$1") || fail "wait_cpu: no task $1"
	want=$(awk -v s="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%d", s * hz + 0.999 }')
	for ((i = 0; i < 6000; i++)); do
		t=$(cpu_ticks_of "$1") || fail "task $1 ended before it ran $2 s more"
		[ $((t - t0)) -ge "$want" ] && return 0
		sleep 0.01
	done
	fail "task $1 ran $(( (t - t0) )) of $want ticks in 60 s"
}

# script_same FILE TAG ARGS...: this perf's and the stock's perf script -i
# FILE ARGS exit alike and print the same bytes on stdout and, unless
# SCRIPT_SAME_STDOUT is set, on stderr; the outputs stay in TAG.ours,
# TAG.stock, TAG.ours.err and TAG.stock.err
script_same() {
	local f=$1 tag=$2 ours stock s
	shift 2
	# side by side, as they share nothing but the file (not stdin: -i -)
	[ "$f" = - ] || { "$STOCK" script -i "$f" "$@" > "$tag.stock" 2> "$tag.stock.err" & s=$!; }
	"$PERF" script -i "$f" "$@" > "$tag.ours" 2> "$tag.ours.err"
	ours=$?
	if [ -n "$s" ]; then
		wait $s
	else
		"$STOCK" script -i "$f" "$@" > "$tag.stock" 2> "$tag.stock.err"
	fi
	stock=$?
	[ "$ours" = "$stock" ] || fail "$f $*: exit $ours, the stock's $stock: $(head -2 "$tag.ours.err")"
	cmp -s "$tag.ours" "$tag.stock" ||
		fail "$f $*: ours and the stock's differ: $(diff "$tag.ours" "$tag.stock" | head -6)"
	[ -n "$SCRIPT_SAME_STDOUT" ] || cmp -s "$tag.ours.err" "$tag.stock.err" ||
		fail "$f $*: ours and the stock's say: $(diff "$tag.ours.err" "$tag.stock.err" | head -4)"
	log "$f $*: $(wc -l < "$tag.ours") lines alike"
}
