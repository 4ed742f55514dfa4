#!/bin/bash
# perf script on --call-graph dwarf frames in memory with no file (code copied into an anonymous mapping, the [heap], SysV shared memory; a return address into the [stack]) and in a binary named /tmp/perf-*: the stock's bytes, raw addresses and where unwinding stops, by default and with -F, on files of both perfs; a hostile cwd with files named [stack], [heap], [vvar] is never opened
. "$(dirname "$0")/lib/common.sh"
need_stock
need_cc
cd "$TMP" || exit 1

# spin() copied into memory with no file, called through a pointer
cat > jit.c <<'C'
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char spin[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
__attribute__((noinline)) void run(void (*f)(long), int n)
{
	for (int i = 0; i < n; i++)
		f(1000000);
	__asm__ volatile("" ::: "memory");
}
int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = MAP_FAILED;

	if (!strcmp(argv[1], "anon")) {
		p = mmap(NULL, pg, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (!strcmp(argv[1], "heap")) {	/* a page of the brk heap made executable */
		p = (void *)(((unsigned long)malloc(4 * pg) + pg) & ~(pg - 1));
		if (mprotect(p, pg, PROT_READ | PROT_WRITE | PROT_EXEC))
			return 1;
	} else if (!strcmp(argv[1], "shm")) {
		int id = shmget(IPC_PRIVATE, pg, IPC_CREAT | 0600);

		p = id < 0 ? MAP_FAILED : shmat(id, NULL, SHM_EXEC);
		shmctl(id, IPC_RMID, NULL);
	}
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, spin, sizeof(spin));
	run((void (*)(long))p, atoi(argv[2]));
	return 0;
}
C
# a function whose CFI says its return address is where it pushed rsp:
# the caller's frame is an address on the [stack]
cat > lie.S <<'S'
	.text
	.globl	lie
	.type	lie, @function
lie:
	.cfi_startproc
	push	%rsp
	.cfi_def_cfa_offset 8
	mov	%rdi, %rcx
1:	dec	%rcx
	jnz	1b
	pop	%rax
	ret
	.cfi_endproc
	.size	lie, .-lie
	.section .note.GNU-stack,"",@progbits
S
cat > lmain.c <<'C'
#include <stdlib.h>
void lie(long n);
int main(int argc, char **argv) { int n = atoi(argv[1]); for (int i = 0; i < n; i++) lie(1000000); return 0; }
C
cc -g -O1 -fno-omit-frame-pointer -o jit jit.c || fail "cc jit.c"
cc -g -O1 -fno-omit-frame-pointer -o lmain lmain.c lie.S || fail "cc lie.S"
./jit shm 1 || skip "no executable SysV shared memory here"

# samples whose first or second frame (after the sample's line, where -F
# prints one) is a raw user address: 12 hex digits after the tab and 4
# blanks ("%16llx"), not a file offset, not a kernel address (deeper down
# the stock's libunwind may make up frames past the stack's end: see the
# man page)
h12=$(printf '[0-9a-f]%.0s' $(seq 12))
fileless() {
	awk -v RS= -v ORS='\n\n' -v re="^\t    $h12( |\$)" \
		'{ n = split($0, l, "\n"); if (l[1] ~ re || l[2] ~ re || (n > 2 && l[3] ~ re)) print }' "$1"
}

same() {	# DATA WHAT ARGS...: both perfs print the same samples in memory with no file
	local data=$1 what=$2 tag
	shift 2
	tag=$data$(echo "$*" | tr -c 'a-z0-9\n' _)
	"$PERF" script -i "$data" "$@" > "$tag.ours" 2> "$tag.ours.err" ||
		fail "$data $*: $(head -2 "$tag.ours.err")"
	"$STOCK" script -i "$data" "$@" > "$tag.stock" 2> /dev/null
	fileless "$tag.ours" > "$tag.ours.nf"
	fileless "$tag.stock" > "$tag.stock.nf"
	[ "$(grep -c "$what" "$tag.stock.nf")" -ge 20 ] ||
		fail "$data $*: the stock shows $(grep -c "$what" "$tag.stock.nf") frames of $what"
	cmp -s "$tag.ours.nf" "$tag.stock.nf" ||
		fail "$data $*: ours and the stock's differ: $(diff "$tag.ours.nf" "$tag.stock.nf" | head -8)"
	log "$data $*: $(grep -c "$what" "$tag.ours.nf") frames of $what alike"
}

for rec in ours stock; do
	[ $rec = ours ] && P=$PERF || P=$STOCK
	for mode in anon heap shm; do
		"$P" record -q --call-graph dwarf -e cpu-clock -o "$mode-$rec.data" -- ./jit $mode 400 \
			2> rec.err || fail "$rec perf record ./jit $mode: $(head -2 rec.err)"
		# the spinning code's own frame, and no caller made up after it
		same "$mode-$rec.data" "(/tmp/perf-"
		same "$mode-$rec.data" "(/tmp/perf-" -F ip,sym,symoff,dso
		same "$mode-$rec.data" "$h12" -F comm,tid,ip
		awk -v RS= '/\/tmp\/perf-/ { n = split($0, l, "\n"); if (l[n] !~ /\/tmp\/perf-/) print }' \
			"$mode-$rec.data.ours.nf" > after
		[ ! -s after ] || fail "$mode-$rec.data: a frame after the JIT's: $(head -4 after)"
	done
	"$P" record -q --call-graph dwarf -e cpu-clock -o "lie-$rec.data" -- ./lmain 600 \
		2> rec.err || fail "$rec perf record ./lmain: $(head -2 rec.err)"
	# lie's frame, then the address on the stack as it is, and the end
	same "lie-$rec.data" "(\[stack\])"
	same "lie-$rec.data" "(\[stack\])" -F ip,sym,dso
	same "lie-$rec.data" "$h12" -F comm,tid,ip
	grep -A1 " lie+0x" "lie-$rec.data.ours.nf" |
		grep -q "^"$'\t'"    7f$(printf '[0-9a-f]%.0s' $(seq 10)) \[unknown\] (\[stack\])\$" ||
		fail "lie-$rec.data: no raw [stack] address: $(grep -m1 -A2 ' lie+0x' "lie-$rec.data.ours.nf")"
done

# a binary under a name that starts /tmp/perf-: the stock reads any file
# named so as a JIT's perf map, so an ELF file there has no symbols
pm=$(mktemp /tmp/perf-frtest.XXXXXX) || fail "mktemp /tmp/perf-*"
trap 'rm -f "$pm"; cleanup' EXIT
cp lmain "$pm" && chmod 700 "$pm" || fail "cp lmain $pm"
"$PERF" record -q -e cpu-clock -o pm.data -- "$pm" 300 2> rec.err || fail "record $pm: $(head -2 rec.err)"
for f in "" "-F ip,sym,dso"; do
	"$PERF" script -i pm.data $f > pm.ours 2> pm.err || fail "script -i pm.data $f: $(head -2 pm.err)"
	"$STOCK" script -i pm.data $f > pm.stock 2> /dev/null
	n=$(grep -c "\[unknown\] ($pm)" pm.stock)
	[ "$n" -ge 20 ] || fail "$pm: the stock shows $n samples [unknown] in it"
	cmp -s pm.ours pm.stock || fail "$pm $f: ours and the stock's differ: $(diff pm.ours pm.stock | head -4)"
done
rm -f "$pm"

# a hostile cwd: ELF files named as the maps with no file and the
# kernel's pseudo maps; none is opened, nor any other relative name
mkdir hostile && cd hostile || exit 1
for n in '[stack]' '[heap]' '[vvar]' '[vdso]'; do
	cp ../lmain "$n"
done
command -v strace > /dev/null || skip "no strace (tests/install-deps installs it)"
for data in "$TMP/lie-ours.data" "$TMP/heap-stock.data" "$TMP/anon-ours.data"; do
	# (LeakSanitizer cannot run under a tracer)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=open,openat,openat2,stat,newfstatat,statx,access,readlink \
		-o trace "$PERF" script -i "$data" > out 2> err || fail "$data: $(head -2 err)"
	grep -q "\"$data\"" trace || fail "strace saw no open of $data: $(head -3 trace)"
	# a path argument that does not start with a /
	grep -E '(AT_FDCWD, |^[0-9]+ +(open|stat|access|readlink)\()"[^/]' trace > rel &&
		fail "$data: a relative name opened: $(head -3 rel)"
	cmp -s out "$data.ours" ||
		fail "$data: another output in a hostile cwd: $(diff out "$data.ours" | head -4)"
done
log "no relative name opened"
exit 0
