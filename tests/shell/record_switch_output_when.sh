#!/bin/bash
# --switch-output-when: a span above its condition fires one dump whose record (condition, task, duration) the stock's perf script prints, spans below fire none, for offcpu, syscall and runqlat; pid=, tid=, comm=, cgroup= filter; --switch-output-max-rate applies; bad conditions and BPF that cannot run are refused in one line; -v lists the programs, gone after a SIGKILL
. "$(dirname "$0")/lib/common.sh"
need_bpf
need_stock
command -v bpftool >/dev/null || skip "no bpftool (tests/install-deps)"
cd "$TMP" || exit 1

# tasks named for the conditions: nothing else on the machine is named so
# (sleep blocks in clock_nanosleep; perf test -w spin stays runnable)
for n in swo-nap swo-short swo-decoy; do cp /bin/sleep $n || fail "cp $n"; done
for n in swo-hog swo-idle; do ln -s "$(readlink -f "$PERF")" $n || fail "ln $n"; done

# rec NAME OPTS...: a flight recorder of every CPU, in its loop (REC)
rec() {
	local name=$1
	shift
	"$PERF" record -v --overwrite --switch-output -a -e cpu-clock -F 49 -o "$name.data" \
		"$@" 2> "$name.err" &
	REC=$!
	BG_PIDS+=($REC)
	wait_ready $REC
}

# stop NAME: SIGINT, the last dump written; the stock reads every dump clean
stop() {
	local f
	kill -INT $REC
	wait_stopped $REC INT || fail "$1: recorder status $STOPPED_STATUS: $(tail -3 "$1.err")"
	for f in "$1".data.*; do [ -e "$f" ] && stock_reads_clean "$f"; done
}

# records NAME: "FILE: LINE" for each trigger record the stock's perf
# script prints in NAME's dumps
records() {
	local f
	for f in "$1".data.*; do
		[ -e "$f" ] || continue
		"$STOCK" script -i "$f" 2>/dev/null |
			sed -n 's/^ *BPF string: "\(.*\)"$/\1/p' | sed "s|^|$f: |"
	done
}

# one_record NAME REGEX: NAME's dumps hold one trigger record, matching
# REGEX, in the dump its trigger made (the first), whose duration is D ms
one_record() {
	local r first
	r=$(records "$1")
	[ "$(echo "$r" | grep -c .)" = 1 ] || fail "$1: want one trigger record, got: $r"
	echo "$r" | grep -Eq "$2" || fail "$1: record '$r' does not match '$2'"
	first=$(sed -n "s/.*Dump \($1\.data\.[0-9]*\) .*/\1/p" "$1.err" | head -1)
	[ "${r%%: *}" = "$first" ] || fail "$1: the record is in ${r%%: *}, not $first"
	RECORD_MS=$(echo "$r" | sed -n 's/.* \([0-9]*\)\.[0-9]* ms$/\1/p')
}

# offcpu: ten blocks of 30 ms under a 100 ms condition fire nothing, one of
# 300 ms fires one dump that names it
rec off --switch-output-when='offcpu>100ms,comm=swo-short' \
	--switch-output-when='offcpu>100ms,comm=swo-nap'
for i in $(seq 10); do ./swo-short 0.03 || fail "swo-short"; done
./swo-nap 0.3 &
nap=$!
wait $nap || fail "swo-nap"
wait_line off.err "Dump off\.data"
stop off
one_record off "^off\.data\.[0-9]+: offcpu>100ms,comm=swo-nap: swo-nap pid $nap tid $nap offcpu [0-9]+\.[0-9]{6} ms$"
[ "$RECORD_MS" -ge 300 ] && [ "$RECORD_MS" -lt 5000 ] || fail "off: blocked for $RECORD_MS ms?"
# -v: only the kinds in use are loaded, each named
grep -q -- "--switch-output-when: BPF program trigger_switch (tp_btf/sched_switch) id [0-9]" off.err ||
	fail "-v does not list the program: $(head -5 off.err)"
