/* Build ids: the NT_GNU_BUILD_ID note of a file, the kernel, a module or
 * the vdso, and the build-id cache's directory. */
#ifndef PERF_BUILD_ID_H
#define PERF_BUILD_ID_H

#include <libelf.h>
#include "util/event.h"

/* Build ids (the NT_GNU_BUILD_ID note) and the build-id cache: the
 * directory (~/.debug, --buildid-dir, $PERF_BUILDID_DIR) where perf keeps
 * a copy of every binary a recording hit, named for its build id, so a
 * file can be read after the binaries changed or on another machine. */

/* The build id of the ELF file open at fd (its offset is not used), or of
 * the file at path: its length (1..20) with bid filled, 0 when it has
 * none, or -errno when it cannot be read. */
int build_id__from_fd(int fd, u8 bid[BUILD_ID_SIZE]);
/* The same for an ELF image libelf has open (its note sections). */
int build_id__from_elf(Elf *elf, u8 bid[BUILD_ID_SIZE]);
int build_id__from_path(const char *path, u8 bid[BUILD_ID_SIZE]);
/* The same for the binary a mapping names, opened as mapped_file__open()
 * does (no link followed, regular files only): what a recorder reads,
 * where a local user may own a directory on the path. Readers of a file
 * use build_id__from_path(): a path recorded elsewhere may run through a
 * link here. */
int build_id__from_mapped(const char *path, u8 bid[BUILD_ID_SIZE]);
/* The running kernel's (/sys/kernel/notes), a module's
 * (/sys/module/NAME/notes), and this process's vdso's: length or 0/-errno. */
int build_id__kernel(u8 bid[BUILD_ID_SIZE]);
int build_id__module(const char *name, u8 bid[BUILD_ID_SIZE]);
int build_id__vdso(u8 bid[BUILD_ID_SIZE]);
/* bid as lower-case hex, NUL-terminated, into out (2 * 20 + 1 bytes). */
void build_id__hex(const u8 *bid, int len, char out[2 * BUILD_ID_SIZE + 1]);

/* The cache directory: dir if given, else $PERF_BUILDID_DIR, else
 * $HOME/.debug. Malloc'd (the caller frees), NULL with errno set. */
char *build_id_cache__dir(const char *dir);

#endif
