#!/bin/bash
# perf record --off-cpu: offcpu-time samples of a task blocked in a known place (nanosleep, a pipe read) carry its stack and the time blocked, read by the stock perf; in flight-recorder dumps and --history too; -v names the BPF programs; the refusal without BTF or permission; nothing left loaded after SIGKILL
. "$(dirname "$0")/lib/common.sh"
need_stock
need_bpf
need_cc "the blocking workload"
cd "$TMP" || exit 1

MS=500
# blocker: offcpu_sleeper() sleeps MS ms; offcpu_reader() reads a pipe
# whose writer (a child) sleeps MS ms first, once it runs. Frame pointers: the user
# stack is walked from the syscall through them.
cat > blocker.c <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void offcpu_sleeper(long ms) { nap(ms); }

static __attribute__((noinline)) void pipe_wait(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(2);
}

__attribute__((noinline)) void offcpu_reader(int fd) { pipe_wait(fd); }

int main(int argc, char **argv)
{
	long ms = atol(argv[2]);
	int p[2], ready[2];
	char c;

	if (!strcmp(argv[1], "sleep")) {
		offcpu_sleeper(ms);
		return 0;
	}
	if (pipe(p) || pipe(ready))
		return 1;
	/* the writer's wait starts once it runs, the reader's just after */
	if (!fork()) {
		if (write(ready[1], "r", 1) != 1)
			return 1;
		nap(ms);
		return write(p[1], "x", 1) != 1;
	}
	if (read(ready[0], &c, 1) != 1)
		return 1;
	offcpu_reader(p[0]);
	wait(NULL);
	return 0;
}
EOF
cc -O0 -g -fno-omit-frame-pointer -o blocker blocker.c || fail "cc blocker.c"
# real-time: woken, it runs at once, busy CPUs or not, so the time off CPU
# is the block's (a runnable task's wait for a CPU counts as off CPU too)
RT="chrt -f 1"

# blocked F FUNC: the period (ns) of the offcpu-time sample of F whose
# callchain, as the stock perf script prints it, holds FUNC; 0 if none
blocked() {
	"$STOCK" script -i "$1" -F event,period,ip,sym 2>/dev/null | awk -v fn="$2" '
		/offcpu-time/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) p = $i; next }
		$0 ~ "[[:space:]]" fn "$" { if (p) { print p; found = 1; exit } }
		END { if (!found) print 0 }'
}

# near F FUNC WHAT: FUNC's block in F lasted MS ms, within 5 %
near() {
	local p
	p=$(blocked "$1" "$2")
	[ "$p" != 0 ] || fail "$3: no offcpu-time sample with $2 in its callchain in $1"
	awk -v p="$p" -v ms=$MS -v what="$3 $2" 'BEGIN { e = (p / 1e6 - ms) / ms * 100; if (ENVIRON["PERF_TEST_VERBOSE"] != "") printf "    %s: %d ns, %.2f %% off\n", what, p, e; exit !(e > -5 && e < 5) }' ||
		fail "$3: $2 blocked ${p} ns, not ${MS} ms within 5 %"
}

# normal mode, the workload's own and its child's blocks
"$PERF" record -q --off-cpu -e dummy -o nm.data -- $RT ./blocker sleep $MS 2>nm.err ||
	fail "record --off-cpu: $(cat nm.err)"
near nm.data offcpu_sleeper "normal mode, nanosleep"
"$PERF" record -q --off-cpu -e dummy -o pp.data -- $RT ./blocker pipe $MS 2>pp.err ||
	fail "record --off-cpu: $(cat pp.err)"
near pp.data offcpu_reader "normal mode, pipe read"
for f in nm.data pp.data; do stock_reads_clean $f; done
"$STOCK" evlist -i nm.data | grep -qx offcpu-time || fail "no offcpu-time event in nm.data"

# the flight recorder (backward rings, then --history): the dump after the
# block holds it
for mode in "--overwrite" "--history=16M"; do
	rm -f fl.data.*
	"$PERF" record -q $mode --switch-output --off-cpu -a -e cpu-clock -o fl.data 2>fl.err &
	rp=$!
	BG_PIDS+=($rp)
	wait_ready $rp
	$RT ./blocker sleep $MS || fail "blocker"
	# the block is in the first dump after it, or (the history's
	# compressor behind, the record still in its ring) in the next one
	for n in 1 2 3; do
		kill -USR2 $rp
		wait_until "$mode: no dump $n after SIGUSR2" \
			bash -c "[ \$(compgen -G 'fl.data.*' | wc -l) -ge $n ]"
		dump=$(compgen -G "fl.data.*" | sort | tail -1)
		[ "$(blocked "$dump" offcpu_sleeper)" != 0 ] && break
	done
	kill -INT $rp
	wait_stopped $rp INT || fail "$mode: recorder status $STOPPED_STATUS: $(cat fl.err)"
	near "$dump" offcpu_sleeper "$mode dump $n"
	stock_reads_clean "$dump"
done

# -v names the programs; after a SIGKILL nothing of them stays loaded
"$PERF" record -v --off-cpu -a -e cpu-clock -o kill.data 2>v.err >/dev/null &
rp=$!
BG_PIDS+=($rp)
wait_line v.err "^--off-cpu: BPF program offcpu_switch (tp_btf/sched_switch) id [0-9]"
id=$(sed -n 's/^--off-cpu: BPF program offcpu_switch .* id \([0-9]*\)$/\1/p' v.err)
bpftool prog show id "$id" >/dev/null 2>&1 || fail "program $id not loaded while recording"
kill -9 $rp
wait $rp 2>/dev/null
wait_until "program $id still loaded after the recorder's SIGKILL" \
	bash -c "! bpftool prog show id $id >/dev/null 2>&1"

# the refusals: one line, a failure status; without --off-cpu it records
PERF_TEST_VMLINUX_BTF=$TMP/none "$PERF" record --off-cpu -o r.data true 2>r.err >/dev/null &&
	fail "--off-cpu without BTF recorded"
[ "$(cat r.err)" = "perf record: --off-cpu: cannot load BPF: $TMP/none: No such file or directory" ] ||
	fail "refusal without BTF said: $(cat r.err)"
PERF_TEST_VMLINUX_BTF=$TMP/none "$PERF" record -q -e dummy -o r.data true 2>r.err ||
	fail "without --off-cpu, a missing BTF stopped the recording: $(cat r.err)"
if command -v setpriv >/dev/null; then
	chmod 711 "$TMP" && mkdir -m 1777 pub || fail "a directory for nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PERF" record --off-cpu \
		-o pub/u.data true 2>u.err >/dev/null && fail "--off-cpu as nobody recorded"
	grep -qx "perf record: --off-cpu: cannot load BPF: bpf(BPF_PROG_LOAD): Operation not permitted (needs CAP_BPF and CAP_PERFMON, or root)" u.err ||
		fail "refusal as nobody said: $(cat u.err)"
	[ "$(wc -l < u.err)" = 1 ] || fail "refusal as nobody said more than a line: $(cat u.err)"
fi
exit 0
