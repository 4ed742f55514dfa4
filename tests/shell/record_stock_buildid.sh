#!/bin/bash
# the stock perf's own shell test buildid.sh (sha1 and md5 build ids, perf record --buildid-all into --buildid-dir), with perf record routed to this perf
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# the linux-perf package's script, copied here at run time (see
# record_stock_shell.sh), never into the repository
src=$(dpkg -L linux-perf 2>/dev/null | grep -m1 '/tests/shell/buildid.sh$')
[ -r "$src" ] || skip "the linux-perf package has no tests/shell/buildid.sh"
need_cc "buildid.sh's binaries"
command -v readelf > /dev/null || skip "no readelf (binutils): buildid.sh reads build ids with it"
cp "$src" buildid.sh
chmod +x buildid.sh
route_record bin
# the routing is real: the wrapper runs this perf for a --buildid-dir record
[ "$(PATH="$TMP/bin:$PATH" perf --buildid-dir "$TMP/probe" record -h 2>&1)" = \
  "$("$PERF" record -h 2>&1)" ] || fail "perf --buildid-dir D record is not routed to $PERF"

# bash: the script says #!/bin/sh but uses ${id:0:2} (dash: "Bad
# substitution"), as the stock's perf test runs it with bash in later kernels
PATH="$TMP/bin:$PATH" bash ./buildid.sh > buildid.out 2>&1 < /dev/null
rc=$?
log "$(grep -E '^(running|OK|failed)' buildid.out | tr '\n' ';')"
[ $rc = 0 ] || fail "buildid.sh exit $rc: $(grep -v '^$' buildid.out | tail -6 | tr '\n' ' ')"
# both record cases ran and passed
[ "$(grep -c '^running: perf record' buildid.out)" -ge 2 ] || fail "buildid.sh ran no perf record: $(cat buildid.out)"
[ "$(grep -c '^OK for' buildid.out)" -ge 4 ] || fail "buildid.sh checked fewer than 4 binaries: $(cat buildid.out)"
exit 0
