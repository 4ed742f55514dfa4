#!/bin/bash
# perf record targets and timing: --per-thread, -u, -p with a workload, -G, --all-cgroups, -D, --timestamp-filename, --timestamp-boundary, --max-size, --mmap-flush; read back by the stock perf
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "-u of another user, -G and cgroups"
cd "$TMP" || exit 1

# bad NAME CODE MESSAGE ARGS...: perf record ARGS exits CODE and says MESSAGE
bad() {
	local name=$1 code=$2 msg=$3 rc
	shift 3
	"$PERF" record -o "$name.data" "$@" > "$name.out" 2>&1
	rc=$?
	[ $rc = "$code" ] || fail "$*: exit $rc, want $code: $(cat "$name.out")"
	grep -qF -- "$msg" "$name.out" || fail "$*: no '$msg' in: $(cat "$name.out")"
	[ ! -e "$name.data" ] || fail "$*: wrote $name.data"
}
# pids NAME: "count pid" per sampled pid of NAME.data, most samples first
# (the stock decodes a file once: NAME.pids)
pids() {
	[ -e "$1.pids" ] || "$STOCK" script -i "$1.data" -F pid 2>/dev/null > "$1.pids"
	sort "$1.pids" | uniq -c | sort -rn
}
# nsamples NAME PID: samples of PID in NAME.data
nsamples() {
	pids "$1" | awk -v p="$2" '$2 == p { print $1 }' | grep . || echo 0
}
spinner() {	# runs the spin workload in the background for 60 s: $! is its pid
	"$@" "$PERF" test -w spin 60 &
	BG_PIDS+=($!)
	wait_exec $! perf
}

## --per-thread: one ring per thread on any CPU, no inheritance (the kernel
## maps no ring of an inherited event on cpu -1), no TIME unless -T
wl=(sh -c '"$0" test -w spin 0.3 & exec "$0" test -w spin 0.3' "$PERF")
for mode in inherit per-thread; do
	opt=; [ $mode = per-thread ] && opt=--per-thread
	"$PERF" record -q $opt -e cpu-clock -o $mode.data -- "${wl[@]}" 2> $mode.err ||
		fail "record $opt: $(cat $mode.err)"
	[ $mode = inherit ] || stock_reads_clean $mode.data
	"$STOCK" evlist -v -i $mode.data 2>/dev/null > $mode.attr
	log "$mode: $(pids $mode | tr '\n' ' ')"
	npids=$(pids $mode | wc -l)
	# (under ASan, LeakSanitizer's tracer, a child too, spins at the exit)
	busy=$(pids $mode | awk '$1 > 100' | wc -l)
	[ "$busy" -gt 0 ] || fail "$mode: no task has 100 samples: $(pids $mode)"
	if [ $mode = inherit ]; then
		[ "$busy" -ge 2 ] || fail "inherit: $busy busy tasks, want the workload and its child"
		grep -q 'inherit: 1' $mode.attr || fail "inherit: no inherit: $(cat $mode.attr)"
	else
		[ "$npids" = 1 ] || fail "--per-thread: samples of $npids tasks, the child is not followed"
		! grep -q 'inherit: 1' $mode.attr || fail "--per-thread inherits: $(cat $mode.attr)"
		grep -q 'sample_type: IP|TID|PERIOD,' $mode.attr ||
			fail "--per-thread: want IP|TID|PERIOD as the stock: $(cat $mode.attr)"
	fi
done
"$PERF" record -e cpu-clock --per-thread -a -o pta.data -- true > pta.out 2>&1 ||
	fail "--per-thread -a: $(cat pta.out)"
grep -qx 'SYSTEM/CPU switch overriding PER-THREAD' pta.out || fail "--per-thread -a: $(cat pta.out)"
"$STOCK" evlist -v -i pta.data 2>/dev/null | grep -q 'inherit: 1' || fail "--per-thread -a is not system-wide"

## -p with a workload: the workload only says how long -p PID is recorded
spinner
sp=$!
start=$SECONDS
"$PERF" record -q -e cpu-clock -p $sp -o pw.data -- sleep 0.5 2> pw.err || fail "-p -- sleep: $(cat pw.err)"
[ $((SECONDS - start)) -lt 20 ] || fail "-p $sp -- sleep 0.5 ran $((SECONDS - start)) s"
stock_reads_clean pw.data
log "-p with a workload: $(pids pw | tr '\n' ' ')"
[ "$(pids pw | wc -l)" = 1 ] || fail "-p $sp -- sleep: samples of other tasks: $(pids pw)"
[ "$(nsamples pw $sp)" -gt 100 ] || fail "-p $sp -- sleep: $(nsamples pw $sp) samples of $sp"
kill $sp

