/* Opening the binary a mapping names without letting whoever controls
 * the name choose what is opened. */
#ifndef PERF_MAPPED_FILE_H
#define PERF_MAPPED_FILE_H

#include "util/event.h"

/* What the kernel said it mapped (an MMAP2 record): the task and range
 * (its /proc/PID/map_files entry) and the file's device and inode. */
struct mapped_file_id {
	u32 pid;
	u64 start, len;		/* len 0: no range known */
	u32 maj, min;
	u64 ino;
	int has_ino;		/* 0: the record carried a build id instead */
};

/* The identity an MMAP (range only) or MMAP2 record gives its file. */
void mapped_file_id__from_record(const struct perf_event_header *rec, struct mapped_file_id *id);
/* Whether two identities can be the same file: 0 only where both have a
 * device and inode and these differ. */
int mapped_file_id__same(const struct mapped_file_id *a, const struct mapped_file_id *b);

/* A read-only fd on the regular file name, opened so that a local user
 * who owns a directory on the way cannot make it another file: no
 * symbolic link is followed in any component, nothing but a regular file
 * is opened for reading (a FIFO or a device put in its place never sees
 * an open: no blocking, no side effect), and with id the file must be
 * the very one mapped (its device and inode), taken from the task's
 * map_files while the mapping exists. Nothing on a filesystem
 * mapped_file__fs_refused() refuses is opened. The fd is O_CLOEXEC;
 * -ESTALE for a link, a non-regular file or another file, -EREMOTE for a
 * refused filesystem, else -errno. */
int mapped_file__open(const char *name, const struct mapped_file_id *id);
/* Whether files on a filesystem of type f_type (statfs) are never opened:
 * those where a local user's process answers the open and the reads
 * (FUSE), which could block the recorder for good. Network filesystems
 * (NFS, CIFS/SMB2, 9P) are mounted by root, their servers the
 * administrator's: their binaries keep their build ids. */
int mapped_file__fs_refused(long f_type);
/* Where openat2() is missing (before Linux 5.6): an O_PATH fd on the
 * absolute name, walked one component at a time with none followed as a
 * link; -ESTALE where a link stood in a directory's place. Exported for
 * its test. */
int mapped_file__path_fd_walk(const char *name);

#endif
