#!/bin/bash
# perf script reads a stream (perf record -o -), the stock's and its own: -i -, a pipe on stdin without -i, -i FILE; the stock's lines
# (tracepoints too: tracing data after its record, names from EVENT_UPDATE); a cut stream, or one whose CMDLINE lies, is one line
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

F=comm,tid,time,period,event,ip
spin="$PERF test -w spin 0.3"

# STREAM (a file holding one): every way of reading it gives the stock's
# lines, and some
reads() {	# STREAM
	"$STOCK" script -i "$1" -F $F > stock.txt 2>/dev/null
	[ -s stock.txt ] || fail "$1: the stock perf prints no line"
	"$PERF" script -i "$1" -F $F > file.txt 2> err.txt || fail "$1: -i FILE: $(head -2 err.txt)"
	cmp -s file.txt stock.txt || fail "$1: -i FILE differs: $(diff file.txt stock.txt | head -4)"
	cat "$1" | "$PERF" script -i - -F $F > pipe.txt 2> err.txt || fail "$1: -i -: $(head -2 err.txt)"
	cmp -s pipe.txt stock.txt || fail "$1: -i - differs: $(diff pipe.txt stock.txt | head -4)"
	cat "$1" | "$PERF" script -F $F > stdin.txt 2> err.txt || fail "$1: stdin: $(head -2 err.txt)"
	cmp -s stdin.txt stock.txt || fail "$1: a pipe on stdin differs: $(diff stdin.txt stock.txt | head -4)"
	"$PERF" script -i - -F $F < "$1" > redir.txt 2> err.txt || fail "$1: -i - < FILE: $(head -2 err.txt)"
	cmp -s redir.txt stock.txt || fail "$1: -i - < FILE differs"
	[ ! -s err.txt ] || fail "$1: said $(head -2 err.txt)"
	log "$1: $(wc -l < stock.txt) lines the same, 4 ways"
}

"$STOCK" record -q -e cpu-clock -o - -- $spin > stock.pipe 2>/dev/null || fail "stock record -o -"
reads stock.pipe
"$PERF" record -q -e cpu-clock -o - -- $spin > own.pipe 2>/dev/null || fail "record -o -"
reads own.pipe
# a stream names its events (EVENT_UPDATE), else the stock makes a name up
# from the attr: "cpu-clock:HG"
"$STOCK" script -i own.pipe -F event 2>/dev/null | awk '{print $1}' > names.txt
[ "$(sort -u names.txt)" = "cpu-clock:" ] || fail "own stream: the stock names its event $(sort -u names.txt | head -2)"
"$STOCK" script -D -i own.pipe 2>/dev/null | grep -A3 EVENT_UPDATE | grep -q '\.\.\. unit: *msec' ||
	fail "own stream: no unit for cpu-clock"
# tracepoints: the tracing data follows its record; names from EVENT_UPDATE
if grep -q . /sys/kernel/tracing/events/syscalls/sys_enter_close/id 2>/dev/null; then
	"$STOCK" record -q -e syscalls:sys_enter_close -o - -- $PERF test -w closes 20 \
		> stock-tp.pipe 2>/dev/null || fail "stock record -o - a tracepoint"
	reads stock-tp.pipe
	"$PERF" record -q -e syscalls:sys_enter_close -o - -- $PERF test -w closes 20 \
		> own-tp.pipe 2>/dev/null || fail "record -o - a tracepoint"
	reads own-tp.pipe
fi

# live, through a pipe: what the stock perf prints from the same stream
"$STOCK" record -q -e cpu-clock -o - -- $spin 2>/dev/null | tee live.pipe |
	"$PERF" script -i - -F $F > live.txt 2> err.txt || fail "live: $(head -2 err.txt)"
"$STOCK" script -i live.pipe -F $F > stock.txt 2>/dev/null
[ -s live.txt ] && cmp -s live.txt stock.txt || fail "live pipe: $(diff live.txt stock.txt | head -4)"
"$PERF" record -q -e cpu-clock -o - -- $spin 2>/dev/null | tee live.pipe |
	"$PERF" script -F $F > live.txt 2> err.txt || fail "own live: $(head -2 err.txt)"
"$STOCK" script -i live.pipe -F $F > stock.txt 2>/dev/null
[ -s live.txt ] && cmp -s live.txt stock.txt || fail "own live pipe: $(diff live.txt stock.txt | head -4)"

# a stream cut short: one line naming what is missing, no crash
head -c 3000 stock.pipe | "$PERF" script -i - > /dev/null 2> err.txt && fail "a cut stream was read"
[ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^perf script: -: record at offset" err.txt ||
	fail "a cut stream: said $(cat err.txt)"

# a stream whose CMDLINE feature claims 1000 strings: refused (the stock
# overruns its heap on one) in one line naming the feature
python3 - live.pipe bad.pipe <<'PY' || fail "no CMDLINE feature record in live.pipe"
import struct, sys
p = bytearray(open(sys.argv[1], "rb").read())
off = 16
while off + 16 <= len(p):
    t, _, size = struct.unpack_from("<IHH", p, off)
    if t == 80 and struct.unpack_from("<Q", p, off + 8)[0] == 11:	# HEADER_FEATURE, CMDLINE
        struct.pack_into("<I", p, off + 16, 1000)
        open(sys.argv[2], "wb").write(p)
        sys.exit(0)
    if size < 8:
        break
    off += size
sys.exit(1)
PY
"$PERF" script -i - < bad.pipe > /dev/null 2> err.txt && fail "a stream with a lying CMDLINE was read"
[ "$(wc -l < err.txt)" -eq 1 ] && grep -q "HEADER_FEATURE: malformed feature 11 (CMDLINE)$" err.txt ||
	fail "a lying CMDLINE: said $(cat err.txt)"
exit 0