grep -q "trigger_sys_enter\|trigger_wakeup" off.err && fail "kinds not in use loaded: $(cat off.err)"
log "off: $RECORD_MS ms, $(grep 'dump cut' off.err)"

# syscall: the same with one syscall's duration; then, killed, the
# recorder leaves no program behind (nothing pinned)
rec sys --switch-output-when='syscall>100ms,comm=swo-short' \
	--switch-output-when='syscall>100ms,comm=swo-nap'
ids=$(sed -n 's/^--switch-output-when: BPF program trigger_sys_e.* id \([0-9]*\)$/\1/p' sys.err)
[ "$(echo "$ids" | wc -w)" = 2 ] || fail "sys: -v lists: $(head -5 sys.err)"
for i in $(seq 10); do ./swo-short 0.03 || fail "swo-short"; done
./swo-nap 0.3 &
nap=$!
wait $nap || fail "swo-nap"
wait_line sys.err "Dump sys\.data"
grep -q trigger_switch sys.err && fail "sys: offcpu's program loaded: $(cat sys.err)"
kill -KILL $REC
wait $REC 2>/dev/null
gone() { for id in $ids; do bpftool prog show id "$id" >/dev/null 2>&1 && return 1; done; return 0; }
wait_until "programs $ids still loaded after the recorder's SIGKILL" gone
one_record sys "^sys\.data\.[0-9]+: syscall>100ms,comm=swo-nap: swo-nap pid $nap tid $nap syscall [0-9]+ took [0-9]+\.[0-9]{6} ms$"
[ "$RECORD_MS" -ge 300 ] && [ "$RECORD_MS" -lt 5000 ] || fail "sys: a syscall of $RECORD_MS ms?"

# runqlat: a SCHED_IDLE task pinned beside a busy normal one waits for its
# CPU for long spans, the normal one only for short ones; beyond the first
# trigger --switch-output-max-rate ignores and counts them, and their
# records go with the last dump (the idle one outlives the hog: on an idle
# machine its last long wait ends a second before the stop)
rec rq --switch-output-max-rate=1/1h --switch-output-when='runqlat>50ms,comm=swo-hog' \
	--switch-output-when='runqlat>50ms,comm=swo-idle'
taskset -c 0 ./swo-hog test -w spin 1.5 &
hog=$!
taskset -c 0 chrt --idle 0 ./swo-idle test -w spin 2.5 &
idle=$!
wait $hog || fail "swo-hog"
wait $idle || fail "swo-idle"
wait_line rq.err "Dump rq\.data"
stop rq
r=$(records rq)
n=$(echo "$r" | grep -c .)
[ "$n" -ge 1 ] || fail "rq: no trigger record: $(cat rq.err)"
echo "$r" | grep -v "runqlat>50ms,comm=swo-idle: swo-idle pid $idle tid $idle runqlat [0-9]*\.[0-9]* ms$" |
	grep . && fail "rq: records of another task or condition"
[ "$(grep -c 'Dump rq\.data' rq.err)" = 2 ] || fail "rq: the rate limit let through: $(cat rq.err)"
# each record but the first was a trigger ignored, but one whose span
# ended as the stop came (with every CPU busy the idle task waits till its
# end): the stop is served first, its record goes with the last dump
k=$(sed -n 's/.*trigger ignored: over --switch-output-max-rate (\([0-9]*\) ignored so far).*/\1/p' rq.err | tail -1)
[ "${k:-0}" -eq $((n - 1)) ] || [ "${k:-0}" -eq $((n - 2)) ] ||
	fail "rq: $n records, ${k:-0} triggers said ignored: $(cat rq.err)"

