#!/bin/bash
# perf record sample and attr-flag options (-W --phys-data --data/code-page-size -I --user-regs -s --running-time --sample-identifier -k --switch-events --namespaces --user/kernel-callchains -F max -r --dry-run -B, refusals): each changes the attrs as the stock perf's does, and the stock perf decodes what it adds
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "system-wide recording and SCHED_FIFO"
cd "$TMP" || exit 1

# --- 1. what each option changes in the attrs, against the stock perf ---
# Both perfs record with the stock's PERF_TEST_ATTR hook (this perf through
# the attr shim, as record_attr.sh does); an option must change the same
# attr fields the same way in both. The baselines differ a little (the stock
# has read_format ID|LOST on a lone event), so for the flag words
# sample_type and read_format the bits the option sets in one perf must be
# set in the other's result.
SHIM=${ATTR_SHIM:-$(dirname "$(readlink -f "$PERF")")/attr-shim.so}
[ -r "$SHIM" ] || fail "no attr shim $SHIM beside $PERF: make builds it"
PRELOAD=$SHIM
asan=$(ldd "$(readlink -f "$PERF")" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -z "$asan" ] || PRELOAD="$asan $SHIM"

hook() {	# stock|this DIR ARGS...: the attr files of one recording of kill(1)
	local who=$1 d=$2
	shift 2
	[ -d "$d" ] && return	# a baseline already recorded
	mkdir -p "$d" || fail "cannot make $d"
	if [ "$who" = stock ]; then
		# -B -N: no build-id pass, which only costs time (no attr has it)
		PERF_TEST_ATTR=$d "$STOCK" record -B -N --no-bpf-event -o "$d/perf.data" "$@" \
			-- kill >/dev/null 2>&1
	else
		# --no-bpf-event as the stock's: no BPF side-band dummy beside the tracking one
		PERF_TEST_ATTR=$d LD_PRELOAD=$PRELOAD "$PERF" record --no-bpf-event -o "$d/perf.data" "$@" -- kill \
			> /dev/null 2> "$d.err"
		! grep -q -E 'Sanitizer|runtime error' "$d.err" || fail "record $*: $(cat "$d.err")"
	fi
}

# both perfs side by side, into stock-NAME and this-NAME
hooks() {	# NAME ARGS...
	local name=$1
	shift
	hook stock "stock-$name" "$@" &
	hook this "this-$name" "$@"
	wait $!
	for d in "stock-$name" "this-$name"; do
		[ -n "$(ls "$d" | grep '^event-')" ] || fail "$d: record $*: opened nothing"
	done
}

# the attrs of event TYPE-CONFIG in DIR as key=value lines (one CPU's)
attrs() {
	local f
	f=$(ls "$1"/event-"$2"-* 2>/dev/null | head -1)
	[ -n "$f" ] || fail "$1: no event $2 opened"
	grep -v -E '^\[|^(fd|group_fd|cpu|pid|flags)=' "$f"
}

# same_change "BASE ARGS" "OPTION ARGS": the option, added to the base
# arguments, changes the attrs of every event the same way in both perfs
same_change() {
	local base=$1 opt=$2 kind k b
	declare -A bs os bt ot
	b=base$(echo "$base" | tr -c 'a-z0-9\n' _)
	hooks "$b" $base
	rm -rf stock-opt this-opt
	hooks opt $base $opt
	for kind in $(ls stock-opt | sed -n 's/^event-\([0-9]*-[0-9]*\)-.*/\1/p' | sort -u); do
		bs=() os=() bt=() ot=()
		while IFS== read -r k v; do bs[$k]=$v; done < <(attrs "stock-$b" "$kind")
		while IFS== read -r k v; do os[$k]=$v; done < <(attrs stock-opt "$kind")
		while IFS== read -r k v; do bt[$k]=$v; done < <(attrs "this-$b" "$kind")
		while IFS== read -r k v; do ot[$k]=$v; done < <(attrs this-opt "$kind")
		for k in "${!os[@]}"; do
			[ "${os[$k]}" != "${bs[$k]}" ] || [ "${ot[$k]}" != "${bt[$k]}" ] || continue
			case $k in
			sample_type|read_format)
				(( (os[$k] & ~bs[$k] & ~ot[$k]) == 0 && (ot[$k] & ~bt[$k] & ~os[$k]) == 0 ))
				;;
			*)
				[ "${os[$k]}" = "${ot[$k]}" ]
				;;
			esac || fail "record $base $opt: event $kind: $k: the stock ${bs[$k]} -> ${os[$k]}," \
				"this perf ${bt[$k]} -> ${ot[$k]}"
		done
		log "record $base $opt: event $kind changes as the stock's"
	done
}

