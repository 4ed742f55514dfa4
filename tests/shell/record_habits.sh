#!/bin/bash
# perf record as perf users expect it: exit status, options, losses, quiet end
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# PERF's exit status, stopped by SIG (none: left to end) once recording
# into TAG.data (stderr in TAG.err); "hung" for one still running 30 s
# after the signal. The stock 6.1 can lose a signal that lands between
# its check of its done flag and a poll with no timeout (-p of a sleeping
# task: no event ever wakes it): found back in that poll 2 s after the
# last one, it gets the signal again, as a user presses Ctrl-C again
# (never while it ends: a second SIGINT there would change the signal it
# dies of).
# SIG may be two, sent one after the other (HUP,INT). Each recorder
# starts with SIGHUP at its default, whatever the runner inherited (a
# nohup makes the stock ignore it), or as $HUP says (ignore: as under
# nohup).
stop_status() {	# PERF TAG SIG ARGS...
	local perf=$1 tag=$2 first=${3%%,*} sig=${3##*,} r st=0 t0 sent
	shift 3
	env --${HUP:-default}-signal=HUP "$perf" record -q -e cpu-clock -o "$tag.data" "$@" \
		> /dev/null 2> "$tag.err" &
	r=$!
	if [ "$sig" != none ]; then
		wait_ready $r
		[ "$first" = "$sig" ] || kill -"$first" $r
		kill -"$sig" $r
		t0=$SECONDS sent=$SECONDS
		while kill -0 $r 2>/dev/null; do
			if ((SECONDS - t0 >= 30)); then
				kill -KILL $r 2>/dev/null
				echo "  $perf record $* still running 30 s after SIG$sig: $(tail -3 "$tag.err")" >&2
				echo hung
				return
			fi
			if [ "$perf" = "$STOCK" ] && ((SECONDS - sent >= 2)) &&
			   [[ $(cat /proc/$r/wchan 2>/dev/null) == *poll* ]]; then
				echo "  the stock's record $* in its poll $((SECONDS - t0)) s after SIG$sig: sent again" >&2
				kill -"$sig" $r 2>/dev/null
				sent=$SECONDS
			fi
			sleep 0.01
		done
	fi
	wait $r || st=$?
	echo "$st"
}

# status WANT SIG ARGS...: this perf's status is WANT, and the stock's.
# The stock's recording runs beside this perf's: at its end it waits up
# to a second for its side band thread, on no CPU.
status() {
	local want=$1 got stock s
	shift
	# (its shell's lines, such as bash's "Hangup" for a job a signal
	# ended, kept for a failure)
	stop_status "$STOCK" stock-st "$@" > stock-st.status 2> stock-st.sh.err &
	s=$!
	got=$(stop_status "$PERF" st "$@")
	wait $s
	stock=$(cat stock-st.status)
	[ "$got" = "$want" ] || fail "record ${*:2} stopped by $1: exit status $got, want $want"
	[ "$stock" = "$want" ] ||
		fail "the stock's record ${*:2} ($1): exit status $stock, not $want $(cat stock-st.sh.err)"
}

sleep 600 &
target=$!
BG_PIDS+=($target)
status 130 INT -a
status 130 INT --overwrite -a
status 130 INT -p $target
status 143 TERM -a
status 143 TERM -p $target
status 129 HUP -a
# under nohup a hangup is no end: both record on, and a SIGINT ends them
HUP=ignore status 130 HUP,INT -a
HUP=ignore status 130 HUP,INT -p $target
# the workload is sent SIGTERM and perf ends as it did
status 143 INT -- sleep 600
status 143 TERM -- sleep 600
status 0 none -- true
status 3 none -- sh -c 'exit 3'
status 137 none -- sh -c 'kill -KILL $$'
status 255 none -- /nonexistent-program
kill $target
wait $target 2>/dev/null
# the file is complete whatever signal ended the recording
r=$(stop_status "$PERF" st HUP -a)
[ "$r" = 129 ] || fail "record -a after SIGHUP: exit status $r"
stock_reads_clean st.data
# dies of the signal (a parent's waitpid sees it), as the stock does,
# with no core of its own
python3 - "$PERF" <<'PY' || fail "record of a killed workload: not killed by its signal"
import os, subprocess, sys
p = subprocess.Popen([sys.argv[1], "record", "-q", "-e", "cpu-clock", "-o", "k.data", "--",
                      "sh", "-c", "kill -SEGV $$"], stderr=subprocess.DEVNULL)
_, st = os.waitpid(p.pid, 0)
sys.exit(0 if os.WIFSIGNALED(st) and os.WTERMSIG(st) == 11 and not os.WCOREDUMP(st) else 1)
PY

# an image with the running kernel's build id, for --vmlinux
echo 'int x;' | cc -x c -c -o "$TMP/vmlinux.o" - &&
	objcopy --add-section .note.gnu.build-id=/sys/kernel/notes "$TMP/vmlinux.o" "$TMP/vmlinux" ||
	fail "cannot make an image with the kernel's build id"
# the stock's options: accepted as the stock accepts them (both perfs run,
# same exit status), their one line where the stock says one
opt_status() {	# PERF ARGS...: exit status of a short recording
	opt_status_in opt "$@"
}
opt_status_in() {	# TAG PERF ARGS...: the same into TAG.data, TAG.err
	local tag=$1 perf=$2
	shift 2
	"$perf" record "$@" -e cpu-clock -o "$tag.data" -- true > /dev/null 2> "$tag.err"
	echo $?
}
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
opts=(--aio --aio=2 --no-aio --debuginfod --debuginfod=http://localhost:1
      --num-thread-synthesize=2 --strict-freq --transaction "-m 8,16" "-m ,16" "-m 16K,64K"
      "--strict-freq -F $max" "--strict-freq -F $((max + 1))" "-m 8,abc"
      "--strict-freq -e cpu-clock/freq=$max/" "--strict-freq -e cpu-clock/freq=$((max + 1))/"
      --clang-opt=-O2 --clang-path=/nonexistent/clang --vmlinux=/nonexistent/vmlinux
      --vmlinux=$TMP/vmlinux)
# the stock's statuses all at once: each of its recordings waits up to a
# second at its end for its side band thread, on no CPU
stock_opts=()
for i in "${!opts[@]}"; do
	opt_status_in "stock-opt$i" "$STOCK" ${opts[$i]} > "stock-opt$i.status" &
	stock_opts+=($!)
done
wait "${stock_opts[@]}"
for i in "${!opts[@]}"; do
	o=${opts[$i]}
	got=$(opt_status "$PERF" $o)
	want=$(cat "stock-opt$i.status")
	[ "$got" = "$want" ] || fail "record $o: exit status $got, the stock's $want: $(cat opt.err)"
	case "$want:$o" in
	0:*debuginfod*) ;;
	0:*) opt_status "$PERF" -q $o > /dev/null
	     [ -s opt.err ] && fail "record -q $o: $(cat opt.err)"
	     stock_reads_clean opt.data ;;
	esac
