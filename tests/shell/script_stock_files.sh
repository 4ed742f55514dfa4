#!/bin/bash
# perf script reads every kind of file the stock perf writes (default, -g, -a tracepoints, -z, dwarf, --overwrite and its SIGUSR2 dump, sched, inject -b, -o -, several events -g -a, trace record): the stock's default lines, -F and --show-task/mmap-events
# (ID_INDEX, THREAD_MAP, CPU_MAP, EVENT_UPDATE, HEADER_BUILD_ID, COMPRESSED...); records it does not decode counted on one line; what the stock refuses, refused
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "system-wide recording"
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

# FILE and perf script's ARGS: both perfs' lines the same, and some lines.
same() {	# FILE ARGS...
	local f=$1 s
	shift
	# side by side: they share nothing but the file
	"$STOCK" script -i "$f" "$@" > stock.txt 2>/dev/null &
	s=$!
	"$PERF" script -i "$f" "$@" > ours.txt 2> ours.err || fail "$f $*: $(head -2 ours.err)"
	wait $s
	[ -s stock.txt ] || fail "$f $*: the stock perf prints no line"
	cmp -s ours.txt stock.txt ||
		fail "$f $*: own and stock differ: $(diff ours.txt stock.txt | head -4)"
	[ ! -s ours.err ] || fail "$f $*: said $(head -2 ours.err)"
	log "$f $*: $(wc -l < ours.txt) lines the same"
}

# FILE: the stock's default output, -F with the fields every sample has
# (cpu where the samples carry it) and the task and map records among
# the samples, whole lines: a PERF_RECORD_* line opens with its
# sample_id's pid/tid (0 for a record perf synthesized), as the stock's.
# Whole-system files: the workload's samples only (--pid), as what other
# tasks of the machine run is no part of the test.
same_all() {	# FILE [--pid PID]
	local f=$1 fields=comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso

	shift
	"$STOCK" script -i "$f" -F cpu > /dev/null 2>&1 || fields=${fields/,cpu/}
	same "$f" "$@"
	same "$f" -F "$fields" "$@"
	# a callchain's addresses without sym or dso: still each in its map
	same "$f" -F comm,tid,ip "$@"
	same "$f" --show-task-events --show-mmap-events "$@"
}

F=comm,tid,time,period,event,ip
spin="$PERF test -w spin 0.3"
# the workload of a whole-system recording, its pid in wl.pid
echo 'echo $$ > wl.pid; exec "$@"' > wl.sh
wl="sh wl.sh $spin"
# the recordings of the workload alone, side by side: each waits up to a
# second at its end for the stock's side band thread, on no CPU
bg_record() {	# NAME ARGS...: NAME.ok once the stock's record ARGS succeeded
	local name=$1
	shift
	"$STOCK" "$@" && touch "$name.ok"
}
bg_record def record -q -o def.data -- $spin &
bg_record g record -q -g -o g.data -- $spin &
bg_record z record -q -z -g -o z.data -- $spin &
bg_record dwarf record -q --call-graph dwarf -o dwarf.data -- $spin &
bg_record pipe record -q -o - -- $spin > pipe.data 2>/dev/null &
bg_record trace trace record -q -o trace.data -- $spin > /dev/null 2>&1 &
wait
[ -e def.ok ] || fail "record default"
same_all def.data
[ -e g.ok ] || fail "record -g"
same_all g.data
"$STOCK" record -q -a -e sched:sched_switch -e cpu-clock -o tp.data -- $wl || fail "record -a"
same_all tp.data --pid "$(cat wl.pid)"
"$STOCK" record -q -a -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o sys.data -- $wl ||
	fail "record raw_syscalls"
same_all sys.data --pid "$(cat wl.pid)"
[ -e z.ok ] || fail "record -z"
same_all z.data
# DWARF unwinding is another item: the fields without the call chain
[ -e dwarf.ok ] || fail "record dwarf"
same dwarf.data -F comm,pid,tid,time,period,event
"$STOCK" record -q --overwrite -a -o ow.data -- $wl || fail "record --overwrite"
same_all ow.data --pid "$(cat wl.pid)"
"$STOCK" sched record -q -o sched.data -- $wl > /dev/null 2>&1 || fail "sched record"
same_all sched.data --pid "$(cat wl.pid)"
"$STOCK" inject -b -i g.data -o inj.data || fail "inject -b"
same_all inj.data
[ -e pipe.ok ] || fail "record -o -"
same_all pipe.data
"$STOCK" record -q -e cpu-clock -e sched:sched_switch -g -a -o multi.data -- $wl ||
	fail "record several events -g -a"
