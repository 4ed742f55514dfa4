#!/bin/bash
# perf record event selection ({groups}, :S, --group, --filter, --exclude-perf, --all-user, --all-kernel, event terms): read back and decoded by the stock perf
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1
SPIN=("$PERF" test -w spin 0.1)

# rec NAME ARGS... -- CMD...: records into NAME.data, whose attrs (in
# NAME.attr) and samples the stock perf must read without a word; files of
# a new layout are then read every way (stock_reads_clean, a few seconds)
rec() {
	local name=$1
	shift
	"$PERF" record -q -o "$name.data" "$@" 2> "$name.err" || fail "perf record $*: $(cat "$name.err")"
	"$STOCK" evlist -v -i "$name.data" > "$name.attr" 2> "$name.stock" &&
		"$STOCK" script -i "$name.data" > /dev/null 2>> "$name.stock" ||
		fail "$name: the stock perf failed: $(cat "$name.stock")"
	[ ! -s "$name.stock" ] || fail "$name: the stock perf said: $(head -3 "$name.stock")"
	log "$name: $(cat "$name.attr")"
}
# attr NAME EVENT: the evlist -v line of EVENT
attr() { grep "^$2: " "$1.attr"; }
has() {	# NAME EVENT WORD...
	local name=$1 ev=$2 w line
	shift 2
	line=$(attr "$name" "$ev")
	[ -n "$line" ] || fail "$name: no event $ev in: $(cat "$name.attr")"
	for w; do grep -q -- "$w" <<< "$line" || fail "$name: $ev has no '$w': $line"; done
}
hasnt() {
	local name=$1 ev=$2 w line
	shift 2
	line=$(attr "$name" "$ev")
	for w; do ! grep -q -- "$w" <<< "$line" || fail "$name: $ev has '$w': $line"; done
}
groups() { "$STOCK" evlist -g -i "$1.data" 2>/dev/null | tr '\n' ' '; }
# bad WHAT ARGS...: perf record ARGS fails with one line matching WHAT and no file
bad() {
	local what=$1 rc
	shift
	rm -f bad.data
	"$PERF" record -o bad.data "$@" -- true 2> bad.err
	rc=$?
	[ $rc != 0 ] && [ "$(grep -c . bad.err)" = 1 ] && grep -q -- "$what" bad.err ||
		fail "$*: rc $rc, expected one line with '$what': $(cat bad.err)"
	[ ! -e bad.data ] || fail "$*: left a file"
	echo $rc
}
# kernel and user sample ips of NAME.data's samples
spaces() {
	"$STOCK" script -i "$1.data" -F ip 2>/dev/null |
		awk '{ if (length($1) == 16 && substr($1, 1, 4) == "ffff") k++; else u++ }
		     END { print k + 0, u + 0 }'
}

# ---- groups: the kernel's group (the leader's fd as group_fd), GROUP_DESC
rec grp -e '{cpu-clock,page-faults}' -- "${SPIN[@]}"
stock_reads_clean grp.data
[ "$(groups grp)" = "{cpu-clock,page-faults} " ] || fail "evlist -g: $(groups grp)"
has grp cpu-clock "disabled: 1" "enable_on_exec: 1"
# the leader enables its members: they are neither disabled nor armed on exec
hasnt grp page-faults "disabled" "enable_on_exec"
"$STOCK" report -i grp.data --group --stdio 2>/dev/null | grep -q "of events 'anon group { cpu-clock, page-faults }'" ||
	fail "report --group: $("$STOCK" report -i grp.data --group --stdio 2>&1 | head -8)"

