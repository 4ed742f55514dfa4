#!/bin/bash
# perf record --overwrite: control EOF, queued snapshots and stop, an empty last dump, names taken by others
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }

# --control=fd:N whose writer closed: EOF takes the fd out of the poll set
# instead of spinning on it
"$PERF" record -q --overwrite -a -e cpu-clock -c 10000000 --control=fd:3 -o eof.data 3< <(:) &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
t0=$(cpu_ticks $rec)
sleep 1
t1=$(cpu_ticks $rec)
[ $((t1 - t0)) -lt 30 ] || fail "control fd at EOF: the recorder used $((t1 - t0)) ticks of CPU in 1 s"
kill -INT $rec
wait_gone $rec "control EOF"

# 3,000 queued snapshots then a stop: the stop is served first, the
# snapshots collapse, and the recorder ends at once with its last dump
mkfifo ctl ack
"$PERF" record -q --overwrite -a -e cpu-clock -c 1000000 --control=fifo:ctl,ack -o q.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
sleep 0.3	# some samples for the last dump
exec 7<>ack
{ for _ in $(seq 3000); do echo snapshot; done; echo stop; } > cmds
cat cmds > ctl		# one write: all of it is queued before the recorder reads
wait_gone $rec "3,000 snapshots and a stop"
wait $rec || fail "queued snapshots: exit status"
n=$(ls q.data.* 2>/dev/null | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "3,000 queued snapshots and a stop made $n dumps"
for f in q.data.*; do stock_reads_clean "$f"; done

# a flood of snapshots without a stop: SIGINT still ends the recorder
"$PERF" record -q --overwrite -a -e cpu-clock -c 10000000 --control=fifo:ctl,ack -o fl.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
( while :; do echo snapshot; done > ctl ) 2>/dev/null &
flood=$!
BG_PIDS+=($flood)
# the flood is being served: a snapshot of it made a dump
have_files() { compgen -G "$1" > /dev/null; }
wait_until "a dump from the flood of snapshots" have_files 'fl.data.*'
kill -INT $rec
wait_gone $rec "SIGINT during a flood of snapshots"
kill $flood 2>/dev/null

# an ack fd nobody reads (a pipe that fills): acks that do not fit are
# dropped, the recorder never blocks, SIGINT still ends it
for _ in $(seq 20000); do echo enable; done > enables
"$PERF" record -q --overwrite -a -e cpu-clock -c 10000000 --control=fd:3,4 -o ab.data \
	3< enables 4> >(sleep 30) &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
# every command read (so the ack pipe has filled: 20000 acks, 64K of pipe)
wait_until "the recorder to read all 20000 commands" \
	grep -qx "pos:[[:space:]]*$(stat -c %s enables)" /proc/$rec/fdinfo/3
kill -INT $rec
wait_gone $rec "SIGINT with an ack pipe nobody reads"

# nothing sampled: no file, said plainly, and the workload's exit status
"$PERF" record --overwrite -e cpu-clock -c 1000000000 -o none.data -- sh -c 'exit 3' 2> none.err
rc=$?
[ $rc -eq 3 ] || fail "an empty last dump: exit $rc, want the workload's 3 ($(cat none.err))"
grep -q "No samples recorded: nothing written" none.err || fail "empty: $(cat none.err)"
grep -q "since the last dump" none.err && fail "empty: speaks of a last dump that never was"

# files named like the next dumps (another run's, or planted): the dump
# takes another name at once and leaves them alone
"$PERF" record -q --overwrite --switch-output -a -e cpu-clock -c 1000000 -o dc.data &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
now=$(date +%s)
first=$(date -d "@$now" +%Y%m%d%H%M%S) last=$(date -d "@$((now + 5))" +%Y%m%d%H%M%S)
for s in 0 1 2 3 4 5; do
	stamp=$(date -d "@$((now + s))" +%Y%m%d%H%M%S)
	for cs in $(seq -w 0 99); do
		for sfx in "" -1 -2 -3; do echo decoy > "dc.data.$stamp$cs$sfx"; done
	done
done
ndecoys=$(ls dc.data.* | wc -l)
more_than_decoys() { [ "$(ls dc.data.* | wc -l)" -gt "$ndecoys" ]; }
kill -USR2 $rec
wait_until "a dump after SIGUSR2 among decoys" more_than_decoys
kill -INT $rec
wait_gone $rec "decoys"
[ "$(cat dc.data.* | grep -c '^decoy$')" -eq "$ndecoys" ] || fail "a decoy was replaced"
# in the decoyed seconds every predictable name was taken: a dump stamped
# there has a random suffix (one stamped later, on a slow machine, need not)
n=0
for f in $(grep -L '^decoy$' dc.data.*); do
	stock_reads_clean "$f"
	stamp=${f#dc.data.}
	stamp=${stamp:0:14}
	[ "$stamp" \< "$first" ] || [ "$stamp" \> "$last" ] && continue
	echo "$f" | grep -q -- '-[a-z0-9]\{6\}$' || fail "decoys: $f took a predictable name"
	n=$((n + 1))
done
[ "$n" -ge 1 ] || fail "decoys: no dump in the decoyed seconds $first..$last: $(ls dc.data.* | grep -c .)"
exit 0
