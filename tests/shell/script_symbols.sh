#!/bin/bash
# perf script -F ip,sym,dso,symoff (callchains, C++ names, the vdso, JIT code and its perf map): the same lines as the stock perf script on this perf's normal files and --overwrite dumps; symbols from a private build-id cache once the binary is gone or rebuilt; a broken binary or a FIFO in its place is [unknown], never a crash or a hang
. "$(dirname "$0")/lib/common.sh"
need_stock
need_cc
cd "$TMP" || exit 1
# neither perf may use or fill the user's build-id cache: both look in
# $HOME/.debug by default
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME" || exit 1

cat > hot.c <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void hot_inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
__attribute__((noinline)) void hot_outer(unsigned long n)
{
	hot_inner(n);
	sink ^= n;	/* no tail call: hot_outer stays in the callchain */
}
int main(int argc, char **argv)
{
	hot_outer(strtoul(argv[1], NULL, 0));
	return 0;
}
C
cc -O0 -fno-omit-frame-pointer -o hot hot.c || fail "compile hot.c"
BIN=$TMP/hot
N=150000000

"$PERF" record -q -e cpu-clock -o plain.data -- ./hot $N 2> plain.err || fail "record: $(cat plain.err)"
"$PERF" record -q -g -e cpu-clock -o graph.data -- ./hot $N 2> graph.err || fail "record -g: $(cat graph.err)"
# the flight recorder's one dump at the end, after the workload exited
"$PERF" record -q --overwrite -g -e cpu-clock -o ow.data -- ./hot $N 2> ow.err ||
	fail "record --overwrite: $(cat ow.err)"
[ -s ow.data ] || fail "no dump: $(ls; cat ow.err)"

# the flight recorder system-wide: SIGUSR2 after the workload exited
"$PERF" record --overwrite --switch-output -a -e cpu-clock -o fr.data 2> fr.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
./hot $N & hot=$!
wait $hot || fail "hot failed"
kill -USR2 $rec
wait_line fr.err "Dump fr.data"
kill -INT $rec
wait_gone $rec "SIGINT after the dump"
wait_stopped $rec INT || fail "record -a exit status $STOPPED_STATUS: $(cat fr.err)"
FR=$(ls fr.data.* | head -1)

# same TAG FILE FIELDS [OPTS]: both perfs print the same lines; ours says
# nothing on stderr. Leaves ours in TAG.ours.
same() {
	local tag=$1 file=$2 fields=$3
	shift 3
	"$PERF" script -i "$file" -F "$fields" "$@" > "$tag.ours" 2> "$tag.err" ||
		fail "$tag: perf script -F $fields: $(head -2 "$tag.err")"
	[ -s "$tag.err" ] && fail "$tag: perf script -F $fields said: $(head -2 "$tag.err")"
	"$STOCK" script -i "$file" -F "$fields" > "$tag.stock" 2> "$tag.stock.err" ||
		fail "$tag: stock perf script -F $fields: $(head -2 "$tag.stock.err")"
	[ -s "$tag.stock" ] || fail "$tag: the stock perf prints nothing with -F $fields"
	cmp -s "$tag.ours" "$tag.stock" ||
		fail "$tag: -F $fields: ours and stock differ: $(diff "$tag.ours" "$tag.stock" | head -6)"
	log "$tag -F $fields: $(wc -l < "$tag.ours") lines alike"
}

# share TAG PATTERN: how many of TAG.ours's samples (lines, or callchains'
# first lines) match PATTERN, in percent
share() {
	awk -v pat="$2" 'NF == 0 { first = 1; next }
		!chain || first { n++; if ($0 ~ pat) hit++; first = 0 }
		END { print n ? int(100 * hit / n) : 0 }' chain="$3" "$1.ours"
}

