#!/bin/bash
# perf record options: a bad option or number is one line and exit 129, never a crash or a hang
. "$(dirname "$0")/lib/common.sh"
cd "$TMP" || exit 1

# bad_option PATTERN -- perf args...: exit 129, one stderr line holding PATTERN,
# no output file. The timeout turns an endless loop into a failure, not a hang.
bad_option() {
	local pattern=$1 rc
	shift 2
	timeout -s KILL 30 "$PERF" "$@" > out 2> err
	rc=$?
	log "perf $*: rc=$rc: $(cat err)"
	[ $rc -eq 129 ] || fail "perf $*: exit $rc, want 129 ($(head -c 300 err))"
	[ "$(grep -c . err)" -eq 1 ] || fail "perf $*: $(grep -c . err) lines on stderr: $(head -c 300 err)"
	grep -qF -- "$pattern" err || fail "perf $*: '$(cat err)' lacks '$pattern'"
	[ -z "$(ls | grep -v '^out$\|^err$')" ] || fail "perf $*: left $(ls | grep -v '^out$\|^err$')"
	return 0
}

# --no-X of an option that cannot be negated (these segfaulted, or gave
# '(null)' to the number parser)
for opt in event count freq output mmap-pages dump-window tracking-max-size \
	   switch-output-event control; do
	bad_option "Error: option \`no-$opt' isn't available" -- record -o x.data --no-$opt -- true
done
bad_option "Error: option \`no-no-inherit' isn't available" -- record -o x.data --no-no-inherit -- true
bad_option "Error: option \`no-ev' isn't available" -- record -o x.data --no-ev -- true
bad_option "Error: option \`no-switch-output' takes no value" -- \
	record -o x.data --no-switch-output=5s -- true
bad_option "Error: option \`no-input' isn't available" -- script --no-input

# values where none or one is taken, abbreviations, repeats
bad_option "Error: option \`quiet' takes no value" -- record -o x.data --quiet=1 -- true
bad_option "Error: option \`overwrite' takes no value" -- record -o x.data --overwrite= -- true
bad_option "Error: switch \`c' requires a value" -- record -o x.data -c
bad_option "Error: Ambiguous option: switch (could be --switch-events or --switch-output)" -- \
	record -o x.data --switch -- true
# what the stock refuses twice: -k, -I, --user-regs (other options: the last wins, below)
bad_option "Error: switch \`k' given more than once" -- record -o x.data -k mono -k raw -- true
bad_option "Error: option \`clockid' given more than once" -- \
	record -o x.data -k mono --clockid=mono -- true
bad_option "Error: switch \`I' given more than once" -- record -o x.data -I -I -- true
bad_option "Error: option \`user-regs' given more than once" -- \
	record -o x.data --user-regs=ip --user-regs=sp -- true
bad_option "Error: unknown option \`no-bogus'" -- record -o x.data --no-bogus -- true
bad_option "Error: unknown switch \`Z'" -- record -o x.data -Z -- true

# numbers: empty, junk, signs, 0, past the range and past 64 bits
bad_option "invalid --switch-output '': expected signal" -- record -o x.data --switch-output= -- true
bad_option "invalid -m/--mmap-pages ''" -- record -o x.data -m '' -- true
bad_option "invalid -m/--mmap-pages '18446744073709551615B'" -- \
	record -o x.data -m 18446744073709551615B -- true
bad_option "invalid -c/--count '-1': expected a number from 1 to 9223372036854775807" -- \
	record -o x.data -c -1 -- true
bad_option "invalid -c/--count '9223372036854775808'" -- record -o x.data -c 9223372036854775808 -- true
bad_option "invalid -c/--count '18446744073709551616'" -- record -o x.data -c 18446744073709551616 -- true
bad_option "invalid -F/--freq '0': expected a number from 1 to 2147483647" -- \
	record -o x.data -F 0 -- true
bad_option "invalid -F/--freq '99999999999'" -- record -o x.data -F 99999999999 -- true
# event terms share the ranges of -c and -F
bad_option "period" -- record -o x.data -e cpu-clock/period=9223372036854775808/ -- true
bad_option "freq" -- record -o x.data -e cpu-clock/freq=2147483648/ -- true
for v in 18446744073s 18446744074s 366d 0s 0M 17179869184G; do
	bad_option "invalid --switch-output '$v': out of range" -- \
		record -o x.data --switch-output=$v -- true
done
bad_option "invalid --switch-max-files '0': expected a number from 1 to 1000000" -- \
	record -o x.data --switch-output --switch-max-files=0 -- true
bad_option "invalid --switch-max-files '1000001'" -- \
	record -o x.data --switch-output --switch-max-files=1000001 -- true
bad_option "invalid --tracking-max-size '17179869184G'" -- \
	record -o x.data --overwrite --tracking-max-size=17179869184G -- true

# what may be negated, is: --no-switch-output undoes --switch-output (one
# plain file, no timestamped ones); --no-switch-max-files undoes a limit
# that would otherwise need --switch-output; abbreviated negations work
"$PERF" record -q -o ok.data --switch-output=1s --no-switch-output -- true || fail "--no-switch-output"
"$PERF" record -q -o ok2.data --switch-max-files=2 --no-switch-max-files --over --no-over \
	-- true 2> err || fail "--no-switch-max-files --no-over: $(cat err)"
[ -s ok.data ] && [ -s ok2.data ] || fail "no ok.data/ok2.data: $(ls)"
ls | grep -q '^ok\.data\.' && fail "--no-switch-output still switched: $(ls)"
# an option given again takes its last value, as the stock's does: -o
# twice writes the last file only, for both perfs; so do -c, -F,
# --call-graph, -m, -C, -D (the attrs read back by the stock)
if "$STOCK" version > /dev/null 2>&1; then
	for p in "$STOCK" "$PERF"; do
		rm -f first.data last.data
		"$p" record -q -o first.data -o last.data -- true 2> err ||
			fail "$p: -o twice: $(cat err)"
		[ -s last.data ] && [ ! -e first.data ] ||
			fail "$p: -o first.data -o last.data made: $(ls)"
	done
	# twice_attr WANT ARGS...: the attr of cpu-clock recorded with ARGS has WANT
	twice_attr() {
		local want=$1
		shift
		"$PERF" record -q -o twice.data -e cpu-clock "$@" -- true 2> err ||
			fail "$*: $(cat err)"
		"$STOCK" evlist -v -i twice.data 2> /dev/null | grep -m1 '^cpu-clock' > attr
		grep -q -- "$want" attr || fail "$*: not the last value: $(cat attr)"
	}
	twice_attr 'sample_freq }: 100000,' -c 1000 --count=100000 -m 8 -m 16 -C 0 -C 0
	twice_attr 'sample_freq }: 20,' -F 10 -F 20 -D 0 -D 0
	twice_attr 'CALLCHAIN|PERIOD,' --call-graph dwarf --call-graph fp
else
	log "no stock perf: -o twice not compared"
fi
# the largest values are taken: they are in range
"$PERF" record -q -o max.data -c 9223372036854775807 --switch-output=365d -- true ||
	fail "largest -c and --switch-output time refused"
"$PERF" record -h > help || fail "record -h"
grep -q -- "--switch-output\[=<signal|size|time>\]" help || fail "record -h: $(head -5 help)"
exit 0
