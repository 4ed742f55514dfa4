#!/bin/bash
# perf script on bpf-output events (offcpu-time samples with no RAW data, switch-output-when records, binary payloads): byte for byte the stock perf script's, by default and with -F bpf-output, +bpf-output, -bpf-output, sw:, trace, on --off-cpu files (-g, -a -g, -e dummy, an --overwrite dump) and --switch-output-when dumps
. "$(dirname "$0")/lib/common.sh"
need_stock
need_bpf "system-wide recording"
cd "$TMP" || exit 1

# the workload: blocks in nanosleep (its offcpu-time samples), its pid in wl.pid
echo 'echo $$ > wl.pid; sleep 0.2; cat /etc/hostname > /dev/null; sleep 0.1' > wl.sh

# all FILE [PID]: the same bytes, stdout, stderr and exit, with each way
# of asking for bpf-output; with PID, the lines that resolve symbols are
# the workload's (what the rest of the machine ran is no part of it)
all() {	# FILE [PID]
	local f=$1 pid=(${2:+--pid $2}) F
	script_same "$f" "$f.def" "${pid[@]}"
	script_same "$f" "$f.G" -G "${pid[@]}"
	# a list naming bpf-output adds to the defaults (its '-'), symbols too
	for F in +bpf-output -bpf-output sw:comm,tid,event,bpf-output bpf-output \
		 comm,tid,time,event,period,bpf-output; do
		script_same "$f" "$f.F" -F "$F" "${pid[@]}"
	done
	for F in comm,tid,time,event,period trace comm,tid,trace; do
		script_same "$f" "$f.F" -F "$F"
	done
	# a list of other fields, then bpf-output added, for all types or sw
	script_same "$f" "$f.F2" -F comm,tid,event -F +bpf-output
	script_same "$f" "$f.F2" -F sw:comm,event -F sw:+bpf-output
	# a type refusing the field: the stock's usage text follows its line
	SCRIPT_SAME_STDOUT=1 script_same "$f" "$f.hw" -F hw:bpf-output
}

# offcpu FILE N: the stock prints N or more offcpu-time samples of the
# workload, each with the new line of its (empty) bpf-output field: a
# blank line before the next. (-F naming bpf-output, a name with a '-',
# is read as changes to the defaults, by the stock too: -G instead.)
offcpu() {	# FILE N
	local n
	n=$("$STOCK" script -i "$1" -G --pid "$(cat wl.pid)" 2>/dev/null |
		grep -A1 ' offcpu-time: ' | grep -c '^$')
	[ "$n" -ge "$2" ] || fail "$1: $n offcpu-time samples of the workload with their blank line"
}

"$PERF" record -q --off-cpu -g -o g.data -- sh wl.sh || fail "record --off-cpu -g"
offcpu g.data 2
all g.data
"$PERF" record -q --off-cpu -o n.data -- sh wl.sh || fail "record --off-cpu"
offcpu n.data 2
all n.data
"$PERF" record -q --off-cpu -e dummy -o d.data -- sh wl.sh || fail "record --off-cpu -e dummy"
offcpu d.data 2
all d.data
"$PERF" record -q --off-cpu -a -g -o a.data -- sh wl.sh || fail "record --off-cpu -a -g"
offcpu a.data 2
all a.data "$(cat wl.pid)"

# a flight recorder's dump after the workload blocked: if its samples are
# not in the first, the next
"$PERF" record -q --overwrite --switch-output --off-cpu -a -g -o ow.data 2> ow.err &
rec=$!
BG_PIDS+=("$rec")
wait_ready $rec
sh wl.sh || fail "workload"
for n in 1 2 3; do
	kill -USR2 $rec
	wait_until "no dump $n after SIGUSR2" bash -c "[ \$(compgen -G 'ow.data.*' | wc -l) -ge $n ]"
	dump=$(compgen -G 'ow.data.*' | sort | tail -1)
	"$STOCK" script -i "$dump" -F event --pid "$(cat wl.pid)" 2>/dev/null | grep -q offcpu-time &&
		break
