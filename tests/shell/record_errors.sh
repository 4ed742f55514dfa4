#!/bin/bash
# perf record and perf script: bad input gets one clear line and a non-zero exit
. "$(dirname "$0")/lib/common.sh"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

# expect_error EXIT_CODE PATTERN -- perf args...: one stderr line matching PATTERN
expect_error() {
	local want_rc=$1 pattern=$2 rc lines
	shift 3
	"$PERF" "$@" > out 2> err
	rc=$?
	lines=$(grep -c . err)
	log "perf $*: rc=$rc: $(cat err)"
	[ $rc -eq "$want_rc" ] || fail "perf $*: exit $rc, want $want_rc ($(cat err))"
	[ "$lines" -eq 1 ] || fail "perf $*: $lines lines on stderr: $(cat err)"
	grep -q -- "$pattern" err || fail "perf $*: '$(cat err)' does not match '$pattern'"
	ls -a | grep -q '\.tmp' && fail "perf $*: left a temporary file"
	return 0
}

expect_error 129 "event syntax error: 'foo': unknown event 'foo'" -- record -o x.data -e foo -- true
expect_error 129 "event syntax error: 'cpu-clock/bogus/'" -- record -o x.data -e cpu-clock/bogus/ -- true
expect_error 129 "unknown tracepoint 'sched:nonexistent'" -- record -o x.data -e sched:nonexistent -- true
expect_error 129 "invalid -m/--mmap-pages '0'" -- record -o x.data -m 0 -- true
expect_error 129 "invalid -m/--mmap-pages '12Q'" -- record -o x.data -m 12Q -- true
expect_error 129 "invalid -c/--count '0'" -- record -o x.data -c 0 -- true
expect_error 129 "invalid -F/--freq 'fast'" -- record -o x.data -F fast -- true
expect_error 1 "cpu list '4096': CPU not online" -- record -o x.data -C 4096 -- true
expect_error 1 "cpu list '0-x'" -- record -o x.data -C 0-x -- true
expect_error 1 "pid '2147483000': No such process" -- record -o x.data -p 2147483000
expect_error 1 "tid '2147483000': No such process" -- record -o x.data -t 2147483000
expect_error 1 "cannot create output file /nonexistent-dir/x.data: No such file or directory" -- \
	record -o /nonexistent-dir/x.data -- true
expect_error 255 "Failed to exec '/nonexistent-program': No such file or directory" -- \
	record -o x.data -- /nonexistent-program
expect_error 129 "unknown option \`bogus'" -- record --bogus -- true
[ -e x.data ] && fail "a failed record left x.data"

# -m rounds to a power of two pages, saying so
"$PERF" record -o x.data -m 3 -- true 2> err || fail "-m 3"
grep -q "rounding mmap pages size to 16K (4 pages)" err || fail "-m 3 did not round: $(cat err)"

# an existing output becomes FILE.old; the new file is private
echo keep > y.data
"$PERF" record -q -o y.data -- true || fail "record over y.data"
[ "$(cat y.data.old)" = keep ] || fail "y.data.old does not hold the old file"
[ "$(stat -c %a y.data)" = 600 ] || fail "mode $(stat -c %a y.data)"
# a symlink or a fifo is refused up front, and left as it is
ln -s "$TMP/victim" link.data
expect_error 1 "link.data: is a symbolic link" -- record -o link.data -- true
[ -e victim ] && fail "wrote through a symlink"
[ -L link.data ] || fail "link.data was replaced"
mkfifo fifo.data
expect_error 1 "fifo.data: not a regular file" -- record -o fifo.data -- true
[ -p fifo.data ] || fail "fifo.data was replaced"
expect_error 1 "-o '': empty file name" -- record -o '' -- true
expect_error 129 "--overwrite cannot write to -o -" -- record --overwrite -o - -- true
[ -e ./- ] && fail "a file named - was written"

# (permission denied for an unprivileged user: record_paranoid.sh)

# perf script on broken files: one line, exit 1, never a crash
"$PERF" record -q -o good.data -e cpu-clock -- "$PERF" test -w spin 0.2 || fail "record good.data"
: > empty.data
head -c 50 good.data > short.data
size=$(stat -c %s good.data)
head -c $((size / 2)) good.data > half.data
printf 'PERFILE3' | cat - good.data | head -c $size > magic.data
expect_error 1 "empty.data: file is empty" -- script -i empty.data
expect_error 1 "short.data: truncated header" -- script -i short.data
expect_error 1 "half.data: data section out of bounds" -- script -i half.data
expect_error 1 "magic.data: not a perf.data file" -- script -i magic.data
expect_error 1 "nothere.data: No such file or directory" -- script -i nothere.data
# a record with a bogus size in the middle of the data section
off=$(( $("$STOCK" report -i good.data --header-only 2>/dev/null | awk '/data offset/ {print $NF}') ))
[ "$off" -gt 0 ] || fail "the stock perf shows no data offset for good.data"
cp good.data badrec.data
printf '\x01\x00\x00\x00\x00\x00\x07\x00' | dd of=badrec.data bs=1 seek=$off conv=notrunc 2>/dev/null
expect_error 1 "bad size 7" -- script -i badrec.data
# the first record's type made HEADER_ATTR (64), whose body the stock
# perf checks: a lie in it refused, not skipped
cp good.data usertype.data
printf '\x40\x00\x00\x00' | dd of=usertype.data bs=1 seek=$off conv=notrunc 2>/dev/null
expect_error 1 "HEADER_ATTR: bad attr.size" -- script -i usertype.data
# a tracepoint whose id TRACING_DATA does not describe: the stock perf
# refuses the file ("cannot find event format"), and so does ours
if [ -d /sys/kernel/tracing/events/syscalls/sys_enter_close ]; then
	"$PERF" record -q -o tp.data -c 1 -e syscalls:sys_enter_close -- true || fail "record tp.data"
	attrs=$(od -An -t u8 -j 24 -N 8 tp.data | tr -d ' ')
	cp tp.data noformat.data
	# attr.config (8 bytes into the first attr) := 3999999999
	printf '\xff\x27\x6b\xee\x00\x00\x00\x00' | dd of=noformat.data bs=1 seek=$((attrs + 8)) conv=notrunc 2>/dev/null
	"$STOCK" report --stats -i noformat.data > /dev/null 2>&1 && fail "the stock perf reads noformat.data: test broken"
	expect_error 1 "cannot find event format for 3999999999" -- script -i noformat.data
	# a format libtraceevent cannot take at all ('name:' garbled) describes
	# nothing either, for the stock perf as for ours
	LC_ALL=C sed 's/name: sys_enter_close/naie: sys_enter_close/' tp.data > badname.data
	cmp -s tp.data badname.data && fail "no format to garble in tp.data"
	"$STOCK" report --stats -i badname.data > /dev/null 2>&1 && fail "the stock perf reads badname.data: test broken"
	expect_error 1 "cannot find event format for" -- script -i badname.data
fi
exit 0