same_all multi.data --pid "$(cat wl.pid)"
if [ -e trace.ok ]; then
	same_all trace.data
else
	log "the stock perf has no perf trace record here"
fi
# an overwrite dump that SIGUSR2 asks for (--switch-output names it); the
# workload's pid is read once it wrote it (the recorder can be ready first)
rm -f wl.pid
"$STOCK" record -q --overwrite --switch-output -a -o sw.data -- sh wl.sh $PERF test -w spin 30 \
	> /dev/null 2>&1 &
rec=$!
wait_ready $rec
wait_until "the workload wrote no pid" test -s wl.pid
kill -USR2 $rec
wait_until "no dump from SIGUSR2" compgen -G 'sw.data.[0-9]*' > /dev/null
kill -INT $rec
wait $rec
same_all "$(compgen -G 'sw.data.[0-9]*' | head -1)" --pid "$(cat wl.pid)"

# records that no one decodes here, in a file the stock reads: counted
# on one line at the end (an AUXTRACE_ERROR: type, code, cpu, pid, tid,
# fmt, ip, time, msg[64], machine_pid, vcpu)
insert() {	# IN OUT HEX-RECORDS...: put first in the data section
	python3 - "$@" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
recs = b''.join(bytes.fromhex(h) for h in sys.argv[3:])
doff, dsz = struct.unpack_from('<QQ', d, 40)
nfeat = sum(bin(x).count('1') for x in struct.unpack_from('<4Q', d, 0x48))
for i in range(nfeat):	# the feature sections move along
	at = doff + dsz + 16 * i
	o, s = struct.unpack_from('<QQ', d, at)
	struct.pack_into('<QQ', d, at, o + len(recs), s)
struct.pack_into('<Q', d, 48, dsz + len(recs))
open(sys.argv[2], 'wb').write(d[:doff] + recs + d[doff:])
PY
}
record() {	# TYPE BODY-HEX: one record as hex
	python3 -c 'import struct, sys; b = bytes.fromhex(sys.argv[2]); print((struct.pack("<IHH", int(sys.argv[1]), 0, 8 + len(b)) + b).hex())' "$@"
}
err=$(python3 -c 'import struct; print((struct.pack("<6I2Q", 1, 2, 0, 100, 100, 0, 0x1234, 0) + b"boom".ljust(64, b"\0") + struct.pack("<2I", 0, 0)).hex())')
insert def.data aux-error.data "$(record 72 "$err")" "$(record 72 "$err")" || fail "python3"
"$PERF" script -i aux-error.data -F $F > ours.txt 2> ours.err || fail "aux-error.data: $(head -2 ours.err)"
"$STOCK" script -i def.data -F $F > stock.txt 2>/dev/null
cmp -s ours.txt stock.txt || fail "AUXTRACE_ERROR records changed the lines"
[ "$(cat ours.err)" = "perf script: aux-error.data: records not decoded, skipped: 2 AUXTRACE_ERROR" ] ||
	fail "skipped records: said '$(cat ours.err)'"

# what the stock refuses: AUX area data with nothing saying how to read
# it, a type perf 6.1 does not know
# (size 16, offset, reference, idx, tid, cpu, reserved; then the 16 bytes)
aux=$(record 71 "$(python3 -c 'import struct; print(struct.pack("<3Q4I", 16, 0, 0, 0, 100, 0, 0).hex())')")
insert def.data aux.data "$aux$(printf '%032x' 0)" || fail "python3"
"$STOCK" script -i aux.data 2>&1 >/dev/null | grep -q "failed to process type: 71" ||
	fail "the stock perf reads AUXTRACE without AUXTRACE_INFO now: adapt"
"$PERF" script -i aux.data > /dev/null 2> ours.err && fail "AUXTRACE without AUXTRACE_INFO read"
grep -q "AUXTRACE: AUX area data without an AUXTRACE_INFO" ours.err || fail "said: $(cat ours.err)"
insert def.data t90.data "$(record 90 "")" || fail "python3"
"$STOCK" script -i t90.data 2>&1 >/dev/null | grep -q "failed to process type: 90" ||
	fail "the stock perf reads type 90 now: adapt"
"$PERF" script -i t90.data > /dev/null 2> ours.err && fail "a record of type 90 read"
grep -q "unsupported type 90" ours.err || fail "type 90: said $(cat ours.err)"
exit 0