done
kill -INT $rec
wait_stopped $rec INT || fail "--overwrite --off-cpu: recorder status $STOPPED_STATUS: $(cat ow.err)"
offcpu "$dump" 1
all "$dump" "$(cat wl.pid)"

# a --switch-output-when dump: its record, a text line in RAW, printed as
# hex and as a string
cp /bin/sleep sbo-nap || fail "cp sleep"
"$PERF" record -v --overwrite --switch-output -a -e cpu-clock -F 49 -o sw.data \
	--switch-output-when='offcpu>100ms,comm=sbo-nap' 2> sw.err &
rec=$!
BG_PIDS+=("$rec")
wait_ready $rec
./sbo-nap 0.3 || fail "sbo-nap"
wait_line sw.err "Dump sw\.data"
kill -INT $rec
wait_stopped $rec INT || fail "--switch-output-when: recorder status $STOPPED_STATUS: $(tail -3 sw.err)"
text='offcpu>100ms,comm=sbo-nap: sbo-nap pid'
dump=$(grep -la "$text" sw.data.* | head -1)
[ -n "$dump" ] || fail "no dump holds the trigger's record: $(tail -3 sw.err)"
"$STOCK" script -i "$dump" 2>/dev/null | grep -q "^      BPF string: \"$text [0-9]* tid" ||
	fail "$dump: the stock prints no BPF string of the trigger"
all "$dump"

# the same dump, the record's RAW bytes (at the text, its size in the u32
# before) replaced: the stock's hex and text columns, and a string only
# for printable bytes (Latin-1's upper half too) ending in NULs
at=$(grep -obUa "$text" "$dump" | head -1 | cut -d: -f1)
size=$(od -An -tu4 -j $((at - 4)) -N4 "$dump" | tr -d ' ')
if [ "$size" -lt 40 ] || [ "$size" -ge 200 ]; then fail "$dump: RAW size $size at $at?"; fi
# bytes FROM N: N bytes counting up from FROM, as printf escapes
bytes() {
	local i s=
	for ((i = $1; i < $1 + $2; i++)); do s+=$(printf '\\x%02x' $((i & 255))); done
	echo "$s"
}
# payload NAME WANT BYTES: a copy of the dump holding BYTES (SIZE of
# them) whose stock output has a line matching WANT
payload() {	# NAME WANT BYTES
	cp "$dump" "$1.data" || fail "cp $1"
	# shellcheck disable=SC2059 # BYTES: printf escapes, on purpose
	printf "$3" | dd of="$1.data" bs=1 seek="$at" conv=notrunc status=none
	"$STOCK" script -i "$1.data" 2>/dev/null | grep -q -- "$2" ||
		fail "$1: the stock prints no '$2'"
	script_same "$1.data" "$1.def"
	script_same "$1.data" "$1.F" -F comm,tid,event,bpf-output
}
payload binary '^      BPF output: 0000: 00 01 02 03 04 05 06 07  ........$' "$(bytes 0 "$size")"
payload high '^                  0018: 78 79 7a 7b 7c 7d 7e 7f  xyz{|}~.$' "$(bytes 96 "$size")"
payload latin1 '^      BPF string: "h' "h\xe9llo $(bytes 160 $((size - 8)))\0\0"
payload zeros '^      BPF string: ""$' "$(bytes 0 1)$(printf '\\0%.0s' $(seq 2 "$size"))"
payload after-nul '^      BPF output: 0000: 61 62 63 00 78 79 7a 00  abc.xyz.$' 'abc\0xyz\0'
payload tab '^      BPF output: 0000: 74 61 62 09' "tab\there$(printf '\\0%.0s' $(seq 9 "$size"))"
payload no-nul '^                  0008: 41 41 41 41 41 41 41 41  AAAAAAAA$' \
	"$(printf 'A%.0s' $(seq "$size"))"
exit 0