HOT="hot_inner\\+0x[0-9a-f]+ \\($BIN\\)"
# system-wide: the workload's lines (other tasks' binaries may change under
# the two runs)
"$PERF" script -i "$FR" -F pid,ip,sym,dso,symoff 2> fr.ours.err | awk -v p=$hot '$1 == p' > fr.ours
"$STOCK" script -i "$FR" -F pid,ip,sym,dso,symoff 2> /dev/null | awk -v p=$hot '$1 == p' > fr.stock
[ -s fr.ours.err ] && fail "fr: perf script said: $(head -2 fr.ours.err)"
cmp -s fr.ours fr.stock || fail "fr: ours and stock differ: $(diff fr.ours fr.stock | head -6)"
p=$(share fr "$HOT")
[ "$p" -ge 80 ] || fail "fr: hot_inner in only $p% of pid $hot's $(wc -l < fr.ours) samples: $(head -3 fr.ours)"
log "fr: $(wc -l < fr.ours) samples of the exited pid $hot alike, $p% in hot_inner"
for f in plain graph ow; do
	same $f $f.data ip,sym,dso,symoff
	same $f-sym $f.data ip,sym
	same $f-dso $f.data comm,tid,time,ip,dso
	same $f-all $f.data comm,pid,tid,time,period,event,ip,sym,symoff,dso
done
# the hot function by name, in its file, for most samples
p=$(share plain "$HOT")
[ "$p" -ge 80 ] || fail "plain: hot_inner in only $p% of the samples: $(sort plain.ours | uniq -c | sort -rn | head -3)"
for f in graph ow; do
	p=$(share $f "$HOT" 1)
	[ "$p" -ge 80 ] || fail "$f: hot_inner leads only $p% of the callchains: $(head -5 $f.ours)"
	# and its callers below it, as offsets in the file
	grep -A2 -E "$HOT" $f.ours | grep -qE "^	 +[0-9a-f]+ hot_outer\\+0x[0-9a-f]+ \\($BIN\\)" ||
		fail "$f: no hot_outer under hot_inner: $(head -5 $f.ours)"
	grep -qE "^	 +[0-9a-f]+ main\\+0x[0-9a-f]+ \\($BIN\\)" $f.ours || fail "$f: no main: $(head -5 $f.ours)"
done
log "hot_inner: $(share plain "$HOT")% of the plain samples"

# C++: names demangled as the stock perf shows them, without parameters
cat > cxx.cc <<'C'
#include <cstdlib>
namespace hot {
template <typename T> struct Box {
	__attribute__((noinline)) static T spin(T n)
	{
		volatile T s = 0;
		for (T i = 0; i < n; i++)
			s += i;
		return s;
	}
};
}
int main(int, char **argv)
{
	return (int)hot::Box<unsigned long>::spin(std::strtoul(argv[1], nullptr, 0)) & 1;
}
C
c++ -O0 -fno-omit-frame-pointer -o cxx cxx.cc || fail "compile cxx.cc"
"$PERF" record -q -g -e cpu-clock -o cxx.data -- ./cxx $N 2> cxx.err || fail "record cxx: $(cat cxx.err)"
same cxx cxx.data ip,sym,dso,symoff
grep -qF "hot::Box<unsigned long>::spin+0x" cxx.ours || fail "cxx: not demangled: $(head -3 cxx.ours)"

# The vdso, and anonymous code: [unknown] in /tmp/perf-PID.map, or the
# function the JIT wrote there. -fno-plt: samples in a PLT entry are named
# by how the stock's tree of symbols happens to be shaped (_init+0x30 or
# clock_gettime@plt).
cat > jit.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* mov $N,%rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char loop[] = { 0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], NULL, 0);
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts;
	char path[64];
	FILE *map;

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, loop, sizeof(loop));
	memcpy(code + 2, &n, 8);
	if (argc > 2) {	/* describe the code as a JIT does */
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
		map = fopen(path, "w");
		if (!map)
			return 1;
		fprintf(map, "%lx %zx jitted_loop\n", (unsigned long)code, sizeof(loop));
		fclose(map);
		printf("%d\n", getpid());
	}
	((void (*)(void))code)();
	for (unsigned long i = 0; i < n / 100; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return 0;
}
C
cc -O0 -fno-plt -o jit jit.c || fail "compile jit.c"
"$PERF" record -q -e cpu-clock -o anon.data -- ./jit $N 2> anon.err || fail "record jit: $(cat anon.err)"
trap 'rm -f "/tmp/perf-$JITPID.map"; cleanup' EXIT
"$PERF" record -q -e cpu-clock -o jit.data -- ./jit $N map > jit.pid 2> jit.err || fail "record jit map: $(cat jit.err)"
JITPID=$(cat jit.pid)
[ -s "/tmp/perf-$JITPID.map" ] || fail "jit: no /tmp/perf-$JITPID.map"
same anon anon.data ip,sym,dso,symoff
same jit jit.data ip,sym,dso,symoff
for f in anon jit; do
	grep -qE "__vdso_clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)" $f.ours || fail "$f: no vdso function: $(head -3 $f.ours)"
