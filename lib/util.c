/* Helpers that know nothing of perf: number, size and duration parsing,
 * whole reads and writes, the clock, /proc fields, prefaulted memory. */
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The decimal number s starts with (no sign, no blanks); *end after it. */
static int parse_leading(const char *s, unsigned long long *v, char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -ERANGE : 0;
}

int parse_u64(const char *s, u64 *val)
{
	unsigned long long v;
	char *end;
	int err = parse_leading(s, &v, &end);

	if (err)
		return err;
	if (*end)
		return -EINVAL;
	*val = v;
	return 0;
}

int parse_u64_range(const char *s, u64 min, u64 max, u64 *val)
{
	u64 v;
	int err = parse_u64(s, &v);

	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

int parse_duration(const char *s, u64 min_ns, u64 max_ns, u64 *ns)
{
	static const struct { const char *unit; u64 ns; } units[] = {
		{ "ms", 1000000ULL }, { "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
	};
	unsigned long long v;
	char *end;
	int err = parse_leading(s, &v, &end);

	if (err)
		return err;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v > max_ns / units[i].ns || v * units[i].ns < min_ns)
			return -ERANGE;
		*ns = v * units[i].ns;
		return 0;
	}
	return -EINVAL;
}

int parse_size(const char *s, u64 *bytes)
{
	unsigned long long v;
	char *end;
	u64 mult = 1;
	int err = parse_leading(s, &v, &end);

	if (err)
		return err;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'B': mult = 1; end++; break;
	case 'K': mult = 1ULL << 10; end++; break;
	case 'M': mult = 1ULL << 20; end++; break;
	case 'G': mult = 1ULL << 30; end++; break;
	default: return -EINVAL;
	}
	/* 4KB as well as 4K, but not 4BB */
	if (mult > 1 && (*end == 'B' || *end == 'b'))
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*bytes = v * mult;
	return 0;
}

u64 roundup_pow2(u64 x)
{
	u64 p = 1;

	if (x > (1ULL << 63))
		return 0;
	while (p < x)
		p <<= 1;
	return p;
}

char *read_fd(int fd, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *nbuf;
	int err;
	ssize_t r;

	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			nbuf = realloc(buf, cap * 2 + 1);
			if (!nbuf)
				goto fail;
			buf = nbuf;
			cap *= 2;
		}
		/* n <= max here: one byte past max tells a file longer */
		r = read(fd, buf + n, MIN(cap - n, max + 1 - n));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += r;
		if (n > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
}

u64 hash_salt(const void *seed)
{
	u64 salt;

	if (getrandom(&salt, sizeof(salt), GRND_NONBLOCK) != sizeof(salt))
		salt = ((uintptr_t)seed * 0xff51afd7ed558ccdULL ^ (u64)getpid() << 32) ^ now_ns();
	return salt;
}

int regular_file__open(int dirfd, const char *name, u64 *size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err;
	struct stat st;

	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (err) {
		close(fd);
		return err;
	}
	if (size)
		*size = st.st_size;
	return fd;
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = read_fd(fd, SIZE_MAX - 1, len);
	err = errno;
	close(fd);
	errno = err;
	return buf;
}

int write_all(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return writev_all(fd, &iov, 1);
}

int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	ssize_t w;

	for (; len; p += w, len -= w, off += w) {
		w = pwrite(fd, p, len, off);
		if (w <= 0 && !(w < 0 && errno == EINTR))
			return w < 0 ? -errno : -ENOSPC;	/* 0: a full disk */
		if (w < 0)
			w = 0;
	}
	return 0;
}

int writev_all(int fd, struct iovec *iov, int iovcnt)
{
	for (;;) {
		/* empty pieces first, or writev()'s 0 would read as a full disk */
		while (iovcnt > 0 && !iov->iov_len) {
			iov++;
			iovcnt--;
		}
		if (iovcnt <= 0)
			return 0;
		ssize_t w = writev(fd, iov, iovcnt);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		while (iovcnt > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
}

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The text after "KEY:" in a file of such lines (/proc/meminfo,
 * /proc/self/status), NULL when there is none; points into text. */
static const char *proc_field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *line = text; line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (!strncmp(line, key, n) && line[n] == ':')
			return line + n + 1;
	}
	return NULL;
}

u64 meminfo_kb(const char *key)
{
	char *mi = read_file("/proc/meminfo", NULL);
	const char *v = proc_field(mi, key);
	u64 kb = v ? strtoull(v, NULL, 10) : 0;

	free(mi);
	return kb;
}

int fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -errno;
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

u64 nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		u64 cur = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return cur;
	}
	return rl.rlim_cur;
}

int cap_effective(int cap)
{
	char *st = read_file("/proc/self/status", NULL);
	const char *v = proc_field(st, "CapEff");
	int has = v && cap >= 0 && cap < 64 && (strtoull(v, NULL, 16) >> cap & 1);

	free(st);
	return has;
}

int user_ns_is_initial(void)
{
	char *map = read_file("/proc/self/uid_map", NULL);
	unsigned long long inside, outside, count;
	/* the first user namespace maps every uid to itself */
	int initial = map && sscanf(map, "%llu %llu %llu", &inside, &outside, &count) == 3 &&
		      !inside && !outside && count == 4294967295ULL;

	free(map);
	return initial;
}

void *mmap_faulted(u64 bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}