## -u: the threads of every process the user owns, found by name or number
spinner setpriv --reuid=65534 --regid=65534 --clear-groups
nob=$!
others=$(ps -u 65534 -o pid= | grep -vcw $nob)
for u in nobody 65534; do
	rm -f uid.pids
	"$PERF" record -q -u $u -e cpu-clock -o uid.data -- sleep 0.5 2> uid.err || fail "-u $u: $(cat uid.err)"
	[ $u = 65534 ] || stock_reads_clean uid.data
	log "-u $u: $(pids uid | tr '\n' ' ')"
	n=$(nsamples uid $nob)
	[ "$n" -gt 100 ] || fail "-u $u: $n samples of $nob, which nobody runs"
	[ "$others" -gt 0 ] || [ "$(pids uid | wc -l)" = 1 ] || fail "-u $u: samples of others: $(pids uid)"
done
kill $nob
bad uid-unknown 129 'Invalid User: frtest-no-such-user' -u frtest-no-such-user -- true
bad uid-number 129 'Invalid User: 4000000000' -u 4000000000 -- true
"$PERF" record -u root -a -e cpu-clock -o uida.data -- true > uida.out 2>&1 || fail "-u -a: $(cat uida.out)"
grep -qx 'UID switch overriding SYSTEM' uida.out || fail "-u -a: $(cat uida.out)"

## -G: events count only in the cgroup, per -e in order; --all-cgroups
## names the cgroup of every sample
bad cg-no-a 129 'cgroup monitoring only available in system-wide mode' -e cpu-clock -G / -- true
bad cg-no-event 129 'must define events before cgroups' -a -G / -- true
bad cg-missing 129 'no access to cgroup' -a -e cpu-clock -G frtest-no-such-cgroup -- true
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgmnt" ] || { mkdir -p "$TMP/cg2" && mount -t cgroup2 none "$TMP/cg2" && cgmnt=$TMP/cg2; } ||
	skip "no cgroup2 mounted, and none can be"
if awk '$3 == "cgroup" && $4 ~ /perf_event/' /proc/mounts | grep -q .; then
	skip "a cgroup v1 perf_event hierarchy is mounted: these tests use cgroup2"
fi
cg=frtest-$$
mkdir "$cgmnt/$cg" || skip "cannot create a cgroup in $cgmnt"
trap 'cleanup; rmdir "$cgmnt/$cg" 2>/dev/null; [ "$cgmnt" != "$TMP/cg2" ] || umount "$cgmnt"' EXIT
spinner sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cgmnt/$cg"
in=$!
spinner
out=$!
"$PERF" record -q -a -e cpu-clock -e task-clock -G "$cg", -o cg.data -- sleep 0.5 2> cg.err ||
	fail "-G: $(cat cg.err)"
stock_reads_clean cg.data
"$STOCK" script -i cg.data -F pid,event 2>/dev/null | sort | uniq -c > cg.txt
log "-G $cg,: $(tr -s ' \n' ' ' < cg.txt)"
count() { awk -v p="$1" -v e="$2:" '$2 == p && $3 == e { print $1 }' cg.txt; }
[ "$(count $in cpu-clock)" -gt 100 ] || fail "-G: cpu-clock of $in in $cg: $(count $in cpu-clock)"
[ -z "$(count $out cpu-clock)" ] || fail "-G: cpu-clock counted $out outside $cg: $(cat cg.txt)"
[ "$(count $out task-clock)" -gt 100 ] || fail "-G $cg,: task-clock has no cgroup, yet $out has none"
for opt in "" --all-cgroups; do
	"$PERF" record -q -a $opt -e cpu-clock -o allcg.data -- sleep 0.5 2> allcg.err ||
		fail "$opt: $(cat allcg.err)"
	[ -z "$opt" ] || stock_reads_clean allcg.data
	"$STOCK" evlist -v -i allcg.data 2>/dev/null > allcg.attr
	if [ -z "$opt" ]; then
		! grep -q 'CGROUP' allcg.attr || fail "cgroups in samples: $(cat allcg.attr)"
		continue
	fi
	grep '^cpu-clock' allcg.attr | grep -q 'sample_type: .*|CGROUP' || fail "--all-cgroups: $(cat allcg.attr)"
	grep '^dummy' allcg.attr | grep -q 'cgroup: 1' || fail "--all-cgroups: $(cat allcg.attr)"
	"$STOCK" report -i allcg.data --sort cgroup,pid --stdio 2>/dev/null | grep -v '^#' > allcg.txt
	log "--all-cgroups: $(grep -e ":$in:" -e ":$out:" -e " $in:" -e " $out:" allcg.txt | tr -s ' \n' ' ')"
	grep -Eq "%  +/$cg +$in:perf" allcg.txt || fail "--all-cgroups: $in not in /$cg: $(head allcg.txt)"
	grep -Eq "%  +/ +$out:perf" allcg.txt || fail "--all-cgroups: $out not in /: $(head allcg.txt)"
