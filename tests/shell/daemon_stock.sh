#!/bin/bash
# the stock perf's own tests/shell/daemon.sh (list, reconfig, stop, signal, ping, lock), unchanged, with perf being this perf
. "$(dirname "$0")/lib/common.sh"
need_root "the daemon's sessions record cpu-clock"
cd "$TMP" || exit 1

# The linux-perf package's script, copied at run time (never into the
# repository), found where dpkg says it is.
src=$(dpkg -L linux-perf 2>/dev/null | grep -m1 '/tests/shell/daemon.sh$')
src=${src:-/usr/lib/perf-core/tests/shell/daemon.sh}
[ -r "$src" ] || skip "the linux-perf package has no tests/shell/daemon.sh"
cp "$src" daemon.sh && chmod +x daemon.sh
mkdir bin && ln -s "$PERF" bin/perf

PATH="$TMP/bin:$PATH" timeout 300 ./daemon.sh > daemon.out 2>&1 < /dev/null
rc=$?
log "$(cat daemon.out)"
[ $rc = 0 ] || fail "the stock daemon.sh exited $rc: $(grep -m3 'FAILED' daemon.out)"
grep -q 'FAILED' daemon.out && fail "the stock daemon.sh said: $(grep -m3 FAILED daemon.out)"
[ "$(grep -c '^test daemon' daemon.out)" = 6 ] || fail "not all 6 parts ran: $(cat daemon.out)"
exit 0