# :S: only the leader samples; each sample reads the group, which only a
# real kernel group gives: the stock perf makes page-faults samples of it
rec grps -e '{cpu-clock,page-faults}:S' -- "${SPIN[@]}"
stock_reads_clean grps.data
has grps cpu-clock "READ" "read_format: ID|GROUP|LOST" "sample_freq }: 4000"
has grps page-faults "READ" "read_format: ID|GROUP|LOST"
hasnt grps page-faults "sample_freq" "freq: 1"
hasnt grps cpu-clock "inherit: 1"
# lines of "time period event"
"$STOCK" script -i grps.data -F time,event,period 2>/dev/null | tr -d ':' > grps.txt
lead=$(awk '$3 == "cpu-clock" { print $1 }' grps.txt | sort -u)
read_pf=$(awk '$3 == "page-faults" { print $1 }' grps.txt | sort -u)
[ -n "$read_pf" ] || fail ":S: no page-faults read from the group: $(head -5 grps.txt)"
[ -z "$(comm -23 <(echo "$read_pf") <(echo "$lead"))" ] ||
	fail ":S: page-faults values at times the leader did not sample"
pf=$(awk '$3 == "page-faults" { s += $2 } END { print s + 0 }' grps.txt)
[ "$pf" -gt 10 ] || fail ":S: page-faults deltas sum to $pf"

# group modifiers add to each member's own; a named group keeps its name
rec grpu -e 'mine{cpu-clock,page-faults:k}:u' -- "${SPIN[@]}"
[ "$(groups grpu)" = "mine{cpu-clock,page-faults:k} " ] || fail "named group: $(groups grpu)"
has grpu cpu-clock "exclude_kernel: 1" "exclude_hv: 1"
hasnt grpu page-faults:k "exclude_user" "exclude_kernel"
read -r k u <<< "$(spaces grpu)"
[ "$u" -gt 0 ] || fail ":u group: no user samples"
[ "$("$STOCK" script -i grpu.data -F event,ip 2>/dev/null | awk '/cpu-clock/ && $2 ~ /^ffff/' | wc -l)" = 0 ] ||
	fail ":u group: cpu-clock sampled the kernel"

# --group: every -e event in one group, system-wide beside the tracking dummy
rec grpopt -a --group -e cpu-clock -e page-faults:u -e task-clock -- "${SPIN[@]}"
stock_reads_clean grpopt.data
[ "$(groups grpopt)" = "{cpu-clock,page-faults:u,task-clock} dummy:HG " ] ||
	fail "--group: $(groups grpopt)"
"$STOCK" report -i grpopt.data --header-only 2>/dev/null | grep -qx '# group: {cpu-clock,page-faults:u,task-clock}' ||
	fail "--group: no GROUP_DESC in the header"
# one event: no group, no GROUP_DESC (as the stock)
rec one --group -e cpu-clock -- true
[ "$(groups one)" = "cpu-clock " ] || fail "--group of one: $(groups one)"

# a member the kernel refuses (inherit with a group read) is named
bad "page-faults: perf_event_open: Invalid argument (a member of the group led by cpu-clock)" \
	-e '{cpu-clock,page-faults/inherit/}:S' >/dev/null
for b in '{cpu-clock,page-faults' 'cpu-clock}' '{cpu-clock,{page-faults}}' '{}' '{cpu-clock}x'; do
	rc=$(bad "event syntax error: '$b': " -e "$b")
	[ "$rc" = 129 ] || fail "-e '$b': exit $rc"
done

