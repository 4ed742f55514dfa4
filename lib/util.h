/* Small helpers that know nothing of perf: integer types, MIN/MAX,
 * parsing, whole reads and writes, the clock. */
#ifndef PERF_UTIL_H
#define PERF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef int64_t s64;
typedef int32_t s32;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((u64)(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define pr_err(...) fprintf(stderr, __VA_ARGS__)

/* Parses "123", "4K", "16M", "1G", "512B", "4KB" into bytes; 0, -EINVAL for
 * junk, or -ERANGE if the bytes do not fit a u64. */
int parse_size(const char *s, u64 *bytes);
/* Parses a plain unsigned decimal (no sign, no junk); 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, u64 *val);
/* parse_u64() of a value that must lie in [min, max]: -ERANGE outside. */
int parse_u64_range(const char *s, u64 min, u64 max, u64 *val);
/* Parses a time with a unit, "500ms", "30s", "5m", "1h", "2d", into
 * nanoseconds; 0, -EINVAL for junk or no unit, -ERANGE outside
 * [min_ns, max_ns]. */
int parse_duration(const char *s, u64 min_ns, u64 max_ns, u64 *ns);
/* The largest sample period and frequency the kernel can take: it refuses a
 * period with bit 63 set, and caps frequencies with an int sysctl
 * (perf_event_max_sample_rate). */
#define SAMPLE_PERIOD_MAX ((u64)INT64_MAX)
#define SAMPLE_FREQ_MAX ((u64)INT32_MAX)
u64 roundup_pow2(u64 x);
static inline int is_pow2(u64 x) { return x && !(x & (x - 1)); }

/* A random salt for a hash table whose keys come from a file or a task
 * (crafted input must not pile into one chain): getrandom's, else made
 * from seed (the table's address), the pid and the time. */
u64 hash_salt(const void *seed);

/* Reads a whole small file into a malloc'd NUL-terminated buffer the caller
 * frees; NULL with errno set. *len (if given) gets the byte count. */
char *read_file(const char *path, size_t *len);
/* The same from fd's position to its end, at most max bytes (a longer
 * file: NULL, errno EFBIG, max bytes read); fd stays open. */
char *read_fd(int fd, size_t max, size_t *len);
/* NAME in DIRFD (AT_FDCWD: a path) for reading, where a local user may
 * have put anything: a regular file reached through no link, opened
 * without blocking (a FIFO there would hold the reader). The fd, its
 * size in *size (if given), or -errno (-EINVAL: not a regular file). */
int regular_file__open(int dirfd, const char *name, u64 *size);

/* write()/writev() until everything is written: 0 or -errno (-ENOSPC etc). */
int write_all(int fd, const void *buf, size_t len);
int writev_all(int fd, struct iovec *iov, int iovcnt);
int pwrite_all(int fd, const void *buf, size_t len, off_t off);

/* Anonymous memory written once now, so that no later use pays a page
 * fault (MAP_POPULATE alone leaves write faults behind, and in a VM a
 * first touch costs several microseconds a page; malloc() and memset()
 * may be compiled into a calloc() that touches nothing); huge pages where
 * the system allows them. NULL with errno set; munmap() frees it. */
void *mmap_faulted(u64 bytes);

/* Nanoseconds of CLOCK_MONOTONIC (perf's default sample clock). */
u64 now_ns(void);
/* A field of /proc/meminfo ("MemTotal", "MemAvailable") in KiB; 0 when
 * unknown. */
u64 meminfo_kb(const char *key);
/* The file descriptors this process has open (those of /proc/self/fd,
 * less the one reading it), or -errno. */
int fds_open(void);
/* Raises the soft RLIMIT_NOFILE to the hard one; the soft limit now (the
 * hard one where it could not be raised), or 0 when unknown. */
u64 nofile_raise(void);
/* Whether this process has capability cap (CAP_IPC_LOCK, ...) in its
 * effective set; 0 when /proc says nothing. */
int cap_effective(int cap);
/* Whether this process is in the first user namespace, where capabilities
 * hold for the whole machine; 0 in a container's own, or when unknown. */
int user_ns_is_initial(void);

#endif
