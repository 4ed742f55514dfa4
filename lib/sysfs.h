/* Reading sysfs attribute files: one value each, as a string or a number. */
#ifndef PERF_SYSFS_H
#define PERF_SYSFS_H

#include "lib/util.h"

/* One value of a sysfs attribute file, without its trailing newline:
 * 0, or -errno (-ENAMETOOLONG when it does not fit out[size]). */
int sysfs__read_str(const char *path, char *out, size_t size);
/* A decimal (or, with base 16, hex) number from a sysfs file: 0 or -errno. */
int sysfs__read_u64(const char *path, int base, u64 *val);
/* printf-style path, then sysfs__read_str(): for the per-CPU files. */
int sysfs__read_strf(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
