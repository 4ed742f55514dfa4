#!/bin/bash
# header features of the machine (CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, PMU_MAPPINGS, PMU_CAPS) in a normal file, a flight dump and a stream: the stock perf report --header-only -I prints the lines it prints for its own recording, with no warning
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

FEATURES="CPU_TOPOLOGY NUMA_TOPOLOGY PMU_MAPPINGS CACHE MEM_TOPOLOGY CPU_PMU_CAPS PMU_CAPS"

# The lines --header-only -I prints from those features, from the header
# text on stdin. A node's free and total memory change from one moment to
# the next (this VM's memory is hot-plugged): only their presence counts.
machine_lines() {
	awk '/^# (sibling |CPU [0-9]+: |node[0-9]+ |pmu mappings|CPU cache info|memory nodes)/ ||
	     /^#  +(L[0-9]|[0-9]+ \[)/ || /pmu capabilities|pmu caps/' |
		sed 's/total = [0-9]* kB, free = [0-9]* kB/total = N kB, free = N kB/'
}

# The features of $FEATURES that the header text in FILE lists as missing.
missing() {
	local f
	for f in $FEATURES; do
		grep '^# missing features:' "$1" | grep -q " $f " && echo "$f"
	done
}

# FILE's header as the stock perf prints it into NAME.hdr, NAME.err
stock_header() {	# NAME FILE
	"$STOCK" report --header-only -I -i "$2" > "$1.hdr" 2> "$1.err"
}

# The stock's own recordings, a file (stock.hdr) and a stream (spipe.hdr)
ref_stock() {
	"$STOCK" record -o stock.data -- true 2> /dev/null || fail "stock record"
	stock_header stock stock.data
}
ref_spipe() {
	"$STOCK" record -o - -- true 2> /dev/null | "$STOCK" report --header-only -I -i - > spipe.hdr 2> spipe.err
}

# The header in NAME.hdr shows what the stock's own recording REF (stock,
# spipe, fstock) does, and the stock said nothing on stderr. A difference gets
# one more stock recording: memory blocks come and go between two moments.
same_as_stock() {	# NAME REF
	local try
	[ -s "$1.err" ] && fail "$1: the stock perf report --header-only said: $(head -3 "$1.err")"
	for try in 1 2; do
		machine_lines < "$1.hdr" > "$1.lines"
		machine_lines < "$2.hdr" > "$2.lines"
		grep -q '^# sibling ' "$2.lines" || fail "$2: the stock's own header has no topology: $(cat "$2.hdr")"
		cmp -s "$2.lines" "$1.lines" && break
		[ $try = 2 ] && fail "$1: header lines differ from the stock's: $(diff "$2.lines" "$1.lines" | head -8)"
		"ref_$2"
	done
	[ "$(missing "$1.hdr")" = "$(missing "$2.hdr")" ] ||
		fail "$1: missing features '$(missing "$1.hdr" | tr '\n' ' ')', the stock's own file '$(missing "$2.hdr" | tr '\n' ' ')'"
	log "$1: $(wc -l < "$1.lines") lines as the stock's"
}

# our own reader takes FILE without a complaint
own_reads() {
	"$PERF" script -i "$1" > own.out 2> own.err || fail "own perf script -i $1: $(head -3 own.err)"
	[ -s own.err ] && fail "own perf script -i $1 said: $(head -3 own.err)"
	return 0
}

# 1. a normal file against the stock's recording of the same command
ref_stock
"$PERF" record -o ours.data -- true 2> rec.err || fail "record: $(cat rec.err)"
stock_header ours ours.data
same_as_stock ours stock
own_reads ours.data

# 2. a flight dump on SIGUSR2, and the one at the end (the workload runs
# 50 ms of CPU first: a dump of a sleep's start alone may hold no sample)
"$PERF" record --overwrite --switch-output -o fr.data -- \
	sh -c "'$PERF' test -w spin-cpu 0.05; exec sleep 30" 2> fr.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_exec "$(pgrep -P $rec)" sleep
kill -USR2 $rec
wait_line fr.err 'Dump fr.data'
kill -INT $rec
# the recorder ends the workload with SIGTERM and exits with its status
wait $rec
st=$?
[ $st = 0 ] || [ $st = 143 ] || fail "record --overwrite exit status $st: $(cat fr.err)"
dumps=$(ls fr.data.* 2> /dev/null)
[ -n "$dumps" ] || fail "no dump: $(cat fr.err)"
for f in $dumps; do
	stock_header dump "$f"
	same_as_stock dump stock
	own_reads "$f"
done