done
kill $in $out

## -D: samples begin MSECS after the workload's exec; the tracking dummy
## (enable_on_exec) has the exec, numbered close()s show where samples begin
for delay in 0 300; do
	"$PERF" record -q -D $delay -c 1000 -e syscalls:sys_enter_close -o d$delay.data -- \
		"$PERF" test -w hop 0.8 1000000000 7000000 2> d$delay.err || fail "-D $delay: $(cat d$delay.err)"
	[ $delay = 0 ] || stock_reads_clean d$delay.data
	exec_t=$("$STOCK" script -i d$delay.data --show-task-events -F time 2>/dev/null |
		 awk '/PERF_RECORD_COMM exec/ { sub(":", "", $1); print $1; exit }')
	"$STOCK" script -i d$delay.data -F time,trace 2>/dev/null |
		awk '/fd: 0x/ { t = $1; sub(":", "", t); fd = $0; sub(/.*fd: /, "", fd); print t, fd }' \
		> d$delay.txt
	first_t=$(awk 'NR == 1 { print $1 }' d$delay.txt)
	[ -n "$exec_t" ] && [ -n "$first_t" ] || fail "-D $delay: exec at '$exec_t', first at '$first_t'"
	after=$(awk -v a="$first_t" -v b="$exec_t" 'BEGIN { printf "%d", (a - b) * 1000 }')
	fds=$(awk '{ print $2 }' d$delay.txt | hex2dec)
	steps=$(echo "$fds" | awk 'NR > 1 { print $1 - prev } { prev = $1 }' | sort -u | tr '\n' ' ')
	log "-D $delay: first close $(awk 'NR == 1 { print $2 }' d$delay.txt) ${after}ms after the exec, $(wc -l < d$delay.txt) samples, steps $steps"
	[ "$(wc -l < d$delay.txt)" -gt 50 ] || fail "-D $delay: $(wc -l < d$delay.txt) samples"
	[ "$steps" = "1000 " ] || fail "-D $delay: close() numbers step by $steps, not every 1000th"
	if [ $delay = 0 ]; then
		after0=$after
		continue
	fi
	[ "$after" -ge 300 ] || fail "-D 300: a sample ${after}ms after the exec"
	[ "$after0" -lt "$after" ] || fail "no -D: the first sample ${after0}ms after the exec, later than -D 300's"
	"$STOCK" evlist -v -i d$delay.data 2>/dev/null > d.attr
	grep '^dummy' d.attr | grep -q 'enable_on_exec: 1' || fail "-D: the dummy waits for no exec: $(cat d.attr)"
	! grep '^syscalls' d.attr | grep -q 'enable_on_exec' || fail "-D: samples on exec: $(cat d.attr)"
done
# ranges: on from 100 to 200 ms, from 500 to 600 ms, then recording stops
# and the 30 s workload is terminated (exit 143, as the stock)
start=$SECONDS
"$PERF" record -q -D 100-200,500-600 -e cpu-clock -o dr.data -- "$PERF" test -w spin 30 2> dr.err
rc=$?
[ $rc = 143 ] || fail "-D 100-200,500-600: exit $rc, want 143: $(cat dr.err)"
[ $((SECONDS - start)) -lt 20 ] || fail "-D 100-200,500-600 ran $((SECONDS - start)) s"
stock_reads_clean dr.data
"$STOCK" script -i dr.data --show-task-events -F time 2>/dev/null |
	awk '/PERF_RECORD_COMM exec/ { e = $1 + 0 } !/PERF_RECORD/ { printf "%d\n", ($1 - e) * 1000 }' > dr.txt