# ---- --filter, --exclude-perf
if grep -q . /sys/kernel/tracing/events/syscalls/sys_enter_close/id 2>/dev/null; then
	CLOSES=("$PERF" test -w closes 1000 1000000)
	vals() { "$STOCK" script -i "$1.data" -F trace 2>/dev/null | sed -n 's/.*fd: //p' | hex2dec | tr '\n' ' '; }
	rec nofilter -c 1 -e syscalls:sys_enter_close -- "${CLOSES[@]}"
	n=$("$STOCK" script -i nofilter.data 2>/dev/null | wc -l)
	[ "$n" -ge 1000 ] || fail "no filter: $n closes"
	rec filter -c 1 -e syscalls:sys_enter_close --filter 'fd >= 1000100 && fd < 1000105' -- "${CLOSES[@]}"
	[ "$(vals filter)" = "1000100 1000101 1000102 1000103 1000104 " ] || fail "--filter: $(vals filter)"
	stock_reads_clean filter.data
	# a second --filter on the same -e narrows it; an earlier -e keeps none
	rec filter2 -c 1 -e syscalls:sys_exit_close -e syscalls:sys_enter_close --filter 'fd >= 1000990' \
		--filter 'fd != 1000995' -- "${CLOSES[@]}"
	[ "$(vals filter2)" = "1000990 1000991 1000992 1000993 1000994 1000996 1000997 1000998 1000999 " ] ||
		fail "two --filter: $(vals filter2)"
	n=$("$STOCK" script -i filter2.data 2>/dev/null | grep -c sys_exit_close)
	[ "$n" -ge 1000 ] || fail "the filter reached the earlier -e: $n sys_exit_close"

	# --exclude-perf: perf's own writes to its file are recorded without it,
	# and none with it, while every write of the workload is
	for x in "" --exclude-perf; do
		"$PERF" record -q -m 16M -a -c 1 -e syscalls:sys_enter_write,syscalls:sys_enter_writev $x \
			-o self.data -- dd if=/dev/zero of=/dev/null bs=1 count=20000 2> self.err &
		recpid=$!
		wait $recpid || fail "record $x: $(cat self.err)"
		[ -z "$x" ] || stock_reads_clean self.data
		own=$("$STOCK" script -i self.data -F pid 2>/dev/null | awk -v p=$recpid '$1 == p' | wc -l)
		dd=$("$STOCK" script -i self.data -F comm,event 2>/dev/null | awk '$1 == "dd" && /sys_enter_write:/' | wc -l)
		[ "$dd" -ge 20000 ] || fail "record $x: $dd writes of dd"
		if [ -z "$x" ]; then
			[ "$own" -gt 0 ] || fail "without --exclude-perf perf's own writes are not recorded"
		else
			[ "$own" = 0 ] || fail "--exclude-perf: $own events of perf itself"
		fi
		log "$x: $own writes of perf, $dd of dd"
	done

	rc=$(bad 'failed to set filter "bogus_field == 1" on event syscalls:sys_enter_close: Invalid argument' \
		-e syscalls:sys_enter_close --filter 'bogus_field == 1')
	[ "$rc" = 1 ] || fail "rejected filter: exit $rc"
else
	echo "  (no syscalls:sys_enter_close tracepoint: --filter checks skipped)" >&2
fi
msg="--filter option should follow a -e tracepoint or HW tracer option"
[ "$(bad "^$msg\$" --filter 'x' -e cpu-clock)" = 129 ] || fail "--filter before -e"
[ "$(bad "^$msg\$" -e cpu-clock --filter 'x')" = 129 ] || fail "--filter after cpu-clock"
[ "$(bad "^--exclude-perf option should follow a -e tracepoint option\$" -e cpu-clock \
	--exclude-perf)" = 129 ] || fail "--exclude-perf after cpu-clock"

