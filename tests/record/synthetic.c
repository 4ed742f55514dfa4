/* The records record/synthetic.c makes of tasks that exist already:
 * COMM, MMAP2 and FORK, the kernel's map, build ids. */
#include "tests/tests.h"
#include "record/synthetic.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* The GNU build-id note of PATH read another way than the code under test:
 * plain <elf.h> structures, the PT_NOTE segments, no libelf. Returns its
 * length, 0 if there is none, -1 if PATH is not a readable 64-bit ELF. */
static int note_build_id(const char *path, u8 out[BUILD_ID_SIZE])
{
	int fd = open(path, O_RDONLY), len = -1;
	Elf64_Ehdr eh;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		goto out;
	len = 0;
	for (int i = 0; i < eh.e_phnum && !len; i++) {
		Elf64_Phdr ph;
		size_t align, off = 0;
		char *notes;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph)) {
			len = -1;
			break;
		}
		if (ph.p_type != PT_NOTE || ph.p_filesz > 1 << 20 || !(notes = malloc(ph.p_filesz)))
			continue;
		/* notes in a segment aligned to 8 are padded to 8, else to 4 */
		align = ph.p_align == 8 ? 8 : 4;
		if (pread(fd, notes, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
			ph.p_filesz = 0;
		while (off + sizeof(Elf64_Nhdr) <= ph.p_filesz) {
			const Elf64_Nhdr *nh = (const void *)(notes + off);
			size_t name = (nh->n_namesz + align - 1) & ~(align - 1);
			size_t desc = (nh->n_descsz + align - 1) & ~(align - 1);
			const char *nm = notes + off + sizeof(*nh);

			if (off + sizeof(*nh) + name + desc > ph.p_filesz)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(nm, "GNU", 4) &&
			    nh->n_descsz > 0 && nh->n_descsz <= BUILD_ID_SIZE) {
				memcpy(out, nm + name, nh->n_descsz);
				len = nh->n_descsz;
				break;
			}
			off += sizeof(*nh) + name + desc;
		}
		free(notes);
	}
out:
	close(fd);
	return len;
}

static int test_synthetic(struct test_ctx *ctx)
{
	struct build_id_cache *c = build_id_cache__new();
	struct buf b = { 0 };
	char exe[PATH_MAX], comm[16] = "";
	u8 bid[BUILD_ID_SIZE], note[BUILD_ID_SIZE];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int comms = 0, exe_maps = 0, exe_bid_ok = 0, kernel = 0, bid_len, note_len;
	pid_t me = getpid();

	(void)ctx;
	TEST_ASSERT(c && n > 0, "setup");
	exe[n] = '\0';
	prctl(PR_GET_NAME, comm);
	bid_len = build_id_cache__get(c, exe, bid);
	note_len = note_build_id(exe, note);
	TEST_ASSERT(note_len >= 0, "%s: not a readable 64-bit ELF file", exe);
	TEST_ASSERT(bid_len == note_len && !memcmp(bid, note, note_len),
		    "build id of %s: %d bytes, its ELF note has %d", exe, bid_len, note_len);
	if (!note_len) {
		build_id_cache__delete(c);
		TEST_SKIP_BECAUSE(ctx, "perf has no build id note (linked without --build-id)");
	}
	TEST_ASSERT(!synthesize__process(&b, me, ST, c), "synthesize self");
	if (!synthesize__kernel_mmap(&b, ST))
		kernel = 1;
	TEST_ASSERT(synthesize__process(&b, 0x7ffffff0, ST, c) == -ESRCH, "absent pid");

	for (size_t off = 0; off < b.len;) {
		struct perf_event_header *h = (void *)(b.p + off);
		const u32 *ids = (const u32 *)(h + 1);
		struct sample_id sid;

		TEST_ASSERT(h->size >= 8 && h->size % 8 == 0 && off + h->size <= b.len, "size");
		TEST_ASSERT(!event__parse_id(h, ST, &sid) && sid.time == 0, "trailer");
		if (h->type == PERF_RECORD_COMM && ids[0] == (u32)me) {
			TEST_ASSERT(!strcmp((const char *)(ids + 2), comm), "comm %s",
				    (const char *)(ids + 2));
			comms++;
		}
		if (h->type == PERF_RECORD_MMAP2 && !strcmp((const char *)h + 72, exe)) {
			exe_maps++;
			TEST_ASSERT(sid.pid == (u32)me, "pid in trailer");
			if (bid_len && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
			    ((const u8 *)h)[40] == bid_len && !memcmp((const u8 *)h + 44, bid, bid_len))
				exe_bid_ok++;
		}
		if (h->type == PERF_RECORD_MMAP)
			TEST_ASSERT(!strcmp((const char *)h + 40, "[kernel.kallsyms]_text") &&
				    (h->misc & PERF_RECORD_MISC_KERNEL), "kernel map");
		off += h->size;
	}
	TEST_ASSERT(comms >= 1, "no COMM for ourselves");
	TEST_ASSERT(exe_maps >= 1, "no executable MMAP2 for %s", exe);
	TEST_ASSERT(exe_bid_ok == exe_maps, "%d of %d MMAP2 of %s carry its build id",
		    exe_bid_ok, exe_maps, exe);
	TEST_LOG(ctx, "  %zu bytes, kernel map %s, build id %d bytes\n", b.len,
		 kernel ? "yes" : "hidden", bid_len);
	buf__release(&b);
	build_id_cache__delete(c);
	return TEST_OK;
}

/* The names of every thread: this one among them; and none read once a
 * SIGINT waits for the recorder's loop, which must not wait on the scan. */
static int test_names(struct test_ctx *ctx)
{
	struct buf b = { 0 };
	sigset_t set, old;
	siginfo_t si;
	struct timespec now = { 0, 0 };
	int n, stopped;

	(void)ctx;
	n = synthesize__names(&b, ST);
	TEST_ASSERT(n > 0 && !b.err, "no names read: %d", n);
	buf__release(&b);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	TEST_ASSERT(!sigprocmask(SIG_BLOCK, &set, &old), "sigprocmask");
	raise(SIGINT);
	stopped = synthesize__names(&b, ST);
	/* the SIGINT taken back before the mask is */
	sigtimedwait(&set, &si, &now);
	sigprocmask(SIG_SETMASK, &old, NULL);
	TEST_ASSERT(stopped == 0 && b.len == 0, "%d names read with a SIGINT pending", stopped);
	buf__release(&b);
	return TEST_OK;
}

TEST_SUITE(suite_record_synthetic, "record/synthetic",
	   "Synthesize COMM/MMAP2/FORK of existing tasks; every thread's name, the scan ended "
	   "by a pending SIGINT", test_synthetic, test_names);