in1=$(awk '$1 >= 100 && $1 <= 200' dr.txt | wc -l)
in2=$(awk '$1 >= 500 && $1 <= 600' dr.txt | wc -l)
# (what a busy machine may add to a disable: up to 150 ms)
off=$(awk '$1 < 100 || ($1 >= 350 && $1 < 500) || $1 >= 750' dr.txt | wc -l)
log "-D 100-200,500-600: $in1 and $in2 samples in the ranges, $off well outside"
[ "$in1" -gt 20 ] && [ "$in2" -gt 20 ] || fail "-D ranges: $in1 and $in2 samples in the ranges"
[ "$off" = 0 ] || fail "-D ranges: $off samples outside: $(tr '\n' ' ' < dr.txt)"
bad delay-range 129 "invalid -D/--delay '10-20,15-30'" -D 10-20,15-30 -- true
bad delay-junk 129 "invalid -D/--delay 'abc'" -D abc -- true
bad delay-neg 129 "invalid -D/--delay '-5'" -D -5 -- true

## -D -1: nothing until --control's enable; 20000 renames come before it
mkfifo ctl ack
"$PERF" record -D -1 --control=fifo:ctl,ack -e cpu-clock -o dc.data -- \
	"$PERF" test -w prctl 20000 wait > dc.out 2> dc.err &
rec=$!
BG_PIDS+=($rec)
wait_line dc.out 'renamed 20000'
echo enable > ctl
read -r a < ack
[ "$a" = ack ] || fail "-D -1: control answered '$a'"
kill -USR1 "$(cat /proc/$rec/task/$rec/children)"
wait $rec || fail "-D -1: $(cat dc.err)"
grep -qx 'Events disabled' dc.err && grep -qx 'Events enabled' dc.err || fail "-D -1: $(cat dc.err)"
stock_reads_clean dc.data
renamed=$("$STOCK" script -i dc.data --show-task-events -F time 2>/dev/null |
	  awk '/PERF_RECORD_COMM: wl-19999/ { sub(":", "", $1); print $1 }')
"$STOCK" script -i dc.data -F time 2>/dev/null | tr -d ': ' > dc.txt
early=$(awk -v r="$renamed" '$1 <= r' dc.txt | wc -l)
log "-D -1: last rename at $renamed, $(wc -l < dc.txt) samples, $early before it"
[ -n "$renamed" ] || fail "-D -1: the tracking has no rename"
[ "$(wc -l < dc.txt)" -gt 100 ] || fail "-D -1: $(wc -l < dc.txt) samples after enable"
[ "$early" = 0 ] || fail "-D -1: $early samples before the enable"