# qualifiers: pid= and tid= take one task, cgroup= the tasks of one
# cgroup v2; a task blocked before its exec (as bash) is not swo-nap, and
# swo-decoy, blocked as long, matches none
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cg" ] || skip "no cgroup2 mount"
mkdir "$cg/perf-swo-$$" || fail "mkdir $cg/perf-swo-$$"
trap 'rmdir "$cg/perf-swo-$$" 2>/dev/null; cleanup' EXIT
mkfifo g1 g2
(read -r _ < g1; exec ./swo-nap 0.3) &
p=$!
(read -r _ < g2; exec ./swo-nap 0.3) &
g=$!
echo $g > "$cg/perf-swo-$$/cgroup.procs" || fail "moving $g into $cg/perf-swo-$$"
rec q --switch-output-when="syscall>100ms,pid=$p,comm=swo-nap" \
	--switch-output-when="offcpu>100ms,tid=$p,comm=swo-nap" \
	--switch-output-when="offcpu>100ms,cgroup=/perf-swo-$$"
echo > g1
echo > g2
./swo-decoy 0.3 || fail "swo-decoy"
wait $p || fail "swo-nap $p"
wait $g || fail "swo-nap $g"
stop q
r=$(records q | sed 's/^[^ ]* //' | sed 's/ [0-9.]* ms$//' | sort)
want=$(printf '%s\n' "offcpu>100ms,cgroup=/perf-swo-$$: swo-nap pid $g tid $g offcpu" \
	"offcpu>100ms,tid=$p,comm=swo-nap: swo-nap pid $p tid $p offcpu" \
	"syscall>100ms,pid=$p,comm=swo-nap: swo-nap pid $p tid $p syscall 230 took" | sort)
# the syscall's number is the architecture's
r=$(echo "$r" | sed 's/syscall [0-9]* took/syscall 230 took/')
[ "$r" = "$want" ] || fail "qualifiers: records
$r
want
$want"

# refusals: one line naming what is wrong, nothing recorded
refused() {	# LINE ARGS...
	local want=$1 st=0
	shift
	"$PERF" record -o bad.data "$@" -- true > bad.out 2> bad.err || st=$?
	[ "$st" != 0 ] || fail "$* was not refused"
	[ "$(cat bad.err)" = "$want" ] || fail "$*: said '$(cat bad.err)', want '$want'"
	ls bad.data* >/dev/null 2>&1 && fail "$*: wrote $(ls bad.data*)"
	return 0
}
flight=(--overwrite --switch-output -a -e cpu-clock)
refused "perf record: --switch-output-when: 'offcpu>20xs': unknown unit 'xs' (ns, us, ms, s)" \
	"${flight[@]}" --switch-output-when='offcpu>20xs'
refused "perf record: --switch-output-when: 'runqlat>5ms,pid=x1': pid 'x1' is not a task id" \
	"${flight[@]}" --switch-output-when=syscall\>1s --switch-output-when='runqlat>5ms,pid=x1'
refused "perf record: --switch-output-when: 'syscall>5ms,cgroup=/no-such-$$': cgroup /no-such-$$: $cg/no-such-$$: No such file or directory" \
	"${flight[@]}" --switch-output-when="syscall>5ms,cgroup=/no-such-$$"
refused "perf record: --switch-output-when needs --switch-output or --overwrite" \
	-a -e cpu-clock --switch-output-when='offcpu>1s'
# a kernel without BTF: refused in one line, and the rest records as before
PERF_TEST_VMLINUX_BTF=$TMP/no-btf refused \
	"perf record: --switch-output-when: cannot load BPF: $TMP/no-btf: No such file or directory" \
	"${flight[@]}" --switch-output-when='offcpu>1s'
PERF_TEST_VMLINUX_BTF=$TMP/no-btf "$PERF" record -q "${flight[@]}" -o nobtf.data -- \
	"$PERF" test -w spin 0.1 2> nobtf.err || fail "without the option: $(cat nobtf.err)"
ls nobtf.data.* >/dev/null 2>&1 || fail "without the option nothing was recorded"
exit 0
