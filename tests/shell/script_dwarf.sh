#!/bin/bash
# perf script on --call-graph dwarf files: the user stack dumps unwound (libdw) to the stock's frames, inlined functions included, byte for byte the stock's output by default, with -F ip,sym,symoff,dso, with -F ip alone, --max-stack and -G; a file with its stack dumps and registers scrambled is read without a crash
. "$(dirname "$0")/lib/common.sh"
need_stock
need_cc
cd "$TMP" || exit 1

cat > nest.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i * 3; }
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) sink += i; inner(n); }
__attribute__((noinline)) void mid(int n) { leaf(n); }
__attribute__((noinline)) void top(int n) { mid(n); }
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 200; for (int i = 0; i < n; i++) top(1000000); return 0; }
C
cc -g -O1 -fno-omit-frame-pointer -o nest nest.c || fail "cc nest.c"
"$PERF" record -q --call-graph dwarf -e cpu-clock -o dwarf.data -- ./nest 60 2> rec.err ||
	fail "perf record --call-graph dwarf: $(head -2 rec.err)"

own() {	# FILE: its samples in nest's loop (a sample a paragraph, or a line with -G)
	if grep -q '^$' "$1"; then
		awk -v RS= -v ORS='\n\n' '/ (leaf|mid|top)\+0x/' "$1"
	else
		grep -E ' (leaf|mid|top|inner)\+0x' "$1"
	fi
}
same() {	# ARGS...: both perfs print the same bytes and exit alike
	local tag
	tag=$(echo "$*" | tr -c 'a-z0-9\n' _)
	[ -n "$tag" ] || tag=default
	"$PERF" script -i dwarf.data "$@" > "$tag.ours" 2> "$tag.ours.err"
	local ours=$?
	"$STOCK" script -i dwarf.data "$@" > "$tag.stock" 2> "$tag.stock.err"
	local stock=$?
	[ "$ours" = "$stock" ] || fail "$*: exit $ours, the stock's $stock: $(head -2 "$tag.ours.err")"
	# the samples of nest's loop: in the loader and libc the stock's
	# libunwind may add frames past the stack's end (see the man page)
	own "$tag.ours" > "$tag.ours.own"
	own "$tag.stock" > "$tag.stock.own"
	[ "$(wc -l < "$tag.stock.own")" -gt 20 ] || fail "$*: only $(wc -l < "$tag.stock.own") lines of nest's samples"
	cmp -s "$tag.ours.own" "$tag.stock.own" ||
		fail "$*: ours and the stock's differ: $(diff "$tag.ours.own" "$tag.stock.own" | head -6)"
	log "$*: $(wc -l < "$tag.ours") lines alike"
}
same
same -F ip,sym,symoff,dso
same --max-stack 3
same -G
# the frames unwound from the dump: the inlined function, then its callers
# up to main, each in nest
grep -A4 "inner+0x[0-9a-f]* (inlined)" default.ours | grep -q "top+0x[0-9a-f]* ($TMP/nest)" &&
	grep -q "main+0x[0-9a-f]* ($TMP/nest)" default.ours ||
	fail "no unwound frames: $(grep -m1 -A6 cpu-clock default.ours)"

# -F ip without sym or dso: the frames still unwound from the dumps, each
# as its offset in its DSO, the inlined ones marked, as the stock prints
# them (the whole output: no symbol names, so no alias to differ on)
"$PERF" script -i dwarf.data -F comm,tid,ip > ip.ours 2> ip.ours.err || fail "-F comm,tid,ip: $(head -2 ip.ours.err)"
"$STOCK" script -i dwarf.data -F comm,tid,ip > ip.stock 2> /dev/null
cmp -s ip.ours ip.stock || fail "-F comm,tid,ip: ours and the stock's differ: $(diff ip.ours ip.stock | head -6)"
grep -q '^[[:space:]]*[0-9a-f]* (inlined)$' ip.ours || fail "-F comm,tid,ip: no inlined frame of nest"
log "-F comm,tid,ip: $(wc -l < ip.ours) lines alike"

# an assembler function with aliases, as glibc's syscalls and string
# functions are: GNU as writes a DW_TAG_subprogram for each name, and the
# stock's addr2line names a frame after the last of those covering it
# (__aspin here, a global that its symbol table lists after the local
# __GI_aspin), which is not the name perf's symbol table keeps (aspin):
# the stock prints that frame as inlined
cat > aspin.S <<'S'
	.text
	.globl	aspin
	.type	aspin, @function
aspin:
	.cfi_startproc
	mov	%rdi, %rcx
1:	dec	%rcx
	jnz	1b
	ret
	.cfi_endproc
	.size	aspin, .-aspin
	.type	__GI_aspin, @function
	.set	__GI_aspin, aspin
	.size	__GI_aspin, .-aspin
	.globl	__aspin
	.type	__aspin, @function
	.set	__aspin, aspin
	.size	__aspin, .-aspin
	.section .note.GNU-stack,"",@progbits
S
cat > amain.c <<'C'
#include <stdlib.h>
void aspin(long n);
int main(int argc, char **argv) { int n = atoi(argv[1]); for (int i = 0; i < n; i++) aspin(1000000); return 0; }
C
cc -g -O1 -fno-omit-frame-pointer -o amain amain.c aspin.S || fail "cc aspin.S"
"$PERF" record -q --call-graph dwarf -e cpu-clock -o asm.data -- ./amain 3000 2> rec.err ||
	fail "perf record --call-graph dwarf ./amain: $(head -2 rec.err)"
"$PERF" script -i asm.data -F ip,sym,symoff,dso > asm.ours 2> asm.ours.err ||
	fail "asm.data: $(head -2 asm.ours.err)"
"$STOCK" script -i asm.data -F ip,sym,symoff,dso > asm.stock 2> /dev/null
grep -q " __aspin+0x[0-9a-f]* (inlined)$" asm.stock ||
	fail "the stock names no frame __aspin: $(grep -m3 aspin asm.stock)"
# its frames and the one of main it returns to (the stock's libunwind
# may go on past the stack's end after that: see the man page)
grep -A1 aspin asm.ours > asm.ours.own
grep -A1 aspin asm.stock > asm.stock.own
grep -q " main+0x[0-9a-f]* (.*/amain)$" asm.ours.own || fail "asm.data: no main: $(head -3 asm.ours.own)"
cmp -s asm.ours.own asm.stock.own ||
	fail "asm.data: ours and the stock's differ: $(diff asm.ours.own asm.stock.own | head -6)"
log "asm.data: $(grep -c aspin asm.ours.own) frames of aspin alike"

# the stack dumps and registers are the file's: scrambled, no crash
size=$(stat -c %s dwarf.data)
for seed in 1 2 3 4 5 6 7 8; do
	cp dwarf.data fuzz.data
	RANDOM=$seed
	for i in $(seq 200); do
		off=$(( (RANDOM * 32768 + RANDOM) % (size - 4096) + 4096 ))
		printf "\\x$(printf %02x $((RANDOM % 256)))" |
			dd of=fuzz.data bs=1 seek=$off conv=notrunc status=none
	done
	"$PERF" script -i fuzz.data > fuzz.out 2> fuzz.err
	rc=$?
	[ $rc -lt 128 ] || fail "seed $seed: perf script died (status $rc): $(tail -2 fuzz.err)"
done
exit 0