# ---- --all-user, --all-kernel: every event, the tracking dummy included
rec kernel_too -F 4000 -e cpu-clock -- "$PERF" test -w closes 300000
read -r k u <<< "$(spaces kernel_too)"
[ "$k" -gt 0 ] && [ "$u" -gt 0 ] || fail "without --all-user: $k kernel, $u user samples"
rec alluser --all-user -F 4000 -e cpu-clock -e page-faults -- "$PERF" test -w closes 300000
has alluser cpu-clock "exclude_kernel: 1"
has alluser page-faults "exclude_kernel: 1"
hasnt alluser cpu-clock "exclude_user" "exclude_hv"
read -r k u <<< "$(spaces alluser)"
[ "$k" = 0 ] && [ "$u" -gt 0 ] || fail "--all-user: $k kernel, $u user samples"
rec allkernel --all-kernel -a -e cpu-clock -- "${SPIN[@]}"
has allkernel cpu-clock "exclude_user: 1"
has allkernel dummy:HG "exclude_user: 1"
hasnt allkernel cpu-clock "exclude_kernel"
read -r k u <<< "$(spaces allkernel)"
[ "$k" -gt 0 ] && [ "$u" = 0 ] || fail "--all-kernel: $k kernel, $u user samples"
[ "$(bad "cannot be used with --all-user" --all-user --all-kernel)" = 129 ] || fail "both"
[ "$(bad "option \`all-user' takes no value" --all-user=1)" = 129 ] || fail "--all-user=1"

# ---- event terms
rec name -e cpu-clock/name=ticks/ -e page-faults -- "${SPIN[@]}"
names=$("$STOCK" script -i name.data -F event 2>/dev/null | tr -d ': ' | sort -u | tr '\n' ' ')
[ "$names" = "page-faults ticks " ] || fail "name=: events '$names'"

# max-stack: frame count capped (sample_max_stack), frame pointers implied
depth() {
	"$STOCK" script -i "$1.data" -F ip 2>/dev/null |
		awk 'NF == 0 { if (n > m) m = n; n = 0; next } { n++ } END { if (n > m) m = n; print m + 0 }'
}
rec deep -g -e cpu-clock -- "$PERF" test -w closes 200000
[ "$(depth deep)" -gt 3 ] || fail "-g: only $(depth deep) frames, max-stack=3 would prove nothing"
rec maxstack -e cpu-clock/max-stack=3/ -- "$PERF" test -w closes 200000
has maxstack cpu-clock "CALLCHAIN" "sample_max_stack: 3"
[ "$(depth maxstack)" = 3 ] || fail "max-stack=3: $(depth maxstack) frames"

# call-graph=no beats -g for its event only; dwarf with its own stack size
rec cgno -g -e cpu-clock/call-graph=no/ -e page-faults -- "${SPIN[@]}"
hasnt cgno cpu-clock "CALLCHAIN"
has cgno page-faults "CALLCHAIN"
rec cgdwarf -e cpu-clock/call-graph=dwarf,stack-size=4096/ -e page-faults -- "${SPIN[@]}"
has cgdwarf cpu-clock "REGS_USER" "STACK_USER" "sample_stack_user: 4096" "exclude_callchain_user: 1"
hasnt cgdwarf page-faults "CALLCHAIN"
"$STOCK" script -i cgdwarf.data -F event,ip 2>/dev/null | awk '/cpu-clock/ { getline; if (NF) n++ } END { exit n == 0 }' ||
	fail "call-graph=dwarf: no callchain decoded"

# no-inherit: the children of a forking workload are not followed
pids() { "$STOCK" script -i "$1.data" -F pid 2>/dev/null | sort -u | wc -l; }
rec inh -e cpu-clock -- "$PERF" test -w forks 5
[ "$(pids inh)" -ge 5 ] || fail "inherit: samples of $(pids inh) tasks"
rec noinh -e cpu-clock/no-inherit/ -- "$PERF" test -w forks 5
hasnt noinh cpu-clock "inherit"
[ "$(pids noinh)" -le 1 ] || fail "no-inherit: samples of $(pids noinh) tasks"
rec reinh --no-inherit -e cpu-clock/inherit/ -- "$PERF" test -w forks 5
has reinh cpu-clock "inherit: 1"
[ "$(pids reinh)" -ge 5 ] || fail "inherit over --no-inherit: samples of $(pids reinh) tasks"

# period= and freq= still work beside the new terms
rec period -e cpu-clock/period=1000000,name=p/ -- "${SPIN[@]}"
has period p "sample_freq }: 1000000,"
hasnt period p "freq: 1"
rec freq -e cpu-clock/freq=99/ -- "${SPIN[@]}"
has freq cpu-clock "sample_freq }: 99," "freq: 1"

for b in cpu-clock/max-stack=x/ cpu-clock/max-stack=0/ cpu-clock/call-graph=bogus/ \
	 cpu-clock/stack-size=4096/ cpu-clock/call-graph=dwarf,stack-size=70000/ cpu-clock/no-inherit=1/; do
	rc=$(bad "event syntax error: '$b': " -e "$b")
	[ "$rc" = 129 ] || fail "-e '$b': exit $rc"
done
exit 0

