#!/bin/bash
# perf data convert --to-pprof: Go's pprof reads every profile with nothing on stderr, and its samples per function equal the stock's
# perf report --sort sym, on this perf's files and the stock's (-g or not, -z, --call-graph dwarf, a flight dump, a --history dump,
# a tracepoint); the output is 0600, never replaces a file or follows a link; a truncated file is one line and no output
. "$(dirname "$0")/lib/common.sh"
need_stock
go tool pprof -h >/dev/null 2>&1 || skip "no go tool pprof (apt-get install golang-go)"
cd "$TMP" || exit 1
export GOCACHE=$TMP/.gocache HOME=$TMP	# pprof keeps nothing in the user's home

work="sh -c '$PERF test -w spin 0.3; $PERF test -w closes 200000'"

# "SAMPLES NAME" of each function the stock's perf report names (not an
# address), by name
stock_funcs() {	# DATA
	"$STOCK" report -i "$1" --stdio --no-children -g none --sort sym -F sample,sym 2>/dev/null |
		awk '!/^#/ && NF >= 3 && $3 !~ /^0x/ { n = $1; $1 = $2 = ""; sub(/^ +/, ""); c[$0] += n }
		     END { for (k in c) print c[k], k }' | sort -k2
}

# the same from pprof's -top of column 0 (a count of samples), named
# functions only (pprof names an address without a function after its
# mapping, [file]); -symbolize=none: the names as the profile has them,
# without pprof's shortening of C++ templates
pprof_funcs() {	# PROFILE
	go tool pprof -top -symbolize=none -sample_index=0 -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$1" \
		2> top.err | awk 'f && $6 !~ /^\[/ && $1 > 0 { n = $1; $1 = $2 = $3 = $4 = $5 = "";
							 sub(/^ +/, ""); print n, $0 } /flat%/ { f = 1 }' | sort -k2
	[ ! -s top.err ] || fail "$1: go tool pprof -top said: $(head -2 top.err)"
}

# converts DATA and checks the profile against the stock's report of DATA
check() {	# DATA
	local d=$1 p=$1.pb.gz total stotal extra
	"$PERF" data convert --to-pprof -i "$d" -o "$p" > out.txt 2> err.txt ||
		fail "$d: convert failed: $(head -2 err.txt)"
	[ ! -s err.txt ] && [ ! -s out.txt ] || fail "$d: convert said: $(head -2 err.txt out.txt)"
	[ "$(stat -c %a "$p")" = 600 ] || fail "$p: mode $(stat -c %a "$p"), not 600"
	go tool pprof -raw "$p" > raw.txt 2> raw.err || fail "$p: go tool pprof -raw failed: $(head -2 raw.err)"
	[ ! -s raw.err ] || fail "$p: go tool pprof -raw said: $(head -2 raw.err)"
	go tool pprof -top "$p" > /dev/null 2> raw.err || fail "$p: go tool pprof -top failed: $(head -2 raw.err)"
	[ ! -s raw.err ] || fail "$p: go tool pprof -top said: $(head -2 raw.err)"
	grep -q 'comm:\[' raw.txt && grep -q 'pid:\[' raw.txt && grep -q 'cpu:\[' raw.txt ||
		fail "$p: samples without pid, comm or cpu labels"
	stock_funcs "$d" > stock.txt
	pprof_funcs "$p" > pprof.txt
	[ -s stock.txt ] || fail "$d: the stock's report names no function"
	# every function the stock names has its samples in pprof; pprof may
	# name more: this perf's perf script names BPF programs from KSYMBOL
	# records, which the stock (built without libbpf) shows as addresses
	join -1 2 -2 2 -a 1 -e MISSING -o 1.1,2.1,0 <(sort -k2 stock.txt) <(sort -k2 pprof.txt) |
		awk '$1 != $2' > diff.txt
	[ ! -s diff.txt ] || fail "$d: stock samples, pprof samples, function: $(head -5 diff.txt)"
	extra=$(join -1 2 -2 2 -v 2 <(sort -k2 stock.txt) <(sort -k2 pprof.txt) | grep -v '^bpf_prog_')
	[ -z "$extra" ] || fail "$d: functions pprof names and the stock does not: $(echo "$extra" | head -3)"
	# and no sample is lost: the totals of both, addresses included
	total=$(go tool pprof -top -sample_index=0 "$p" 2>/dev/null |
		sed -n 's/.*Total samples = \([0-9]*\).*/\1/p')
	stotal=$("$STOCK" report -i "$d" --stdio --no-children -g none --sort sym -F sample 2>/dev/null |
		 awk '!/^#/ && NF { s += $1 } END { print s + 0 }')
	[ "$total" = "$stotal" ] || fail "$d: pprof counts ${total:-?} samples, the stock's report $stotal"
	log "$d: $stotal samples, $(wc -l < stock.txt) functions, as the stock's report"
}

eval "$PERF record -q -e cpu-clock -F 999 -o own.data -- $work" 2>/dev/null || fail "record"
check own.data
eval "$PERF record -q -e cpu-clock -F 999 -g -o own-g.data -- $work" 2>/dev/null || fail "record -g"
check own-g.data
eval "$PERF record -q -z -e cpu-clock -F 999 -g -o own-z.data -- $work" 2>/dev/null || fail "record -z"
check own-z.data
eval "$PERF record -q -e cpu-clock -F 999 --call-graph dwarf -o own-dwarf.data -- $work" 2>/dev/null ||
	fail "record --call-graph dwarf"