done
grep -qE "\[unknown\] \(/tmp/perf-[0-9]+\.map\)" anon.ours || fail "anon: $(head -3 anon.ours)"
grep -qE "jitted_loop\+0x[0-9a-f]+ \(/tmp/perf-$JITPID\.map\)" jit.ours || fail "jit: $(head -3 jit.ours)"

# symoff without sym: one line, no output
"$PERF" script -i plain.data -F ip,symoff > /dev/null 2> symoff.err && fail "-F ip,symoff accepted"
[ "$(wc -l < symoff.err)" = 1 ] || fail "-F ip,symoff: $(cat symoff.err)"

# The binary gone, its copy in the build-id cache: both perfs still name
# it, from the cache (filled by the stock, as its record would).
"$STOCK" buildid-cache -a "$BIN" 2> cache.err || fail "stock buildid-cache -a: $(cat cache.err)"
bid=$(readelf -n "$BIN" | sed -n 's/.*Build ID: //p')
[ -e "$HOME/.debug/.build-id/${bid:0:2}/${bid:2}" ] || fail "no cache entry for $bid: $(find "$HOME" | head)"
cp plain.ours before.ours
rm "$BIN"
for f in plain graph ow; do
	same gone-$f $f.data ip,sym,dso,symoff
done
cmp -s gone-plain.ours before.ours || fail "without the binary: $(diff gone-plain.ours before.ours | head -4)"
# the cache elsewhere, named by --buildid-dir or $PERF_BUILDID_DIR (the
# stock's own --buildid-dir is a perf option before the command)
mv "$HOME/.debug" cache
"$STOCK" --buildid-dir "$TMP/cache" script -i plain.data -F ip,sym,dso,symoff > dir.stock 2>/dev/null
"$PERF" script -i plain.data -F ip,sym,dso,symoff --buildid-dir "$TMP/cache" > dir.ours 2> dir.err ||
	fail "--buildid-dir: $(cat dir.err)"
PERF_BUILDID_DIR=$TMP/cache "$PERF" script -i plain.data -F ip,sym,dso,symoff > env.ours 2> env.err ||
	fail "PERF_BUILDID_DIR: $(cat env.err)"
for f in dir.stock dir.ours env.ours; do
	cmp -s $f before.ours || fail "$f: $(diff $f before.ours | head -4)"
done
# and without any cache: the file is still named, its symbols unknown
"$PERF" script -i plain.data -F ip,sym,dso > nocache.ours || fail "no cache: perf script failed"
grep -q "hot_inner" nocache.ours && fail "no cache and no binary, yet symbols: $(head -2 nocache.ours)"
grep -qF "[unknown] ($BIN)" nocache.ours || fail "no cache: $(head -2 nocache.ours)"
mv cache "$HOME/.debug"

# Another program at the path: its build id differs, the cache's copy is used
sed 's/hot_inner/other_fn/g; s/hot_outer/other_outer/g' hot.c > other.c
cc -O0 -fno-omit-frame-pointer -o "$BIN" other.c || fail "compile other.c"
same rebuilt plain.data ip,sym,dso,symoff
cmp -s rebuilt.ours before.ours || fail "rebuilt: $(diff rebuilt.ours before.ours | head -4)"

# A broken file at the path (cut short, then garbage), no cache: [unknown]
mv "$HOME/.debug" cache
head -c 3000 "cache/.build-id/${bid:0:2}/${bid:2}/elf" > "$BIN" || fail "no elf in the cache"
[ "$(wc -c < "$BIN")" = 3000 ] || fail "cut-short binary: $(wc -c < "$BIN") bytes"
for kind in short garbage fifo; do
	[ $kind = garbage ] && head -c 20000 /dev/urandom > "$BIN"
	[ $kind = fifo ] && { rm -f "$BIN"; mkfifo "$BIN"; }
	timeout 60 "$PERF" script -i graph.data -F ip,sym,dso,symoff > $kind.ours 2> $kind.err ||
		fail "$kind binary: perf script exit $?: $(head -2 $kind.err)"
	grep -q "hot_inner" $kind.ours && fail "$kind binary: symbols from it: $(head -3 $kind.ours)"
	grep -qF "[unknown] ($BIN)" $kind.ours || fail "$kind binary: $(head -3 $kind.ours)"
done
exit 0
