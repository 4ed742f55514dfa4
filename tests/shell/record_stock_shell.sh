#!/bin/bash
# the stock perf's own shell tests pipe_test.sh, record.sh and record_offcpu.sh (instructions:u -> task-clock:u every 10 us; its register capture also on cpu-clock), with perf record routed to this perf and every other subcommand to the stock perf
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# The scripts are the linux-perf package's (the kernel's, not this
# project's: they are copied here at run time, never into the repository),
# found where dpkg says they are, so a change of the package's layout
# cannot make this test run stale copies.
script_of_package() {
	local p
	p=$(dpkg -L linux-perf 2>/dev/null | grep -m1 "/tests/shell/$1\$")
	echo "${p:-/usr/lib/perf-core/tests/shell/$1}"
}
pipe_src=$(script_of_package pipe_test.sh)
record_src=$(script_of_package record.sh)
[ -r "$pipe_src" ] && [ -r "$record_src" ] ||
	skip "the linux-perf package has no tests/shell/pipe_test.sh and record.sh"
need_cc "pipe_test.sh's workload"

route_record bin
cp "$pipe_src" pipe_test.sh
# no hardware PMU here: the stock's instructions:u cannot be opened. Its
# per-thread test records `true`, a few hundred microseconds of user time:
# at task-clock's default 4000 Hz that was no sample at all once in a
# make check ("data has no samples"), where instructions:u always has
# some. Every 10 us of user time gives dozens.
sed 's/instructions:u/task-clock:u -c 10000/g' "$record_src" > record.sh
chmod +x pipe_test.sh record.sh
! grep -q 'instructions:u' record.sh && grep -q 'task-clock:u' record.sh ||
	fail "$record_src: no instructions:u to replace: the package's record.sh changed"

run() {	# SCRIPT: its exit code, its output in SCRIPT.out
	PATH="$TMP/bin:$PATH" "./$1" > "$1.out" 2>&1 < /dev/null
}
verdict() { echo "  $1: $2" >&2; }

# judge SCRIPT LABEL [LINE]: runs SCRIPT, which passes when it exits 0
# (and prints LINE, if given); a failure goes into $failed with the
# start of its output, less the lines of perf's own noise
failed=
judge() {
	local rc=0
	run "$1" || rc=$?
	if [ $rc = 0 ] && { [ -z "$3" ] || grep -qFx -- "$3" "$1.out"; }; then
		verdict "$2" PASS
	else
		verdict "$2" "FAIL (exit $rc)"
		failed="$failed${failed:+; }$2 exit $rc: $(grep -v '^ *[0-9.]*%\|^#\|^$\|^\[ perf record' "$1.out" |
			tr '\n' ' ' | head -c 400)"
	fi
}
judge pipe_test.sh pipe_test.sh

# record.sh's first test records with --per-thread; its second needs an
# Intel PMU event (br_inst_retired.near_call) and says it skipped without
# one, which makes the script exit 2
skipped=
if ! "$PERF" record -h 2>&1 | grep -q -- '--per-thread'; then
	skipped="record.sh: this perf has no --per-thread, which its per-thread test records with"
	verdict record.sh "SKIP (no --per-thread in this perf)"
else
	run record.sh
	rc=$?
	skips=$(grep -o '^.*\[Skipped[^]]*\]' record.sh.out | tr '\n' ';')
	if [ $rc = 0 ] || { [ $rc = 2 ] &&
	     grep -q '^Basic --per-thread mode test \[Success\]$' record.sh.out; }; then
		verdict record.sh "PASS${skips:+ (exit $rc, skipped: $skips the register capture test needs the Intel PMU event br_inst_retired.near_call)}"
	else
		verdict record.sh "FAIL (exit $rc)"
		failed="$failed${failed:+; }record.sh exit $rc: $(tr '\n' ' ' < record.sh.out | head -c 400)"
	fi
fi
# record.sh again with its register capture on cpu-clock, which needs no
# Intel PMU (-o - | perf script -F ip,sym,iregs): all of it must pass
sed -e "s/perf list | egrep -q 'br_inst_retired.near_call'/true/" \
    -e 's/br_inst_retired.near_call:p/cpu-clock/' record.sh > record_regs.sh
chmod +x record_regs.sh
grep -q 'cpu-clock' record_regs.sh || fail "$record_src: no br_inst_retired.near_call:p to replace"
[ -n "$skipped" ] ||
	judge record_regs.sh "record.sh (register capture on cpu-clock)" 'Register capture test [Success]'
# record_offcpu.sh: --off-cpu as upstream perf means it (the stock itself
# was built without it); its checks of the files are the stock's evlist
# and report. Exit 2 is its skip: no BPF, no privilege.
# A package without it is a skip, said as such, never a silent pass.
offcpu_src=$(script_of_package record_offcpu.sh)
if [ -r "$offcpu_src" ]; then
	cp "$offcpu_src" record_offcpu.sh
	chmod +x record_offcpu.sh
	judge record_offcpu.sh record_offcpu.sh
else
	skipped="$skipped${skipped:+; }the linux-perf package has no tests/shell/record_offcpu.sh"
	verdict record_offcpu.sh "SKIP (not in the linux-perf package)"
fi
[ -z "$failed" ] || fail "$failed"
[ -z "$skipped" ] || skip "pipe_test.sh passed; $skipped"
exit 0
