#!/bin/bash
# perf record: BUILD_ID feature and build-id cache (normal, rotated, dumps, a deleted binary), perf archive read elsewhere
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "the flight recorder's rings"
need_cc
cd "$TMP" || exit 1
# the stock's record writes some of its cache under ~/.debug whatever
# --buildid-dir says: a home of the test's own
export HOME=$TMP
# it spends a few ms in the kernel first (reads of /dev/zero): an exec's
# faults alone leave a run without a kernel sample now and then
cat > hot.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
volatile unsigned long sink;
static char buf[1 << 20];
__attribute__((noinline)) void bid_hot_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	for (int i = 0; fd >= 0 && i < 64; i++)
		sink += read(fd, buf, sizeof(buf));
	bid_hot_spin(strtoul(argv[1], NULL, 0));
	return 0;
}
C
mkdir bin && cc -O1 -g -Wl,--build-id -o bin/bidhot hot.c || fail "compile"
HOT=$TMP/bin/bidhot
hot_bid=$("$STOCK" buildid-list -i "$HOT" 2>/dev/null)
[ ${#hot_bid} -eq 40 ] || fail "the stock reads no build id of the test binary: '$hot_bid'"

# The stock's ARGS, tried again when it aborts (see below); its output.
stock_try() {
	local try out
	for try in 1 2 3 4 5 6; do
		out=$("$STOCK" "$@" 2>&1) && { echo "$out"; return 0; }
		[[ $out == *"build-id.c:1010"* ]] || break
	done
	echo "$out"
	return 1
}

# FILE CACHE [hot|kernel]: the BUILD_ID feature lists what the samples hit
# (the stock works that out from the samples itself: --with-hits), plus the
# vdso; every entry is in CACHE. hot: the file is long enough to hit the
# test binary (the first of rotated files may not be); kernel: and the
# kernel (a whole run, its exec included).
check_file() {
	local f=$1 cache=$2 listed hits name bid link
	stock_reads_clean "$f"
	listed=$(stock_try buildid-list -i "$f") || fail "buildid-list $f: $listed"
	hits=$(stock_try buildid-list -i "$f" --with-hits) || fail "buildid-list --with-hits $f: $hits"
	log "$f: $(echo "$listed" | awk '{ print $2 }' | tr '\n' ' ')"
	if [ -n "$3" ]; then
		echo "$listed" | grep -qx "$hot_bid $HOT" || fail "$f: no build id of $HOT: $listed"
	fi
	if [ "$3" = kernel ]; then
		echo "$listed" | grep -q ' \[kernel.kallsyms\]$' || fail "$f: no kernel build id: $listed"
	fi
	echo "$listed" | grep -q ' \[vdso\]$' || fail "$f: no vdso build id: $listed"
	[ "$(echo "$listed" | grep -v ' \[vdso\]$' | sort)" = "$(echo "$hits" | sort)" ] ||
		fail "$f: the feature lists $(echo "$listed" | tr '\n' ' '); the samples hit $(echo "$hits" | tr '\n' ' ')"
	[ -n "$cache" ] || return 0
	while read -r bid name; do
		link=$cache/.build-id/${bid:0:2}/${bid:2}
		[ -d "$link" ] || fail "$f: $name: no $link in the cache"
		case $name in
		"[kernel.kallsyms]") [ -s "$link/kallsyms" ] || fail "$f: no kallsyms in the cache" ;;
		"[vdso]") [ -s "$link/vdso" ] || fail "$f: no vdso in the cache" ;;
		/*) [ "$("$STOCK" buildid-list -i "$link/elf" 2>/dev/null)" = "$bid" ] ||
			fail "$f: the cache's copy of $name has not build id $bid" ;;
		esac
	done <<< "$listed"
}

# 1. normal recording, against the stock's of the same workload
# (the stock perf 6.1 aborts now and then at its build-id.c:1010 when it
# marks hits, on its own recordings too, with what else runs on this
# machine: its own recording is only a reference, tried a few times)
stock_ref=
for try in 1 2 3 4 5 6; do
	"$STOCK" --buildid-dir "$TMP/scache" record -q -e cpu-clock -o stock.data "$HOT" 100000000 \
		2> stock.err && { stock_ref=1; break; }
done
[ -n "$stock_ref" ] || echo "  (the stock's reference recording aborted 6 times: $(tail -1 stock.err); compared without it)" >&2
"$PERF" --buildid-dir "$TMP/cache" record -q -e cpu-clock -o our.data "$HOT" 100000000 2> our.err ||
	fail "record: $(cat our.err)"
[ -s our.err ] && fail "record said: $(cat our.err)"
check_file our.data "$TMP/cache" kernel
# the same build id for a name as the stock's recording
if [ -n "$stock_ref" ]; then
	stock_try buildid-list -i stock.data | while read -r bid name; do
		ours=$(stock_try buildid-list -i our.data | awk -v n="$name" '$2 == n { print $1 }')
		[ -z "$ours" ] || [ "$ours" = "$bid" ] || fail "$name: build id $ours, the stock's $bid"
	done || exit 1
fi
# the cache in the stock's layout: what the stock made is there too
[ -n "$stock_ref" ] || mkdir -p "$TMP/scache"
(cd "$TMP/scache" && find . -path './.build-id/*' -type l) | sort > stock.links
(cd "$TMP/cache" && find . -path './.build-id/*' -type l) | sort > our.links
comm -23 stock.links our.links | while read -r l; do
	bid=$(echo "$l" | tr -d './' | sed 's/buildid//')
	if stock_try buildid-list -i our.data --with-hits | grep -q "^$bid"; then
		fail "the stock cached $l, this perf did not"
	fi
done || exit 1

# -N: no cache; -B: no BUILD_ID
"$PERF" --buildid-dir "$TMP/ncache" record -q -N -e cpu-clock -o n.data "$HOT" 10000000 ||
	fail "record -N"
[ -e "$TMP/ncache" ] && fail "-N: the cache was filled"
"$PERF" --buildid-dir "$TMP/ncache" record -q -B -e cpu-clock -o b.data "$HOT" 10000000 ||
	fail "record -B"
# (the stock 6.1 prints no BUILD_ID section with -I, and its buildid-list
# reads the binaries when the feature is absent: ask its list of missing
# features, and check it for -N too, which keeps the feature)
missing() { "$STOCK" report -i "$1" --header-only -I 2>/dev/null | grep '^# missing features:'; }
missing n.data | grep -qw BUILD_ID && fail "-N: no BUILD_ID feature: $(missing n.data)"
missing b.data | grep -qw BUILD_ID || fail "-B: a BUILD_ID feature: $(missing b.data)"
[ -e "$TMP/ncache" ] && fail "-B: the cache was filled"
# PERF_BUILDID_DIR, which this perf honours (the stock only sets it for its scripts)
PERF_BUILDID_DIR=$TMP/ecache "$PERF" record -q -e cpu-clock -o e.data "$HOT" 10000000 ||
	fail "record with PERF_BUILDID_DIR"
[ -d "$TMP/ecache/.build-id/${hot_bid:0:2}/${hot_bid:2}" ] || fail "PERF_BUILDID_DIR: no cache entry"

# 2. perf archive, unpacked elsewhere with the binary gone: the stock still
# names the hot symbol, and does not without the archive
# (perf archive runs the stock's buildid-list --with-hits: see stock_try)
for try in 1 2 3 4 5 6; do
	"$PERF" --buildid-dir "$TMP/cache" archive our.data > archive.out 2> archive.err && break
	if ! grep -q 'build-id.c:1010' archive.err || [ $try = 6 ]; then
		fail "archive: $(cat archive.err)"
	fi
done
[ -s archive.err ] && fail "archive said: $(cat archive.err)"
mkdir unpacked empty
tar xf our.data.tar.bz2 -C unpacked || fail "the archive does not unpack"
mv "$HOT" "$TMP/hot.moved"
# CACHE FILE [REPORT ARGS...]: lines of bid_hot_spin in the stock's report
sym() {
	local cache=$1 f=$2
	shift 2
	"$STOCK" --buildid-dir "$cache" report -i "$f" --stdio --sort sym "$@" 2>/dev/null | grep -c bid_hot_spin
}
[ "$(sym "$TMP/unpacked" our.data)" -ge 1 ] || fail "the stock reports no bid_hot_spin from the archive"
[ "$(sym "$TMP/empty" our.data)" -eq 0 ] || fail "bid_hot_spin found without the archive: the test proves nothing"
# report run through this perf: the cache named by $PERF_BUILDID_DIR goes
# to the stock as --buildid-dir (the stock alone would read ~/.debug)
n=$(PERF_BUILDID_DIR=$TMP/unpacked "$PERF" report -i our.data --stdio --sort sym 2>/dev/null |
	grep -c bid_hot_spin)
[ "$n" -ge 1 ] || fail "report through this perf with PERF_BUILDID_DIR names no bid_hot_spin"
mv "$TMP/hot.moved" "$HOT"

# NAME CACHE ARGS...: a recorder writing NAME.data with the build-id cache
# $TMP/CACHE, its stderr in NAME.err, in its loop
start_rec() {
	local name=$1 cache=$2
	shift 2
	"$PERF" --buildid-dir "$TMP/$cache" record -o $name.data "$@" 2> $name.err &
	rec=$!
	BG_PIDS+=($rec)
	wait_ready $rec
}
# NAME: one dump, then the end; dump is the first dump's file
dump_and_stop() {
	kill -USR2 $rec
	wait_line $1.err "Dump $1.data"
	kill -INT $rec
	wait_gone $rec "SIGINT after the dump"
	wait $rec
	dump=$(ls $1.data.2* | head -1)
	[ -n "$dump" ] || fail "no dump: $(cat $1.err)"
}

# 3. rotated files and a dump
start_rec rot rcache -q --switch-output=signal -e cpu-clock \
	-- "$HOT" 400000000
kill -USR2 $rec
rotated() { compgen -G 'rot.data.2*' > /dev/null; }
wait_until "no rotated file" rotated
wait $rec || fail "rotating record: $(cat rot.err)"
n=0
for f in rot.data.2*; do check_file "$f" "$TMP/rcache"; n=$((n + 1)); done
[ $n -ge 2 ] || fail "$n rotated files"
check_file "$f" "$TMP/rcache" hot	# the last: the rest of a long run

start_rec fl dcache --overwrite --switch-output -e cpu-clock \
	-- "$HOT" 4000000000
wait_exec $(pgrep -P $rec) bidhot
# past its start (reading /dev/zero): the dump has samples in its own code
wait_cpu "$(pgrep -P $rec)" 0.1
dump_and_stop fl
check_file "$dump" "$TMP/dcache" hot
# perf archive packs a dump's binaries too, with nothing missing
"$PERF" --buildid-dir "$TMP/dcache" archive "$dump" > /dev/null 2> farch.err
grep -q 'build-id.c:1010' farch.err || [ ! -s farch.err ] || fail "archive $dump: $(cat farch.err)"

# 4. a task that exited, its binary deleted before the dump: the dump's
# cache entry still comes from the binary, held open since the recorder
# read its MMAP2. The recorder reads the tracking rings on its poll
# timeout, which a short task can outlive by little: deleted as soon as
# it ended, its binary could be gone before that read. It is deleted once
# the recorder holds it (the wait fails if it never does).
held_by() {	# PID FILE: PID has FILE open
	local fd
	for fd in /proc/$1/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}
cp "$HOT" "$TMP/bin/bidgone"
start_rec gone gcache --overwrite --switch-output -a -e cpu-clock
"$TMP/bin/bidgone" 200000000 || fail "bidgone"
wait_until "the recorder holds no $TMP/bin/bidgone" held_by $rec "$TMP/bin/bidgone"
rm "$TMP/bin/bidgone"
dump_and_stop gone
stock_reads_clean "$dump"
# (the dump is of every CPU: only bidgone's samples, not those of
# whatever else runs a bidhot meanwhile)
[ "$(sym "$TMP/gcache" "$dump" --comms bidgone)" -ge 1 ] ||
	fail "the stock reports no bid_hot_spin of the deleted binary from the dump's cache"
[ "$(sym "$TMP/empty" "$dump" --comms bidgone)" -eq 0 ] || fail "bid_hot_spin found without the cache"

# bad input: a binary deleted before a normal recording ends is counted
# and said (not with -q, which silences warnings); the file is kept
for q in "" -q; do
	cp "$HOT" "$TMP/bin/bidrm"
	"$PERF" --buildid-dir "$TMP/xcache" record $q -e cpu-clock -o rm.data -- \
		sh -c "$TMP/bin/bidrm 50000000 && rm $TMP/bin/bidrm" 2> rm.err ||
		fail "record $q: $(cat rm.err)"
	if [ -z "$q" ]; then
		grep -q "rm.data: build-id cache: 1 of .* binaries left out (1 unreadable or gone.*bidrm" rm.err ||
			fail "the deleted binary is not reported: $(cat rm.err)"
	else
		[ -s rm.err ] && fail "-q: $(cat rm.err)"
	fi
	stock_reads_clean rm.data
done

# a full disk while filling the cache: the recording is kept, the binaries
# that did not fit are counted, no partial copy is left
mkdir full
mount -t tmpfs -o size=96k tmpfs full || fail "mount a small tmpfs"
trap 'umount "$TMP/full" 2>/dev/null; cleanup' EXIT
"$PERF" --buildid-dir "$TMP/full" record -q -e cpu-clock -o full.data "$HOT" 50000000 2> full.err ||
	fail "record with a full cache disk: exit $?: $(cat full.err)"
grep -q "full.data: build-id cache: [1-9][0-9]* of .*[1-9][0-9]* failed; last: .*No space left on device" full.err ||
	fail "the full disk is not reported: $(cat full.err)"
check_file full.data "" hot
find full -name '*.tmp.*' | grep -q . && fail "partial copies left: $(find full -name '*.tmp.*')"
exit 0
