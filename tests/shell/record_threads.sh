#!/bin/bash
# perf record --threads: the stock's specs and refusals, the perf.data directory the stock reads with every event, SIGINT, --overwrite and --switch-output
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint syscalls sys_enter_close
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for a thread per CPU"
cd "$TMP" || exit 1

RATE=""
N=3000	# numbered close()s per CPU: fewer than a 1M ring holds, so none is lost
EV="-c 1 -e syscalls:sys_enter_close"
M=1M	# the rings: they hold all N

# refused as the stock refuses them: its exit status, its words on
# stderr byte for byte, nothing left behind
refused() {	# ARGS... (OUT: the output option, -o bad.data unless set)
	local want got
	rm -rf bad.data
	"$STOCK" record -e cpu-clock ${OUT--o bad.data} "$@" -- true > /dev/null 2> want.err
	want=$?
	rm -rf bad.data
	"$PERF" record -e cpu-clock ${OUT--o bad.data} "$@" -- true > /dev/null 2> bad.err
	got=$?
	[ $want -ne 0 ] || fail "$*: the stock accepts it: $(cat want.err)"
	[ $got -eq $want ] || fail "$*: exit $got, the stock's $want: $(cat bad.err)"
	cmp -s want.err bad.err || fail "$*: not the stock's words: $(diff want.err bad.err)"
	[ ! -e bad.data ] || fail "$*: left bad.data"
}
refused --threads=0/0:0/1 -a
refused --threads=0/0:1/0 -a
refused --threads=foo -a
refused --threads=user -a
refused --threads=0/0:1 -a
refused --threads=:: -a
refused --threads=1/1 -C 0
refused --threads=0/1 -C 0
refused --threads=0-1/0:1/1 -C 0
refused --threads=$(($(nproc --all) + 1))/0 -a
refused --threads=0/$(($(nproc --all) + 1)) -a
refused --threads=99999/0 -a
refused --threads=2-1/0 -a
refused --threads=0,0/0 -a
refused --threads=a/0 -a
refused --threads --per-thread
OUT="-o -" refused --threads=0/0 -a
# accepted as the stock accepts them: a layout's name begins the spec,
# lists read as its library reads them, parts past the second ignored
for spec in cpus CPU:x 0,/0 0-/0 0/0/1 ::0/0; do
	rm -rf ok.data
	"$PERF" record -e cpu-clock --threads=$spec -a -o ok.data -- true 2> ok.err ||
		fail "--threads=$spec refused: $(cat ok.err)"
	stock_reads_clean ok.data
done
# --switch-output-event: the stock's warning, and a recording without it
rm -rf ok.data
"$PERF" record -e cpu-clock --threads --switch-output-event cpu-clock -a -o ok.data -- true \
	2> ok.err || fail "--switch-output-event refused: $(cat ok.err)"
grep -qx 'WARNING: --switch-output-event option is not available in parallel streaming mode.' \
	ok.err || fail "--switch-output-event: no warning: $(cat ok.err)"
[ -d ok.data ] || fail "--switch-output-event: no ok.data: $(cat ok.err)"

# CPU $1's numbered close()s, BASE $2, on that CPU only
closes_on() { taskset -c "$1" "$PERF" test -w closes $N "$2"; }
# how many numbered events of BASE $2 the stock finds on CPU $1 in $3
count_on() {
	"$STOCK" script -i "$3" -F cpu,trace 2>/dev/null | awk -v cpu="$1" '
		{ c = $1; gsub(/[^0-9]/, "", c) } c + 0 == cpu + 0 && /fd: 0x/ { sub(/.*fd: /, ""); print }' |
		hex2dec | awk -v b="$2" -v n=$N '$1 >= b && $1 < b + n' | sort -u | wc -l
}
threads_of() { sed -n 's/.*--threads: \([0-9]*\) drain threads.*/\1/p' "$1"; }
groups() {	# the number of distinct values of sysfs FILE (or NUMA node) over CPUs 0 and 1
	for c in 0 1; do
		case $1 in
		numa) n=$(ls -d /sys/devices/system/cpu/cpu$c/node* 2>/dev/null | head -1); echo "${n##*/}" ;;
		core) echo "$(cat /sys/devices/system/cpu/cpu$c/topology/physical_package_id)-$(cat /sys/devices/system/cpu/cpu$c/topology/core_id)" ;;
		*) cat /sys/devices/system/cpu/cpu$c/topology/physical_package_id ;;
		esac
	done | sort -u | wc -l
}