# options whose changes cannot mask each other's share a recording; the
# hook has no clockid nor sample_regs_intr: those are checked in part 2
for opt in "-W --phys-data --data-page-size --code-page-size --sample-identifier" \
	   "--user-regs=r15,IP -I --user-callchains --kernel-callchains" \
	   "--user-regs --running-time -k mono --switch-events --namespaces" -s; do
	same_change "" "$opt"	# (no callchain: nothing to exclude)
done
# what the tracking dummy of a system-wide recording gets too
for opt in "-W -I --user-regs --sample-identifier -k raw --switch-events --namespaces -s" \
	   --running-time; do
	same_change "-a" "$opt"
done
for opt in --user-callchains --kernel-callchains "--user-callchains --kernel-callchains"; do
	same_change "-g" "$opt"
done
same_change "--call-graph dwarf" --user-callchains
same_change "-e cpu-clock -e task-clock" --sample-identifier
same_change "-e cpu-clock -e task-clock" -s

# --- 2. what the stock perf decodes of what the options add ---
SPIN=("$PERF" test -w spin 0.1)
# rec NAME ARGS... -- CMD...: records into NAME.data, which the stock perf
# must read without a word; NAME.attr is its first event's attr line
# (quick_rec: the same without the stock's read in every way)
quick_rec() {
	local name=$1
	shift
	"$PERF" record -q -o "$name.data" "$@" 2> "$name.err" || fail "record $*: $(cat "$name.err")"
	"$STOCK" evlist -v -i "$name.data" 2>/dev/null | head -1 > "$name.attr"
	log "$name: $(cat "$name.attr")"
}
rec() {
	local name=$1
	shift
	"$PERF" record -q -o "$name.data" "$@" 2> "$name.err" || fail "record $*: $(cat "$name.err")"
	stock_reads_clean "$name.data"
	"$STOCK" evlist -v -i "$name.data" 2>/dev/null | head -1 > "$name.attr"
	log "$name: $(cat "$name.attr")"
}
has() {	# NAME WORD...: the attr line has every WORD
	local name=$1 w
	shift
	for w; do grep -q -- "$w" "$name.attr" || fail "$name: no '$w' in: $(cat "$name.attr")"; done
}
# stock_field NAME FIELDS: the stock's perf script -F FIELDS, which refuses a
# field the samples lack
stock_fields() {
	"$STOCK" script -i "$1.data" -F "$2" 2> "$1.script.err" > "$1.script" ||
		fail "$1: perf script -F $2: $(head -2 "$1.script.err")"
	[ -s "$1.script" ] || fail "$1: perf script -F $2: no samples"
}

# -W, --phys-data, --data-page-size, --code-page-size: decoded for every
# sample; a code page is one of the x86 page sizes (N/A: the kernel found
# none, as for an ip it could not walk to), user code is in 4K pages
rec pages -W --phys-data --data-page-size --code-page-size -- "${SPIN[@]}"
stock_fields pages ip,weight,phys_addr,data_page_size,code_page_size
awk '$NF !~ /^(4K|2M|1G|N\/A)$/ { bad++ } $NF == "4K" && length($1) < 16 { user++ }
     END { exit bad > 0 || !user }' pages.script ||
	fail "code page sizes: $(awk '{ print $NF }' pages.script | sort | uniq -c | tr '\n' ' ')"

