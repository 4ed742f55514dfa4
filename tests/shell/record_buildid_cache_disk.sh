#!/bin/bash
# perf record: the build-id cache keeps a sparse binary's holes, stays within --buildid-cache-max, and a recorder killed mid-copy leaves no file
. "$(dirname "$0")/lib/common.sh"
need_stock
need_cc
command -v objcopy >/dev/null || skip "no objcopy"
cd "$TMP" || exit 1
export HOME=$TMP
bid() { "$STOCK" buildid-list -i "$1" 2>/dev/null; }
blocks() { stat -c %b "$1"; }
# what the regular files under DIR take on disk, in bytes
disk() { find "$1" -type f -printf '%b\n' | awk '{ s += $1 } END { print s * 512 }'; }

# 1. a 400 MB binary with 64 KB of data costs the cache its data, not its
# size, and the copy reads back the same
build_tagged sparse 1
dd if=/dev/urandom of=sparse bs=64K count=1 seek=3200 conv=notrunc status=none || fail "dd"
truncate -s 400M sparse
sparse_bid=$(bid sparse)
[ ${#sparse_bid} -eq 40 ] || fail "no build id of the sparse binary: '$sparse_bid'"
"$PERF" --buildid-dir "$TMP/scache" record -q -e cpu-clock:u -o sparse.data ./sparse 30000000 \
	2> sparse.err || fail "record: $(cat sparse.err)"
copy=$TMP/scache/.build-id/${sparse_bid:0:2}/${sparse_bid:2}/elf
[ -f "$copy" ] || fail "the sparse binary is not in the cache: $(cat sparse.err)"
log "sparse: $(blocks sparse) blocks, its copy $(blocks "$copy")"
[ "$(blocks "$copy")" -le "$(blocks sparse)" ] ||
	fail "the copy of a binary of $(blocks sparse) blocks took $(blocks "$copy")"
cmp -s sparse "$copy" || fail "the cache's copy of the sparse binary differs"

# 2. --buildid-cache-max: what one recording adds stays within it; a
# binary that does not fit is left out, the ones after it still go in,
# and the closing line counts what was left out. Static binaries: the
# DSOs are exactly first, the vdso and second.
build_tagged second 2 -static
build_tagged first 3 -static
head -c 4M /dev/urandom > blob
objcopy --add-section .blob=blob --set-section-flags .blob=noload,readonly first ||
	fail "objcopy"
first_bid=$(bid first) second_bid=$(bid second)
"$PERF" --buildid-dir "$TMP/ccache" record --buildid-cache-max=2M -e cpu-clock:u -o cap.data \
	./first 30000000 ./second 30000000 2> cap.err || fail "record: $(cat cap.err)"
log "$(cat cap.err)"
stock_reads_clean cap.data
[ "$(disk "$TMP/ccache")" -le $((2 << 20)) ] ||
	fail "the cache took $(disk "$TMP/ccache") bytes with --buildid-cache-max=2M"
[ -e "$TMP/ccache/.build-id/${first_bid:0:2}/${first_bid:2}" ] &&
	fail "the 4 MB binary went into a cache of 2M at most"
[ "$(bid "$TMP/ccache/.build-id/${second_bid:0:2}/${second_bid:2}/elf")" = "$second_bid" ] ||
	fail "the binary after the one left out is not in the cache: $(cat cap.err)"
grep -q '^\[ perf record: build-id cache: 1 binaries left out: this recording added [0-9.]* MB of --buildid-cache-max=2048K \]$' cap.err ||
	fail "no closing line counting 1 binary left out: $(cat cap.err)"
grep -q "cap.data: build-id cache: 1 of 3 binaries left out (.* 1 over --buildid-cache-max, 0 failed; last: $TMP/first" cap.err ||
	fail "the file's line does not name the binary left out: $(cat cap.err)"
"$PERF" record --buildid-cache-max=0 -o bad.data true 2> bad.err && fail "--buildid-cache-max=0 accepted"
grep -q "invalid --buildid-cache-max '0'" bad.err || fail "--buildid-cache-max=0: $(cat bad.err)"

# 3. killed while it copies a binary into the cache: no file is left
# there, named or not. Every write is made slow, so the copy is caught
# under way whatever the machine's load.
command -v strace >/dev/null || skip "no strace to slow the copy down"
strace -f -qq -o /dev/null -e trace=write,writev,pwrite64 \
	-e inject=write,writev,pwrite64:delay_enter=50000 \
	"$PERF" --buildid-dir "$TMP/kcache" record -q -e cpu-clock:u -o kill.data ./first 30000000 \
	2> kill.err &
tracer=$!
BG_PIDS+=($tracer)
copying() {
	local p
	for p in $(pgrep -P $tracer); do
		ls -l /proc/$p/fd 2>/dev/null | grep -q "$TMP/kcache/.*${first_bid}" && { rec=$p; return 0; }
	done
	return 1
}
WAIT_LOG=kill.err wait_until "the recorder never copied first into the cache" copying
kill -9 $rec
{ wait $tracer; } 2>/dev/null
left=$(find "$TMP/kcache" -type f -path "*${first_bid}*")
[ -z "$left" ] || fail "a recorder killed mid-copy left $left"
find "$TMP/kcache" -name '*.tmp.*' | grep -q . && fail "temporary files left: $(find "$TMP/kcache" -name '*.tmp.*')"
exit 0
