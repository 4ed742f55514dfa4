#!/bin/bash
# perf record: the BUILD_ID feature, the build-id cache, perf archive, in
# normal files, rotated files and dumps
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "the flight recorder's rings"
command -v cc >/dev/null || skip "no C compiler"
cd "$TMP" || exit 1
cat > hot.c <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void bid_hot_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
int main(int argc, char **argv)
{
	bid_hot_spin(strtoul(argv[1], NULL, 0));
	return 0;
}
C
mkdir bin && cc -O1 -g -Wl,--build-id -o bin/bidhot hot.c || fail "compile"
HOT=$TMP/bin/bidhot
hot_bid=$("$STOCK" buildid-list -i "$HOT" 2>/dev/null)
[ ${#hot_bid} -eq 40 ] || fail "the stock reads no build id of the test binary: '$hot_bid'"

# FILE CACHE: the BUILD_ID feature lists what the samples hit (the stock
# works that out from the samples itself: --with-hits), plus the vdso; every
# entry is in CACHE
check_file() {
	local f=$1 cache=$2 listed hits name bid link
	stock_reads_clean "$f"
	listed=$("$STOCK" buildid-list -i "$f" 2>&1) || fail "buildid-list $f: $listed"
	hits=$("$STOCK" buildid-list -i "$f" --with-hits 2>&1) || fail "buildid-list --with-hits $f"
	log "$f: $(echo "$listed" | awk '{ print $2 }' | tr '\n' ' ')"
	echo "$listed" | grep -qx "$hot_bid $HOT" || fail "$f: no build id of $HOT: $listed"
	echo "$listed" | grep -q ' \[kernel.kallsyms\]$' || fail "$f: no kernel build id: $listed"
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
"$STOCK" --buildid-dir "$TMP/scache" record -q -e cpu-clock -o stock.data "$HOT" 100000000 2>/dev/null ||
	fail "stock record"
"$PERF" --buildid-dir "$TMP/cache" record -q -e cpu-clock -o our.data "$HOT" 100000000 2> our.err ||
	fail "record: $(cat our.err)"
[ -s our.err ] && fail "record said: $(cat our.err)"
check_file our.data "$TMP/cache"
# the same build id for a name as the stock's recording
"$STOCK" buildid-list -i stock.data 2>/dev/null | while read -r bid name; do
	ours=$("$STOCK" buildid-list -i our.data 2>/dev/null | awk -v n="$name" '$2 == n { print $1 }')
	[ -z "$ours" ] || [ "$ours" = "$bid" ] || fail "$name: build id $ours, the stock's $bid"
done || exit 1
# the cache in the stock's layout: what the stock made is there too
(cd "$TMP/scache" && find . -path './.build-id/*' -type l) | sort > stock.links
(cd "$TMP/cache" && find . -path './.build-id/*' -type l) | sort > our.links
comm -23 stock.links our.links | while read -r l; do
	bid=$(echo "$l" | tr -d './' | sed 's/buildid//')
	"$STOCK" buildid-list -i our.data --with-hits 2>/dev/null | grep -q "^$bid" &&
		fail "the stock cached $l, this perf did not"
done || exit 1

# -N: no cache; -B: no BUILD_ID
"$PERF" --buildid-dir "$TMP/ncache" record -q -N -e cpu-clock -o n.data "$HOT" 10000000 ||
	fail "record -N"
[ -e "$TMP/ncache" ] && fail "-N: the cache was filled"
"$PERF" --buildid-dir "$TMP/ncache" record -q -B -e cpu-clock -o b.data "$HOT" 10000000 ||
	fail "record -B"
"$STOCK" report -i b.data --header-only -I 2>/dev/null | grep -q 'build_id' &&
	fail "-B: a BUILD_ID feature"
[ -e "$TMP/ncache" ] && fail "-B: the cache was filled"
# PERF_BUILDID_DIR as the stock honours it
PERF_BUILDID_DIR=$TMP/ecache "$PERF" record -q -e cpu-clock -o e.data "$HOT" 10000000 ||
	fail "record with PERF_BUILDID_DIR"
[ -d "$TMP/ecache/.build-id/${hot_bid:0:2}/${hot_bid:2}" ] || fail "PERF_BUILDID_DIR: no cache entry"

# 2. perf archive, unpacked elsewhere with the binary gone: the stock still
# names the hot symbol, and does not without the archive
"$PERF" --buildid-dir "$TMP/cache" archive our.data > archive.out 2> archive.err ||
	fail "archive: $(cat archive.err)"
[ -s archive.err ] && fail "archive said: $(cat archive.err)"
mkdir unpacked empty
tar xf our.data.tar.bz2 -C unpacked || fail "the archive does not unpack"
mv "$HOT" "$TMP/hot.moved"
sym() { "$STOCK" --buildid-dir "$1" report -i "$2" --stdio --sort sym 2>/dev/null | grep -c bid_hot_spin; }
[ "$(sym "$TMP/unpacked" our.data)" -ge 1 ] || fail "the stock reports no bid_hot_spin from the archive"
[ "$(sym "$TMP/empty" our.data)" -eq 0 ] || fail "bid_hot_spin found without the archive: the test proves nothing"
mv "$TMP/hot.moved" "$HOT"

# 3. rotated files and a dump
"$PERF" --buildid-dir "$TMP/rcache" record -q --switch-output=signal -e cpu-clock -o rot.data \
	"$HOT" 400000000 2> rot.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
kill -USR2 $rec
rotated() { compgen -G 'rot.data.2*' > /dev/null; }
wait_until "no rotated file" rotated
wait $rec || fail "rotating record: $(cat rot.err)"
n=0
for f in rot.data.2*; do check_file "$f" "$TMP/rcache"; n=$((n + 1)); done
[ $n -ge 2 ] || fail "$n rotated files"

"$PERF" --buildid-dir "$TMP/dcache" record --overwrite --switch-output -e cpu-clock -o fl.data \
	-- "$HOT" 4000000000 2> fl.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
wait_exec $(pgrep -P $rec) bidhot
kill -USR2 $rec
wait_line fl.err "Dump fl.data"
kill -INT $rec
wait $rec
dump=$(ls fl.data.2* | head -1)
[ -n "$dump" ] || fail "no dump: $(cat fl.err)"
check_file "$dump" "$TMP/dcache"
exit 0