check own-dwarf.data
# unwound: test_spin_loop's caller is in the profile, below it
go tool pprof -traces own-dwarf.data.pb.gz 2>/dev/null | grep -A1 '^ *[0-9].* test_spin_loop$' |
	grep -q 'workload_spin' || fail "own-dwarf.data: no workload_spin under test_spin_loop: not unwound"
eval "$STOCK record -q -e cpu-clock -F 999 -g -o stock-g.data -- $work" 2>/dev/null || fail "stock record -g"
check stock-g.data
eval "$STOCK record -q -e cpu-clock -F 999 -o stock.data -- $work" 2>/dev/null || fail "stock record"
check stock.data
eval "$STOCK record -q -z -e cpu-clock -F 999 -g -o stock-z.data -- $work" 2>/dev/null || fail "stock record -z"
check stock-z.data
"$STOCK" record -q -a -g -e cpu-clock -F 999 -o stock-a.data -- $PERF test -w spin 0.3 2>/dev/null ||
	fail "stock record -a -g"
check stock-a.data

# a tracepoint: a count of its samples, each close() one
need_tracepoint syscalls sys_enter_close
"$PERF" record -q -c 1 -e syscalls:sys_enter_close -g -o tp.data -- $PERF test -w closes 5000 2>/dev/null ||
	fail "record a tracepoint"
check tp.data
go tool pprof -raw tp.data.pb.gz 2>/dev/null | grep -q '^syscalls:sys_enter_close/count' ||
	fail "tp.data: no sample type syscalls:sys_enter_close/count"

# dumps of a flight recorder, of its rings and of its --history
flight() {	# NAME OPTIONS...
	local name=$1 rec dump
	shift
	"$PERF" record "$@" --switch-output -e cpu-clock -F 999 -g -o "$name" -- \
		$PERF test -w spin 30 2> "$name.err" &
	rec=$!
	BG_PIDS+=("$rec")
	wait_ready "$rec"
	wait_cpu "$(pgrep -P "$rec" | head -1)" 0.3
	kill -USR2 "$rec"
	wait_until "no dump of $name" compgen -G "$name.2*" > /dev/null
	kill -INT "$rec"
	wait "$rec"
	dump=$(compgen -G "$name.2*" | sort | head -1)
	check "$dump"
}
flight fl.data --overwrite
flight hi.data --history=4M

# the CLOCK_DATA of -k: the profile's time is the samples' on the wall clock
"$PERF" record -q -k CLOCK_MONOTONIC -e cpu-clock -F 999 -o k.data -- $PERF test -w spin 0.2 2>/dev/null &&
{
	"$PERF" data convert --to-pprof -i k.data -o k.pb.gz 2>/dev/null || fail "convert k.data"
	t=$(go tool pprof -raw k.pb.gz 2>/dev/null | sed -n 's/^Time: \([0-9-]* [0-9:]*\).*/\1/p')
	[ -n "$t" ] && [ $(( $(date +%s) - $(date -d "$t" +%s) )) -lt 600 ] || fail "k.data: profile time '$t'"
}

# outputs: never replaced without -f, never through a link; -f replaces
# the link, not what it points to
echo keep > target
ln -s target link.pb.gz
"$PERF" data convert --to-pprof -i own.data -o own.data.pb.gz 2> err.txt && fail "an existing output replaced"
[ "$(wc -l < err.txt)" = 1 ] && grep -q "own.data.pb.gz" err.txt || fail "existing output: $(cat err.txt)"
"$PERF" data convert --to-pprof -i own.data -o link.pb.gz 2>/dev/null && fail "an output through a link"
"$PERF" data convert --to-pprof -f -i own.data -o link.pb.gz 2> err.txt || fail "-f: $(cat err.txt)"
[ "$(cat target)" = keep ] && [ ! -L link.pb.gz ] || fail "-f wrote through the link"
# no -o: the input's name with .pb.gz
cp own.data plain.data
"$PERF" data convert --to-pprof -i plain.data 2>/dev/null && [ -s plain.data.pb.gz ] || fail "no INPUT.pb.gz"

# a truncated file: one line naming it, a non-zero exit, no output
for cut in 100 2000 $(( $(stat -c %s own-g.data) / 2 )); do
	head -c "$cut" own-g.data > cut.data
	"$PERF" data convert --to-pprof -i cut.data -o cut.pb.gz > out.txt 2> err.txt && fail "cut at $cut: converted"
	[ "$(wc -l < err.txt)" = 1 ] && grep -q "cut.data" err.txt || fail "cut at $cut: said '$(cat err.txt)'"
	[ ! -e cut.pb.gz ] && [ -z "$(ls -A | grep '^\.cut')" ] || fail "cut at $cut: an output was left"
done

# the other perf data commands are the stock's
"$PERF" data convert --to-json own.json -i own.data >/dev/null 2>&1 && [ -s own.json ] ||
	fail "perf data convert --to-json is not the stock's"
exit 0