# 3. a machine with caches and PMU capabilities, which this VM's sysfs
# lacks: a made-up cpuN/cache and event_source/devices (with a "cpu" PMU
# and caps) bound over the real ones in a private mount namespace, where
# the stock and this perf each record
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2> /dev/null; then
	echo "  SKIP (made-up caches and PMU caps): needs root and unshare -m" >&2
else
	mkdir fake
	online=$(cat /sys/devices/system/cpu/online)
	for t in /sys/devices/system/cpu/cpu[0-9]*/topology; do
		c=${t%/topology}
		c=${c##*/cpu}
		mkdir -p "fake/cpu$c"
		cp -r "$t" "fake/cpu$c/"
		i=0
		for spec in "1 Data 32K 64 8 64 $c" "1 Instruction 32K 64 8 64 $c" \
			    "2 Unified 512K 64 8 1024 $c" "3 Unified 16384K 64 16 16384 $online"; do
			set -- $spec
			d=fake/cpu$c/cache/index$i
			mkdir -p "$d"
			echo "$1" > "$d/level"
			echo "$2" > "$d/type"
			echo "$3" > "$d/size"
			echo "$4" > "$d/coherency_line_size"
			echo "$5" > "$d/ways_of_associativity"
			echo "$6" > "$d/number_of_sets"
			echo "$7" > "$d/shared_cpu_list"
			i=$((i + 1))
		done
	done
	for p in /sys/bus/event_source/devices/*; do
		mkdir -p "fake/pmu/${p##*/}"
		cp "$p/type" "fake/pmu/${p##*/}/"
	done
	mkdir -p fake/pmu/cpu/caps fake/pmu/fake_pmu/caps
	echo 4 > fake/pmu/cpu/type
	echo 32 > fake/pmu/cpu/caps/branches
	echo 3 > fake/pmu/cpu/caps/max_precise
	echo 99 > fake/pmu/fake_pmu/type
	echo 1 > fake/pmu/fake_pmu/caps/some_cap
	cat > inside.sh <<-EOF
	for d in fake/cpu*; do mount --bind "\$d" "/sys/devices/system/cpu/\${d#fake/}" || exit 1; done
	mount --bind fake/pmu /sys/bus/event_source/devices || exit 1
	"$STOCK" record -e cpu-clock -o fstock.data -- true 2> /dev/null || exit 1
	"$PERF" record -e cpu-clock -o fours.data -- true 2> /dev/null || exit 1
	"$STOCK" report --header-only -I -i fstock.data > fstock.hdr 2> fstock.err
	"$STOCK" report --header-only -I -i fours.data > fours.hdr 2> fours.err
	EOF
	# both again when the lines differ, since memory blocks may come and go
	ref_fstock() { unshare -m --propagation private bash inside.sh || fail "recording with a made-up sysfs"; }
	ref_fstock
	grep -q '^#  L3 Unified  *16384K' fstock.hdr && grep -q 'cpu pmu capabilities: branches=32' fstock.hdr &&
		grep -q 'fake_pmu pmu capabilities: some_cap=1' fstock.hdr ||
		fail "the stock did not see the made-up sysfs: $(cat fstock.hdr)"
	same_as_stock fours fstock
	own_reads fours.data
fi

# 4. pipe mode: the features travel as records, and the stock's report of
# a stream prints them as it reads them
ref_spipe
if ! grep -q '^# sibling ' spipe.hdr; then
	echo "  SKIP (stream part): the stock prints no topology for its own stream" >&2
	exit 0
fi
"$PERF" record -o - -- true 2> rec.err > ours.pipe || fail "record -o -: $(cat rec.err)"
"$STOCK" report --header-only -I -i - < ours.pipe > pipe.hdr 2> pipe.err
# the stock 6.1 puts no CACHE in a stream of its own (a machine with caches
# in sysfs shows it); ours does, with the lines of a file's, and the rest
# must be the stock's
cache_block() { awk '/^# CPU cache info:/ { c = 1; print; next } c && /^#  L[0-9]/ { print; next } { c = 0 }' "$1"; }
if ! grep -q 'CPU cache info' spipe.hdr && grep -q 'CPU cache info' pipe.hdr; then
	[ "$(cache_block pipe.hdr)" = "$(cache_block ours.hdr)" ] ||
		fail "pipe: cache lines differ from the file's: $(cache_block pipe.hdr | head -3)"
	grep -v -e '^# CPU cache info:' -e '^#  L[0-9]' pipe.hdr > pipe.nc && mv pipe.nc pipe.hdr
fi
same_as_stock pipe spipe
# (our own perf script reads files, not streams: nothing to check there)
exit 0
