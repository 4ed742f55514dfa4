/* Build ids read from ELF notes (files, the kernel, modules, the vdso),
 * and where the build-id cache is. */
#include "buildid/build-id.h"
#include "buildid/mapped-file.h"
#include "lib/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first GNU build-id note among the note bytes p[0..len). */
static int note_build_id(const char *p, size_t len, u8 bid[BUILD_ID_SIZE])
{
	size_t off = 0;

	while (off + 12 <= len) {
		u32 namesz, descsz, type;
		size_t name, desc, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name = off + 12;
		desc = name + ALIGN_UP((size_t)namesz, 4);
		next = desc + ALIGN_UP((size_t)descsz, 4);
		if (namesz > len || descsz > len || next > len)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name, "GNU", 4) &&
		    descsz > 0) {
			int n = MIN(descsz, BUILD_ID_SIZE);

			memcpy(bid, p + desc, n);
			return n;
		}
		off = next;
	}
	return 0;
}

int build_id__from_elf(Elf *elf, u8 bid[BUILD_ID_SIZE])
{
	Elf_Scn *scn = NULL;
	int len = 0;

	while (!len && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			len = note_build_id(data->d_buf, data->d_size, bid);
	}
	return len;
}

int build_id__from_fd(int fd, u8 bid[BUILD_ID_SIZE])
{
	Elf *elf;
	int len;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	len = elf_kind(elf) == ELF_K_ELF ? build_id__from_elf(elf, bid) : 0;
	elf_end(elf);
	return len;
}

int build_id__from_path(const char *path, u8 bid[BUILD_ID_SIZE])
{
	/* O_NONBLOCK: a FIFO put in a binary's place must not hang the open;
	 * only a regular file is read */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), len;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	len = build_id__from_fd(fd, bid);
	close(fd);
	return len;
}

int build_id__from_mapped(const char *path, u8 bid[BUILD_ID_SIZE])
{
	int fd = mapped_file__open(path, NULL), len;

	if (fd < 0)
		return fd;
	len = build_id__from_fd(fd, bid);
	close(fd);
	return len;
}

/* A notes file of sysfs: the raw note entries, no ELF around them. */
static int notes_file(const char *path, u8 bid[BUILD_ID_SIZE])
{
	struct buf b = { 0 };
	size_t len;
	int err = buf__file(&b, path, &len), n;

	if (err)
		return err;
	n = note_build_id(b.p, b.len, bid);
	buf__release(&b);
	return n;
}

int build_id__kernel(u8 bid[BUILD_ID_SIZE])
{
	return notes_file("/sys/kernel/notes", bid);
}

int build_id__module(const char *name, u8 bid[BUILD_ID_SIZE])
{
	char path[PATH_MAX];

	if (strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
	return notes_file(path, bid);
}

/* Every process of this architecture gets the same vdso image: ours. */
int build_id__vdso(u8 bid[BUILD_ID_SIZE])
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const GElf_Ehdr *eh = (const void *)base;
	Elf *elf;
	int len;
	size_t size;

	if (!base)
		return 0;
	/* the image ends with its section headers */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)base, size);
	if (!elf)
		return 0;
	len = build_id__from_elf(elf, bid);
	elf_end(elf);
	return len;
}

void build_id__hex(const u8 *bid, int len, char out[2 * BUILD_ID_SIZE + 1])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < len && i < BUILD_ID_SIZE; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * i] = '\0';
}

char *build_id_cache__dir(const char *dir)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char *out = NULL;

	if (dir && *dir)
		return strdup(dir);
	if (env && *env)
		return strdup(env);
	if (asprintf(&out, "%s/.debug", home && *home ? home : "/root") < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return out;
}