done
opt_status "$PERF" --debuginfod > /dev/null
[ "$(grep -v '^\[ perf record' opt.err)" = \
  "WARNING: debuginfod support requested, but perf is not built with it" ] ||
	fail "--debuginfod: $(cat opt.err)"
opt_status "$PERF" --strict-freq -F $((max + 1)) > /dev/null
grep -q "^error: Maximum frequency rate ($max Hz) exceeded" opt.err || fail "--strict-freq: $(cat opt.err)"
# --vmlinux: an unreadable file in the stock's words; an image checked
# against the running kernel's build id
opt_status "$PERF" --vmlinux=/nonexistent/vmlinux > /dev/null
[ "$(cat opt.err)" = "Invalid file: /nonexistent/vmlinux" ] || fail "--vmlinux: $(cat opt.err)"
# (the stock 6.1 aborts on this one: "corrupted size vs. prev_size")
opt_status "$PERF" --vmlinux=/usr/bin/true > /dev/null
grep -q "^Warning: --vmlinux /usr/bin/true: build id [0-9a-f]*, not the running kernel's" opt.err ||
	fail "--vmlinux of another build id: $(cat opt.err)"
opt_status "$PERF" -v --vmlinux="$TMP/vmlinux" > /dev/null
grep -q "^perf record: --vmlinux $TMP/vmlinux: the running kernel's image" opt.err ||
	fail "--vmlinux of the kernel's build id: $(cat opt.err)"
opt_status "$PERF" -v --clang-opt=-O2 > /dev/null
grep -q "^perf record: --clang-opt: no BPF scriptlet to compile" opt.err ||
	fail "-v --clang-opt: $(cat opt.err)"
