#!/bin/bash
# commands this perf lacks (report, archive, ...) run the distribution's perf from PERF_EXEC_PATH or PATH, never this perf itself, else one line; make install puts binary, man pages and unit under DESTDIR/PREFIX
. "$(dirname "$0")/lib/common.sh"
need_stock
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP" || exit 1
real_stock=$(readlink -f "$STOCK")
unset PERF_BUILDID_DIR	# the arguments as given, first (the cache comes after)

mkdir self other loop
ln -s "$PERF" self/perf		# this perf, under another name: skipped
printf '#!/bin/sh\necho "other perf: $*"\n' > other/perf
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PERF" > loop/perf	# a wrapper that runs this perf again
chmod +x other/perf loop/perf

# beside this one in PATH, skipping itself; arguments as given
out=$(PATH="$TMP/self:$TMP/other:/bin:/usr/bin" "$PERF" annotate -i 'a b' --stdio 2>&1)
[ "$out" = "other perf: annotate -i a b --stdio" ] || fail "PATH dispatch: '$out'"
# PERF_EXEC_PATH first, as a directory or as the binary itself
out=$(PATH="$TMP/self:/bin:/usr/bin" PERF_EXEC_PATH="$TMP/other" "$PERF" sched 2>&1)
[ "$out" = "other perf: sched" ] || fail "PERF_EXEC_PATH dir: '$out'"
out=$(PATH="$TMP/self:/bin" PERF_EXEC_PATH="$TMP/other/perf" "$PERF" buildid-list 2>&1)
[ "$out" = "other perf: buildid-list" ] || fail "PERF_EXEC_PATH file: '$out'"
# `perf help CMD` of a command it lacks is the other perf's help
out=$(PATH="$TMP/other:/bin" "$PERF" help report 2>&1)
[ "$out" = "other perf: help report" ] || fail "help dispatch: '$out'"

# the build-id cache this perf uses goes on as the stock's --buildid-dir
# (the stock alone reads $PERF_BUILDID_DIR only in its scripts)
out=$(PATH="$TMP/other:/bin" PERF_BUILDID_DIR="$TMP/c d" "$PERF" report -i x 2>&1)
[ "$out" = "other perf: --buildid-dir $TMP/c d report -i x" ] || fail "PERF_BUILDID_DIR: '$out'"
out=$(PATH="$TMP/other:/bin" "$PERF" --buildid-dir "$TMP/e" report 2>&1)
[ "$out" = "other perf: --buildid-dir $TMP/e report" ] || fail "--buildid-dir: '$out'"
out=$(PATH="$TMP/other:/bin" PERF_BUILDID_DIR= "$PERF" report 2>&1)
[ "$out" = "other perf: report" ] || fail "an empty PERF_BUILDID_DIR: '$out'"

# none but itself: one line naming the command, non-zero
for env in "" "PERF_BUILDID_DIR=$TMP/c"; do
	out=$(env $env PATH="$TMP/self" "$PERF" report 2>&1) && fail "report without another perf succeeded"
	[ "$out" = "perf: 'report' is not built into this perf, and no other perf is in PERF_EXEC_PATH or PATH (Debian: apt-get install linux-perf)" ] ||
		fail "no other perf ($env): '$out'"
done
# a wrapper leading back here: stopped after a few hops, one line
out=$(PATH="$TMP/loop:/bin" timeout 10 "$PERF" report 2>&1)
rc=$?
[ $rc = 1 ] || fail "a loop back to this perf: exit $rc: $(echo "$out" | head -2)"
[ "$out" = "perf: 'report' is not built into this perf, and 8 perfs in a row handed it on (a wrapper that runs this perf again?): set PERF_EXEC_PATH to the distribution's perf" ] ||
	fail "loop: '$out'"
# but a perf the other one runs may hand over again (the stock's perf
# archive runs perf buildid-list): one more hop is fine
out=$(PATH="$TMP/other:/bin" PERF_EXEC_DEPTH=3 "$PERF" archive 2>&1)
[ "$out" = "other perf: archive" ] || fail "nested hand-over: '$out'"
# the commands it has are its own, whatever is in PATH
PATH="$TMP/other:/bin" "$PERF" record -q -o r.data -e cpu-clock -- true || fail "record with another perf in PATH"

# the real thing: the stock perf's report of our file, through this perf
"$PERF" record -q -o r.data -e cpu-clock -- "$PERF" test -w spin 0.2 || fail "record"
want=$("$STOCK" report --stats -i r.data 2>&1)
got=$(PATH="$(dirname "$real_stock"):/usr/bin:/bin" "$PERF" report --stats -i r.data 2>&1)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "report through this perf differs from the stock's: $(echo "$got" | head -3)"

# make install: PREFIX and DESTDIR
# (of build/perf, which make install installs, in the sanitizer run too)
if [ -f "$src/Makefile" ] && [ -x "$src/build/perf" ]; then
	make -s -C "$src" install DESTDIR="$TMP/root" PREFIX=/opt/p > install.log 2>&1 ||
		fail "make install: $(tail -3 install.log)"
	cmp "$TMP/root/opt/p/bin/perf" "$src/build/perf" || fail "installed binary differs"
	[ "$(stat -c %a "$TMP/root/opt/p/bin/perf")" = 755 ] || fail "binary mode"
	for m in perf-daemon perf-record perf-script perf-test; do
		[ -s "$TMP/root/opt/p/share/man/man1/$m.1" ] || fail "no man page $m.1 installed"
	done
	grep -qx 'ExecStart=/opt/p/bin/perf daemon start -f --config ${PERF_CONFIG}' \
		"$TMP/root/opt/p/lib/systemd/system/perf-flightrec.service" || fail "unit's ExecStart"
else
	fail "make install: no source tree with a build/perf at $src"
fi
exit 0