## --timestamp-filename: OUTPUT.<timestamp of the end>, with --switch-output too
for opt in "" --switch-output; do
	rm -f ts.data*
	before=$(date +%Y%m%d%H%M%S)
	"$PERF" record --timestamp-filename $opt -e cpu-clock -o ts.data -- "$PERF" test -w spin 0.1 \
		2> ts.err || fail "--timestamp-filename $opt: $(cat ts.err)"
	after=$(date +%Y%m%d%H%M%S)
	files=$(ls ts.data*)
	[ "$(echo "$files" | wc -l)" = 1 ] || fail "--timestamp-filename $opt: files $files"
	stamp=${files#ts.data.}
	[[ $stamp =~ ^[0-9]{16}$ ]] || fail "--timestamp-filename $opt: file $files"
	[[ ${stamp:0:14} > $before || ${stamp:0:14} == "$before" ]] && [[ ${stamp:0:14} < $after ||
		${stamp:0:14} == "$after" ]] || fail "--timestamp-filename: $stamp not in [$before, $after]"
	grep -qF "[ perf record: Dump $files ]" ts.err || fail "--timestamp-filename $opt: $(cat ts.err)"
	[ -n "$opt" ] || stock_reads_clean "$files"
done

## --timestamp-boundary: SAMPLE_TIME has the first and last sample's times
"$PERF" record -q --timestamp-boundary -e cpu-clock -o tb.data -- "$PERF" test -w spin 0.2 ||
	fail "--timestamp-boundary"
stock_reads_clean tb.data
"$STOCK" script -i tb.data -F time 2>/dev/null | tr -d ': ' | sort -n > tb.txt
hdr_first=$("$STOCK" report -i tb.data --header-only 2>/dev/null | awk '/time of first sample/ { print $NF }')
hdr_last=$("$STOCK" report -i tb.data --header-only 2>/dev/null | awk '/time of last sample/ { print $NF }')
log "--timestamp-boundary: header $hdr_first..$hdr_last, samples $(head -1 tb.txt)..$(tail -1 tb.txt)"
[ "$hdr_first" = "$(head -1 tb.txt)" ] && [ "$hdr_last" = "$(tail -1 tb.txt)" ] ||
	fail "--timestamp-boundary: header $hdr_first..$hdr_last, samples $(head -1 tb.txt)..$(tail -1 tb.txt)"

## --max-size: the recording stops once the file holds that much, and the
## workload is terminated as the stock does it (exit 143)
start=$SECONDS
"$PERF" record --max-size=200K -c 20000 -e cpu-clock -o ms.data -- "$PERF" test -w spin 30 2> ms.err
rc=$?
[ $rc = 143 ] || fail "--max-size: exit $rc, want 143 (SIGTERM of the workload): $(cat ms.err)"
[ $((SECONDS - start)) -lt 20 ] || fail "--max-size=200K took $((SECONDS - start)) s"
kb=$(sed -n 's/^\[ perf record: perf size limit reached (\([0-9]*\) KB), stopping session \]$/\1/p' ms.err)
[ -n "$kb" ] && [ "$kb" -ge 200 ] || fail "--max-size: $(cat ms.err)"
[ "$(stat -c %s ms.data)" -ge $((200 << 10)) ] || fail "--max-size: $(stat -c %s ms.data) bytes"
stock_reads_clean ms.data
bad max-size 129 "invalid --max-size '12Q'" --max-size=12Q -- true

## --mmap-flush: a ring is written out once it holds that much (a quarter
## of the ring at most); each FINISHED_ROUND ends one write-out
rounds() {	# NAME: the byte gaps between FINISHED_ROUNDs, the last (the end's) left out
	"$STOCK" report -D -i "$1.data" 2>/dev/null | awk '/PERF_RECORD_FINISHED_ROUND/ { print $2 }' | hex2dec |
		awk 'NR > 1 { print $1 - prev } { prev = $1 }' | sed '$d'
}
for spec in "1 0 -m 128" "16K 16384 -m 128" "1G 16384 -m 16"; do
	read -r flush min m pages <<< "$spec"
	"$PERF" record -q $m $pages --mmap-flush=$flush --no-buffering -c 50000 -e cpu-clock -o mf.data -- \
		"$PERF" test -w spin 0.5 2> mf.err || fail "--mmap-flush=$flush: $(cat mf.err)"
	# (not the default's: a write-out every 100 us, and on a VM the stock
	# may find a sample of a stalled vCPU out of order)
	[ "$flush" != 16K ] || stock_reads_clean mf.data
	gaps=$(rounds mf)
	small=$(echo "$gaps" | awk -v m=$min '$1 < m' | wc -l)
	lost=$("$STOCK" report --stats -i mf.data 2>/dev/null | awk '/LOST events/ { print $3 }')
	log "--mmap-flush=$flush -m $pages: $(echo "$gaps" | wc -l) write-outs, $small under $min, lost ${lost:-0}"
	[ "$(echo "$gaps" | wc -l)" -ge 2 ] || fail "--mmap-flush=$flush -m $pages: write-outs: $gaps"
	[ "$small" = 0 ] || fail "--mmap-flush=$flush: $small write-outs under $min bytes"
	[ -z "$lost" ] || fail "--mmap-flush=$flush -m $pages: $lost events lost"
	[ "$flush" != 1 ] || [ "$(echo "$gaps" | awk '$1 < 4096' | wc -l)" -gt 0 ] ||
		fail "--mmap-flush=1: no write-out under 4K, the test cannot tell"
done
bad mmap-flush 129 "invalid --mmap-flush '1X'" --mmap-flush=1X -- true
exit 0