# -I: the interrupted IP register is the sample's ip; -I names select
rec iregs -I -- "${SPIN[@]}"
has iregs "sample_regs_intr: 0xff0fff"
stock_fields iregs ip,iregs
awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^IP:0x/) ip = substr($i, 6)
       if (ip != $1) bad++; n++ } END { exit bad > 0 || n == 0 }' iregs.script ||
	fail "-I: an IP register is not its sample's ip: $(head -2 iregs.script)"
quick_rec iregs2 --intr-regs=ax,R15,ip,Sp -- "${SPIN[@]}"
has iregs2 "sample_regs_intr: 0x800181"	# AX bit 0, SP 7, IP 8, R15 23 (asm/perf_regs.h)
stock_fields iregs2 iregs
[ "$(tr -s ' ' '\n' < iregs2.script | sed -n 's/:0x.*//p' | sort -u | tr '\n' ' ')" = "AX IP R15 SP " ] ||
	fail "--intr-regs=ax,R15,ip,Sp decoded as: $(head -1 iregs2.script)"

# --user-regs: in a user-space sample the user IP register is the ip
rec uregs --user-regs=ip,sp -- "${SPIN[@]}"
has uregs "REGS_USER" "sample_regs_user: 0x180"
stock_fields uregs ip,uregs
awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^IP:0x/) ip = substr($i, 6)
       if (length($1) < 16 || substr($1, 1, 1) < "8") { n++; if (ip != $1) bad++ } }
       END { exit bad > 0 || n == 0 }' uregs.script ||
	fail "--user-regs: no user sample, or its IP register is not its ip: $(head -2 uregs.script)"

# -I? and --user-regs=? list what the stock lists, bad names get its words
for o in -I? --user-regs=?; do
	"$PERF" record "$o" > list.out 2> list.err
	rc=$?
	"$STOCK" record "$o" 2>&1 >/dev/null | head -1 > list.stock
	[ $rc = 129 ] && [ ! -s list.out ] && diff list.err list.stock >&2 ||
		fail "$o: rc $rc: '$(cat list.err)', the stock's '$(cat list.stock)'"
done
for o in -IFOO --intr-regs=ax,ds --user-regs=xmm0 "-I=AX"; do
	"$PERF" record -o bad.data "$o" -- true 2> bad.err
	rc=$?
	"$STOCK" record -o bad.data "$o" -- true 2>&1 | grep '^Unknown register' > bad.stock
	[ $rc = 129 ] && [ ! -e bad.data ] && diff bad.err bad.stock >&2 ||
		fail "$o: rc $rc: '$(cat bad.err)', the stock's '$(cat bad.stock)'"
done

# -s: each thread's counts come back in READ records as it exits, which
# the stock shows per thread (report -T) for the children seen sampling
rec stat -s -- sh -c "$PERF test -w spin 0.1; $PERF test -w spin 0.1"
has stat "inherit_stat: 1" "read_format: TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID"
"$STOCK" report -i stat.data -T --stdio 2>/dev/null | sed -n '/PID *TID *cpu-clock/,$p' | tail -n +2 > stat.threads
"$STOCK" script -i stat.data -F pid 2>/dev/null | tr -d ' ' | sort -u > stat.pids
[ "$(grep -c . stat.threads)" -ge 2 ] || fail "-s: per-thread counts: $(cat stat.threads)"
while read -r pid tid count; do
	grep -qx "$pid" stat.pids && [ "$count" -gt 0 ] || fail "-s: thread $pid/$tid count $count"
done < stat.threads

quick_rec running --running-time -- "${SPIN[@]}"
has running "read_format: TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING" "|PERIOD"
quick_rec ident --sample-identifier -- "${SPIN[@]}"
has ident "sample_type: IP|TID|TIME|PERIOD|IDENTIFIER,"

# -k: every spelling the stock takes; the CLOCK_DATA feature lets the stock
# turn sample times into times of day, which lie within the recording
for k in monotonic:1 mono:1 CLOCK_MONOTONIC_RAW:4 raw:4 monotonic_raw:4 realtime:0 real:0 \
	 boottime:7 boot:7 tai:11 Clock_Tai:11 4:4; do
	quick_rec clock -k "${k%:*}" -- true
	has clock "use_clockid: 1"
	[ "${k#*:}" = 0 ] && ! grep -q ", clockid: " clock.attr ||	# zero: not shown
		has clock "clockid: ${k#*:}$"