# every layout: a data.N per ring, N events per CPU, as a one-thread
# recorder's accounting has them
check_layout() {	# SPEC THREADS CPUS [-C list]
	local spec=$1 want=$2 cpus=$3 c
	shift 3
	rm -rf t.data
	"$PERF" record -v --threads$spec $EV -m $M -a "$@" -o t.data -- \
		sh -c "for c in $cpus; do taskset -c \$c '$PERF' test -w closes $N \$((1000000 * (c + 1))) $RATE & done; wait" \
		2> rec.err || fail "--threads$spec: $(tail -3 rec.err)"
	[ -d t.data ] && [ -f t.data/data ] || fail "--threads$spec: no directory: $(ls -la t.data)"
	[ "$(threads_of rec.err)" = "$want" ] || fail "--threads$spec: $(threads_of rec.err) threads, want $want"
	[ "$(ls t.data | grep -c '^data\.[0-9]*$')" -eq "$(wc -w <<< "$cpus")" ] ||
		fail "--threads$spec: files $(ls t.data | tr '\n' ' ')"
	"$STOCK" report -i t.data --header-only 2>/dev/null | grep -q 'directory data version : 1' ||
		fail "--threads$spec: no DIR_FORMAT"
	for c in $cpus; do
		n=$(count_on $c $((1000000 * (c + 1))) t.data)
		[ "$n" -eq $N ] || fail "--threads$spec: the stock finds $n of $N events on CPU $c"
	done
	log "--threads$spec: $want threads, $N events on each of CPUs $cpus"
}
check_layout "" 2 "0 1"
check_layout "=cpu" 2 "0 1"
check_layout "=core" "$(groups core)" "0 1"
check_layout "=package" "$(groups package)" "0 1"
check_layout "=numa" "$(groups numa)" "0 1"
check_layout "=0-1/0-1" 1 "0 1"
check_layout "=1/1:0/0" 2 "0 1"
check_layout "=0-1/0-1" 1 "1" -C 1
# a recorded CPU that no mask names is read by the first thread: the
# stock leaves its ring unread (its data.1 empty, CPU 1's records lost)
check_layout "=0/0" 1 "0 1"
stock_reads_clean t.data

# the same with -z: compressed data.N files, read by the stock
check_layout "=cpu" 2 "0 1" -z
# rings of 64K (720 records) and 3000 numbered events at 2000 a second
# on each CPU: only threads woken by their rings keep them all (-r 1:
# threads that run once woken, however busy the machine)
M=64K RATE=2000 check_layout "=cpu" 2 "0 1" -r 1

# SIGINT ends it within a second, the directory complete
rm -rf i.data
"$PERF" record --threads -a -o i.data 2> int.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
t0=$(date +%s%N)
kill -INT $rec
wait_gone $rec "SIGINT"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt 1000 ] || fail "SIGINT: the recorder took $ms ms to end"
stock_reads_clean i.data

