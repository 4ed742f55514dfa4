/* Reads the value of one sysfs attribute file, as a string or a number. */
#include "lib/sysfs.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int sysfs__read_str(const char *path, char *out, size_t size)
{
	size_t len;
	char *s = read_file(path, &len);
	int err = 0;

	if (!s)
		return -errno;
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (len < size) {
		memcpy(out, s, len);
		out[len] = '\0';
	} else {
		err = -ENAMETOOLONG;
	}
	free(s);
	return err;
}

int sysfs__read_u64(const char *path, int base, u64 *val)
{
	char s[64], *end;
	int err = sysfs__read_str(path, s, sizeof(s));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(s, &end, base);
	if (errno || end == s || *end)
		return errno ? -errno : -EINVAL;
	return 0;
}

int sysfs__read_strf(char *out, size_t size, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return sysfs__read_str(path, out, size);
}