done
before=$(date +%s)
rec tod -k raw -- "${SPIN[@]}"
after=$(date +%s)
"$STOCK" report --header-only -i tod.data 2>/dev/null | grep -q '^# clockid: monotonic_raw (4)' ||
	fail "-k raw: no clock data in the header"
stock_fields tod tod
for t in "$(head -1 tod.script)" "$(tail -1 tod.script)"; do
	s=$(date -d "$(echo "$t" | awk '{ print $1 " " $2 }')" +%s) || fail "tod '$t'"
	[ "$s" -ge "$before" ] && [ "$s" -le "$after" ] ||
		fail "-k raw: sample at $t, recorded from $(date -d @"$before") to $(date -d @"$after")"
done
for bad in foo 99 1x ""; do
	"$PERF" record -o bad.data -k "$bad" -- true 2> bad.err
	rc=$?
	[ $rc = 129 ] && [ "$(grep -c . bad.err)" = 1 ] && [ ! -e bad.data ] ||
		fail "-k '$bad': rc $rc: $(cat bad.err)"
done
grep -qx "unknown clockid , check man page" bad.err || fail "-k '': $(cat bad.err)"
# a clock the system reads but events cannot use (CPU time): refused at open
"$PERF" record -o bad.data -k 2 -- true 2> bad.err
[ $? = 1 ] && [ "$(grep -c . bad.err)" = 1 ] && grep -q "wrong clockid (2)" bad.err ||
	fail "-k 2: $(cat bad.err)"
"$PERF" record -o bad.data -k raw --overwrite -- true 2> bad.err
[ $? = 129 ] && grep -q -- "--overwrite" bad.err || fail "-k raw --overwrite: $(cat bad.err)"

# --switch-events: the workload's switches, out and in (sleep switches out);
# --namespaces: its child's namespaces are this shell's
rec sw --switch-events --namespaces -- sh -c "sleep 0.05; sleep 0.05"
"$STOCK" script -i sw.data --show-switch-events 2>/dev/null > sw.script
grep -q 'PERF_RECORD_SWITCH OUT' sw.script && grep -q 'PERF_RECORD_SWITCH IN' sw.script ||
	fail "--switch-events: $(grep -c SWITCH sw.script) switches"
"$STOCK" script -i sw.data --show-namespace-events 2>/dev/null > ns.script
net=$(stat -L -c %i /proc/self/ns/net)
grep -q "PERF_RECORD_NAMESPACES" ns.script && grep -q "net: [0-9]*/$(printf '%#x' "$net")," ns.script ||
	fail "--namespaces: net ns $net not in: $(grep -A2 NAMESPACES ns.script | head -3)"
# ... and a task that was there before the recording gets its namespaces
# from /proc, as with the stock perf
sleep 5 &
old=$!
quick_rec nsa -a --namespaces -e cpu-clock -- sleep 0.05
"$STOCK" script -i nsa.data --show-namespace-events 2>/dev/null > nsa.script
mnt=$(stat -L -c %i "/proc/$old/ns/mnt")
grep -A2 "PERF_RECORD_NAMESPACES $old/$old " nsa.script | grep -q "mnt: [0-9]*/$(printf '%#x' "$mnt")," ||
	fail "-a --namespaces: sleep $old (mnt $mnt): $(grep -c NAMESPACES nsa.script) records"
kill $old 2>/dev/null
quick_rec swa -a --switch-events -- sleep 0.05
"$STOCK" script -i swa.data --show-switch-events 2>/dev/null | grep -q 'PERF_RECORD_SWITCH_CPU_WIDE' ||
	fail "-a --switch-events: no CPU-wide switch"