# a freq= term over the maximum: refused before anything opens, in one line
opt_status "$PERF" --strict-freq -e cpu-clock/freq=$((max + 1))/ > /dev/null
[ "$(cat opt.err)" = "error: cpu-clock: Maximum frequency rate ($max Hz) exceeded by freq=$((max + 1)): lower it or raise /proc/sys/kernel/perf_event_max_sample_rate (--strict-freq)" ] ||
	fail "--strict-freq, freq= term: $(cat opt.err)"
# -v says what each does here
opt_status "$PERF" -v --transaction --aio --num-thread-synthesize=4 -m 8,16 > /dev/null
for l in "--transaction: no event recorded here has transaction flags" "--aio: the rings are written" \
	 "--num-thread-synthesize: one thread" "-m: no AUX area event"; do
	grep -q -- "$l" opt.err || fail "-v does not say '$l': $(cat opt.err)"
done

# the build-id cache line: only with -v for a binary few samples hit
# (cold: some 4% of them, gone before the end), and said without -v for
# one the samples hit most (hot, gone too)
build_tagged cold 71
build_tagged hot 72
for v in "" -v; do
	cp cold cold.run
	"$PERF" --buildid-dir "$TMP/bc" record $v -e cpu-clock:u -o cold.data -- \
		sh -c "./cold.run 20000000 && rm cold.run && ./hot 500000000" 2> cold.err ||
		fail "record $v: $(cat cold.err)"
	n=$("$STOCK" script -i cold.data --comms cold.run -F ip 2>/dev/null | grep -c .)
	[ "$n" -ge 1 ] || fail "no sample of the cold binary"
	if [ -z "$v" ]; then
		grep -q 'build-id cache' cold.err && fail "a binary few samples hit is said: $(cat cold.err)"
	else
		grep -q "cold.data: build-id cache: 1 of .* binaries left out (1 unreadable.*cold.run" \
			cold.err || fail "-v: the cold binary left out is not said: $(cat cold.err)"
	fi
done
cp hot hot.run
"$PERF" --buildid-dir "$TMP/bc" record -e cpu-clock:u -o hot.data -- \
	sh -c "./cold 20000000 && ./hot.run 500000000 && rm hot.run" 2> hot.err ||
	fail "record: $(cat hot.err)"
grep -q "hot.data: build-id cache: 1 of .* binaries left out (1 unreadable.*hot.run.*one of the binaries most hit" \
	hot.err || fail "the hot binary left out is not said: $(cat hot.err)"

# Events the kernel dropped: the counts of the LOST records, as the stock
# reads them
lost_in() {
	"$STOCK" script -i "$1" --show-lost-events -F cpu 2>/dev/null |
		awk '/PERF_RECORD_LOST/ {s += $NF} END {print s + 0}'
}

# default rings lose nothing at a million records a second on each CPU
# (perf's 512K lost thousands: bench 4), and -v says what was picked
"$PERF" record -v -a -c 1 -e syscalls:sys_enter_close -o close.data -- sh -c \
	"taskset -c 0 '$PERF' test -w closes 1000000 & taskset -c 1 '$PERF' test -w closes 1000000; wait" \
	> /dev/null 2> close.err || fail "record -a of closes: $(cat close.err)"
grep -q '^perf record: rings of [0-9]*K a CPU' close.err || fail "-v does not say the rings' size: $(cat close.err)"
n=$(lost_in close.data)
[ "$n" = 0 ] || fail "record -a at a million closes a second a CPU: $n events lost; $(grep 'rings of' close.err)"
n=$("$STOCK" script -i close.data -F event 2>/dev/null | grep -c sys_enter_close)
[ "$n" -ge 2000000 ] || fail "record -a of closes: $n of the 2000000 closes"

# --call-graph dwarf -p of a busy loop: 8K stacks at 4 kHz lose nothing
"$PERF" test -w spin 1 &
spin=$!
BG_PIDS+=($spin)
"$PERF" record -q --call-graph dwarf -e cpu-clock -p $spin -o dwarf.data 2> dwarf.err ||
	fail "record --call-graph dwarf -p: $(cat dwarf.err)"
n=$(lost_in dwarf.data)
[ "$n" = 0 ] || fail "record --call-graph dwarf -p: $n samples lost"
n=$("$STOCK" script -i dwarf.data -F ip 2>/dev/null | grep -c .)
[ "$n" -ge 100 ] || fail "record --call-graph dwarf -p: $n samples"
exit 0
