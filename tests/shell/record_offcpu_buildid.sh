#!/bin/bash
# perf record --off-cpu: the binaries in the user frames of offcpu-time samples get their build ids in the file (normal mode and a --overwrite dump) and in the build-id cache, even for a task that never ran long enough to be sampled on a CPU; the stock perf names the blocked task's functions from the cache once the binary is gone
. "$(dirname "$0")/lib/common.sh"
need_stock
need_bpf
need_cc
cd "$TMP" || exit 1

# bid-nap: blocks 0.2 s (in bidnap_wait(), called by main), under a build id of its own
cat > bidnap.c <<'EOF'
#include <time.h>

__attribute__((noinline)) void bidnap_wait(void)
{
	struct timespec ts = { 0, 200000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(void)
{
	bidnap_wait();
	return 0;
}
EOF
cc -O0 -g -fno-omit-frame-pointer -Wl,--build-id=sha1 -o bid-nap bidnap.c || fail "cc bidnap.c"
bid=$(readelf -n bid-nap | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "no build id in bid-nap"
cp bid-nap bid-nap.keep

# has_bid F WHAT: F's build-id list names bid-nap with its build id
has_bid() {
	"$STOCK" buildid-list -i "$1" 2>/dev/null | grep -q "^$bid .*bid-nap$" ||
		fail "$2: bid-nap's build id is not in $1: $("$STOCK" buildid-list -i "$1" 2>&1 | head -5)"
}

# normal mode, no other event: only the off-CPU sample hits bid-nap
"$PERF" record -q --off-cpu -e dummy -o nm.data -- ./bid-nap 2> nm.err ||
	fail "record: $(cat nm.err)"
has_bid nm.data "normal mode"
[ -d "$PERF_BUILDID_DIR/.build-id/${bid:0:2}/${bid:2}" ] ||
	fail "bid-nap is not in the build-id cache $PERF_BUILDID_DIR"
# the binary gone: the stock perf names the function from the cache
rm bid-nap
# (libc's clock_nanosleep keeps no frame pointer: the walk from it skips
# its caller, and finds main)
"$STOCK" --buildid-dir "$PERF_BUILDID_DIR" script -i nm.data -F event,ip,sym,dso 2>/dev/null |
	grep -Eq "[[:space:]]main \(.*/bid-nap\)$" ||
	fail "the stock perf script names no function of bid-nap from the cache"

# a flight recorder's dump
cp bid-nap.keep bid-nap
"$PERF" record -q --overwrite --switch-output --off-cpu -a -e dummy -o fl.data 2> fl.err &
rp=$!
BG_PIDS+=($rp)
wait_ready $rp
./bid-nap || fail "bid-nap"
kill -INT $rp
wait_stopped $rp INT || fail "--overwrite: recorder status $STOPPED_STATUS: $(cat fl.err)"
dump=$(compgen -G "fl.data.*" | sort | tail -1)
[ -n "$dump" ] || fail "--overwrite: no dump: $(cat fl.err)"
has_bid "$dump" "--overwrite dump"
stock_reads_clean "$dump"
exit 0