# -F max: the kernel's limit, said (on page faults: a cpu-clock at 100 kHz
# can starve the workload of a loaded VM for minutes)
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$PERF" record -o fmax.data -e page-faults -F max -- true 2> fmax.err || fail "-F max: $(cat fmax.err)"
grep -q "^info: Using a maximum frequency rate of $max Hz" fmax.err || fail "-F max said: $(cat fmax.err)"
"$STOCK" evlist -v -i fmax.data 2>/dev/null | grep -q "sample_freq }: $max," || fail "-F max: not $max"

# -r: the recorder runs SCHED_FIFO at that priority, the workload does not
"$PERF" record -q -o rt.data -r 7 -- sh -c 'chrt -p $PPID; chrt -p $$' > rt.out 2> rt.err ||
	fail "-r 7: $(cat rt.err)"
[ "$(grep -c 'SCHED_FIFO' rt.out)" = 1 ] && grep -q 'priority: 7' rt.out &&
	[ "$(grep -c 'SCHED_OTHER' rt.out)" = 1 ] || fail "-r 7: $(cat rt.out)"
for bad in 100 x -1; do
	"$PERF" record -o bad.data -r "$bad" -- true 2> bad.err
	rc=$?
	[ $rc = 129 ] && [ "$(grep -c . bad.err)" = 1 ] && [ ! -e bad.data ] ||
		fail "-r '$bad': rc $rc: $(cat bad.err)"
done
"$PERF" record -q -o rt0.data -r 0 -- true 2> rt0.err || fail "-r 0 (no change): $(cat rt0.err)"

# --dry-run: options and events are checked, nothing is opened or run
"$PERF" record --dry-run -o dry.data -I --switch-events -- touch ran 2> dry.err ||
	fail "--dry-run: $(cat dry.err)"
[ ! -e dry.data ] && [ ! -e ran ] && [ ! -s dry.err ] || fail "--dry-run recorded or ran something"
"$PERF" record --dry-run -e no-such-event -- true 2> dry.err && fail "--dry-run took a bad event"
grep -q no-such-event dry.err || fail "--dry-run -e no-such-event: $(cat dry.err)"

# MMAP2 build ids from the kernel only with --buildid-mmap (as the stock:
# the kernel marks other sessions' records too), never with -B
cc_bin=$(readlink -f "$PERF")
for opts in "" "-B" "-N --buildid-all --buildid-mmap"; do
	quick_rec bid $opts -- "${SPIN[@]}"
	"$STOCK" script -i bid.data --show-mmap-events 2>/dev/null | grep "MMAP2.*$cc_bin" > bid.maps
	[ -s bid.maps ] || fail "record $opts: no map of $cc_bin"
	if [[ $opts != *--buildid-mmap* ]]; then
		! grep -q 'build_id\|buildid' bid.attr && ! grep -q '<[0-9a-f]\{40\}>' bid.maps ||
			fail "record $opts: build ids: $(head -1 bid.maps)"
	else
		grep -q "build_id: 1" bid.attr && grep -q '<[0-9a-f]\{40\}>' bid.maps ||
			fail "record $opts: no build id: $(head -1 bid.maps)"
	fi
done
for bad in 0 x; do
	"$PERF" record -o bad.data --proc-map-timeout "$bad" -- true 2> bad.err
	[ $? = 129 ] && [ "$(grep -c . bad.err)" = 1 ] || fail "--proc-map-timeout $bad: $(cat bad.err)"
done
quick_rec pmt --proc-map-timeout 100 -- true

# refused: one line naming the option and what it needs
for o in -b --branch-any "-j any" "--branch-filter any" --aux-sample -S --snapshot=e --kcore \
	 "--affinity cpu"; do
	"$PERF" record -o bad.data $o -- true 2> bad.err
	rc=$?
	name=${o%% *}
	[ $rc = 129 ] && [ "$(grep -c . bad.err)" = 1 ] && [ ! -e bad.data ] &&
		grep -q -- "${name%%=*}" bad.err || fail "$o: rc $rc: $(cat bad.err)"
done
# a flag that is refused takes no value either
"$PERF" record -o bad.data --kcore=1 -- true 2> bad.err
[ $? = 129 ] && grep -qx "Error: option \`kcore' takes no value" bad.err || fail "--kcore=1: $(cat bad.err)"
exit 0
