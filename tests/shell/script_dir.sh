#!/bin/bash
# perf script -i DIR reads the perf.data directory of record --threads (the stock's and this perf's: -z, -g, core/numa/mask specs; perf.data itself a directory): the stock's bytes, by default and with -F
# and its files as hostile input: extra, empty, missing and non-regular data.* files read as the stock reads them, a FIFO never waited on, a symbolic link or an unknown DIR_FORMAT version refused with one line
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "system-wide recording"
cd "$TMP" || exit 1

spin="$PERF test -w spin 0.3"

# DIR and -F args: both perfs print the same bytes and the same status
same() {	# DIR [ARGS...]
	local d=$1 rc src
	shift
	timeout 60 "$PERF" script -i "$d" "$@" > ours.txt 2> ours.err
	rc=$?
	[ $rc = 124 ] && fail "$d $*: still reading after 60 s (waiting on a FIFO?)"
	"$STOCK" script -i "$d" "$@" > stock.txt 2>/dev/null
	src=$?
	[ $rc = 0 ] || fail "$d $*: exit $rc: $(head -2 ours.err)"
	[ $src = 0 ] || fail "$d $*: the stock perf exits $src"
	[ -s stock.txt ] || fail "$d $*: the stock perf prints no line"
	cmp -s ours.txt stock.txt ||
		fail "$d $*: own and stock differ: $(diff ours.txt stock.txt | head -4)"
	[ ! -s ours.err ] || fail "$d $*: said $(head -2 ours.err)"
	log "$d $*: $(wc -l < ours.txt) lines the same"
}

both() {	# DIR: default output and -F
	[ -d "$1" ] && [ -f "$1/data" ] && ls "$1"/data.* > /dev/null 2>&1 ||
		fail "$1: no perf.data directory was written"
	same "$1"
	same "$1" -F comm,tid,cpu,time,period,event,ip,sym
}

# refused: non-zero exit and one line that names WHAT
refused() {	# DIR WHAT
	timeout 60 "$PERF" script -i "$1" > out.txt 2> err.txt
	local rc=$?
	[ $rc = 124 ] && fail "$1: still reading after 60 s"
	[ $rc != 0 ] || fail "$1: read, exit 0 (should be refused: $2)"
	[ "$(wc -l < err.txt)" = 1 ] || fail "$1: not one line: $(cat err.txt)"
	grep -qF -- "$2" err.txt || fail "$1: the line does not name '$2': $(cat err.txt)"
	[ ! -s out.txt ] || fail "$1: printed output while refusing"
}

"$STOCK" record -q --threads -a -e cpu-clock -o s.data -- $spin || fail "stock record --threads"
both s.data
"$STOCK" record -q --threads -z -g -a -e cpu-clock -o sz.data -- $spin ||
	fail "stock record --threads -z -g"
both sz.data
"$STOCK" record -q --threads=0/0:1/1 -a -e cpu-clock,task-clock -o sm.data -- $spin ||
	fail "stock record --threads=masks"
both sm.data

"$PERF" record -q --threads -a -e cpu-clock -o t.data -- $spin || fail "record --threads"
both t.data
"$PERF" record -q --threads -z -g -a -e cpu-clock -o tz.data -- $spin ||
	fail "record --threads -z -g"
both tz.data
for spec in core numa 0-1/0-1; do
	"$PERF" record -q --threads=$spec -a -e cpu-clock -o "t-${spec//\//_}.data" -- $spin ||
		fail "record --threads=$spec"
	both "t-${spec//\//_}.data"
done

# perf.data being a directory: the default input
mkdir def && cp -a s.data def/perf.data || fail "copy"
(cd def && "$PERF" script > ../def.txt 2> ../def.err) || fail "default input: $(head -2 def.err)"
"$STOCK" script -i s.data > stock-def.txt 2>/dev/null
cmp -s def.txt stock-def.txt || fail "default input perf.data/: differs from the stock's"

# what is beside the header: the stock reads every regular data.* file
# (in the directory's order), whatever its name, and leaves the rest out
variant() {	# NAME: a copy of s.data to change
	rm -rf "$1" && cp -a s.data "$1" || fail "copy $1"
}
variant extra && cp extra/data.0 extra/data.extra
same extra
variant missing && rm missing/data.0
same missing
variant empty && : > empty/data.0
same empty
variant subdir && mkdir subdir/data.7 && cp s.data/data.0 subdir/data.7/data.0
same subdir
variant fifo && mkfifo fifo/data.9
same fifo

# hostile: never through a link, never an unknown layout
variant link && rm link/data.1 && ln -s ../s.data/data.1 link/data.1
refused link "link/data.1: a symbolic link"
variant hdrlink && mv hdrlink/data hdr && ln -s ../hdr hdrlink/data
refused hdrlink "hdrlink/data"
variant none && rm none/data.*
refused none "no data.N record file"
variant v2 && python3 - v2/data <<'PY' || fail "set DIR_FORMAT"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
doff, dsz = struct.unpack_from('<QQ', b, 40)
feats = int.from_bytes(b[72:104], 'little')
assert feats >> 24 & 1, "no DIR_FORMAT"
idx = bin(feats & ((1 << 24) - 1)).count('1')
off, size = struct.unpack_from('<QQ', b, doff + dsz + 16 * idx)
struct.pack_into('<Q', b, off, 2)
open(sys.argv[1], 'wb').write(b)
PY
refused v2 "DIR_FORMAT version 2"
exit 0