# --switch-output (normal mode): a directory per switch, each whole
rm -rf s.data*
"$PERF" record --threads --switch-output $EV -m $M -a -o s.data 2> so.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
closes_on 0 1000000; closes_on 1 2000000
kill -USR2 $rec
wait_line so.err '^\[ perf record: Dump s\.data\.'
closes_on 0 3000000; closes_on 1 4000000
kill -INT $rec
wait_gone $rec "--switch-output"
set -- s.data.*
[ $# -eq 2 ] && [ -d "$1" ] && [ -d "$2" ] || fail "--switch-output: $(ls -d s.data*)"
stock_reads_clean "$1"
stock_reads_clean "$2"
for want in "0 1000000 $1" "1 2000000 $1" "0 3000000 $2" "1 4000000 $2"; do
	n=$(count_on $want)
	[ "$n" -eq $N ] || fail "--switch-output: the stock finds $n of $N events ($want)"
done

# --overwrite: the dumps are files, their numbered events all there
rm -rf o.data*
"$PERF" record --threads --overwrite --switch-output $EV -m $M -a -o o.data 2> ow.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
closes_on 0 1000000; closes_on 1 2000000
kill -USR2 $rec
wait_line ow.err '^\[ perf record: Dump o\.data\.'
kill -INT $rec
wait_gone $rec "--overwrite"
f=$(ls o.data.* | head -1)
[ -f "$f" ] || fail "--overwrite: no dump: $(cat ow.err)"
stock_reads_clean "$f"
for want in "0 1000000" "1 2000000"; do
	n=$(count_on $want "$f")
	[ "$n" -eq $N ] || fail "--overwrite: the stock finds $n of $N events ($want) in $f"
done
# the tracking the threads drained names the workload
"$STOCK" script -i "$f" -F comm,trace 2>/dev/null | grep -q '^ *perf .*fd: 0x' ||
	fail "--overwrite: the dump's events have no comm"
# --max-size counts every thread's bytes, as the stock does: the recording
# stops once the directory holds that much, the workload terminated (143)
rm -rf ms.data
start=$SECONDS
"$PERF" record --threads --max-size=200K -c 20000 -e cpu-clock -a -o ms.data -- \
	"$PERF" test -w spin 30 2> ms.err
rc=$?
[ $rc = 143 ] || fail "--max-size: exit $rc, want 143 (SIGTERM of the workload): $(cat ms.err)"
[ $((SECONDS - start)) -lt 20 ] || fail "--max-size=200K took $((SECONDS - start)) s"
kb=$(sed -n 's/^\[ perf record: perf size limit reached (\([0-9]*\) KB), stopping session \]$/\1/p' ms.err)
[ -n "$kb" ] && [ "$kb" -ge 200 ] || fail "--max-size: $(cat ms.err)"
[ "$(cat ms.data/data.* | wc -c)" -gt 0 ] || fail "--max-size: the threads wrote nothing"
[ "$(cat ms.data/* | wc -c)" -ge $((200 << 10)) ] || fail "--max-size: $(du -b ms.data)"
stock_reads_clean ms.data
# a recorder killed with -9 leaves its unfinished directory; the next run
# removes it and only what such a recorder makes: the name of this output,
# a pid that is gone, a directory (never a link) of this user with its
# mode, only its data files; nothing is followed
rm -rf k.data .k.data.* .other.* victim
"$PERF" record --threads -e cpu-clock -a -o k.data 2> k.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
kill -9 $rec
wait $rec 2>/dev/null
left=$(ls -d .k.data.dir.$rec.?????? 2>/dev/null)
[ -d "$left" ] || fail "kill -9: no directory left to clean: $(ls -a)"
mkdir -p victim/d && echo keep > victim/data && echo keep > victim/d/data.0
gone=2147483646	# past any pid_max
ln -s victim/d .k.data.dir.$gone.AAAAAA
mkdir -m 700 .k.data.dir.$gone.BBBBBB .k.data.dir.$gone.CCCCCC .k.data.dir.$gone.DDDDDD \
	.k.data.dir.$$.EEEEEE .k.data.dir.$gone.FFFFFF .other.dir.$gone.GGGGGG
chown 65534 .k.data.dir.$gone.BBBBBB
ln -s ../victim/data .k.data.dir.$gone.CCCCCC/data
echo x > .k.data.dir.$gone.DDDDDD/notes
chmod 755 .k.data.dir.$gone.FFFFFF
for d in .k.data.dir.$gone.?????? .k.data.dir.$$.EEEEEE .other.dir.$gone.GGGGGG; do
	[ -L "$d" ] || echo x > "$d/data.1"
done
"$PERF" record -v --threads -e cpu-clock -a -o k.data -- true 2> k2.err ||
	fail "the run after kill -9: $(cat k2.err)"
[ ! -e "$left" ] || fail "kill -9: $left left: $(cat k2.err)"
grep -q "removed ${left#./}, left by recorder $rec (killed)" k2.err || fail "-v: $(cat k2.err)"
[ ! -e .k.data.dir.$gone.CCCCCC ] || fail "a dead recorder's directory with a link in it stays"
[ "$(cat victim/data victim/d/data.0)" = "keep
keep" ] || fail "a link was followed: $(ls -laR victim)"
[ -L .k.data.dir.$gone.AAAAAA ] || fail "a link to a directory was removed"
for d in .k.data.dir.$gone.BBBBBB .k.data.dir.$$.EEEEEE .k.data.dir.$gone.FFFFFF \
	 .other.dir.$gone.GGGGGG; do
	[ -f "$d/data.1" ] || fail "$d: not this recorder's, yet emptied"
done
[ -f .k.data.dir.$gone.DDDDDD/notes ] || fail "a file no recorder makes was removed"
stock_reads_clean k.data
exit 0
