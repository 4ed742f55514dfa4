/* The records that describe what exists before recording starts: the
 * kernel's map, and every task's COMM, FORK, MMAP2 (with build ids) and
 * NAMESPACES from /proc. */
#include "record/synthetic.h"
#include "buildid/build-id.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct build_id_entry {
	char *path;
	int len;
	u8 bid[BUILD_ID_SIZE];
};

struct build_id_cache {
	struct build_id_entry *e;
	int nr, cap;
};

struct build_id_cache *build_id_cache__new(void)
{
	return calloc(1, sizeof(struct build_id_cache));
}

void build_id_cache__delete(struct build_id_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr; i++)
		free(c->e[i].path);
	free(c->e);
	free(c);
}

int build_id_cache__get(struct build_id_cache *c, const char *path, u8 bid[BUILD_ID_SIZE])
{
	struct build_id_entry *e;

	for (int i = 0; i < c->nr; i++) {
		if (!strcmp(c->e[i].path, path)) {
			memcpy(bid, c->e[i].bid, BUILD_ID_SIZE);
			return c->e[i].len;
		}
	}
	if (c->nr == c->cap) {
		int cap = c->cap ? c->cap * 2 : 64;
		struct build_id_entry *n = realloc(c->e, cap * sizeof(*n));

		if (!n)
			return 0;
		c->e = n;
		c->cap = cap;
	}
	e = &c->e[c->nr];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return 0;
	e->len = MAX(build_id__from_mapped(path, e->bid), 0);
	c->nr++;
	memcpy(bid, e->bid, BUILD_ID_SIZE);
	return e->len;
}

/* Ends the current line with a NUL (sscanf would otherwise strlen() the
 * whole rest of kallsyms for every line) and returns the next one. */
static char *next_line(char *line)
{
	char *nl = strchr(line, '\n');

	if (!nl)
		return NULL;
	*nl = '\0';
	return nl + 1;
}

static void put_name(struct buf *b, const char *s)
{
	buf__str0(b, s);
}

int synthesize__kernel_mmap(struct buf *out, u64 sample_type)
{
	char *ks = read_file("/proc/kallsyms", NULL), *line, *next;
	u64 text = 0, etext = 0, last = 0;
	struct sample_id sid = { .pid = -1, .tid = 0 };
	size_t at;

	if (!ks)
		return -errno;
	for (line = ks; line && *line; line = next) {
		unsigned long long addr;
		char type, name[128];

		next = next_line(line);
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = addr;
		else if (!strcmp(name, "_etext"))
			etext = addr;
		if (addr > last && (type == 'T' || type == 't'))
			last = addr;
	}
	free(ks);
	if (!text)
		return -ENOENT;	/* kptr_restrict hides addresses */
	if (etext <= text)
		etext = last > text ? last : text + 1;
	at = event__begin(out, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	buf__u32(out, -1);
	buf__u32(out, 0);
	buf__u64(out, text);
	buf__u64(out, etext - text);
	buf__u64(out, text);
	put_name(out, "[kernel.kallsyms]_text");
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

int synthesize__comm(struct buf *out, pid_t pid, pid_t tid, const char *comm, u64 sample_type)
{
	struct sample_id sid = { .pid = pid, .tid = tid };
	char name[16] = { 0 };
	size_t at = event__begin(out, PERF_RECORD_COMM, 0);

	snprintf(name, sizeof(name), "%s", comm);
	buf__u32(out, pid);
	buf__u32(out, tid);
	put_name(out, name);
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

int synthesize__namespaces(struct buf *out, pid_t pid, pid_t tid, u64 sample_type)
{
	/* in the order of the kernel's NET_NS_INDEX ... CGROUP_NS_INDEX */
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	struct sample_id sid = { .pid = pid, .tid = tid };
	size_t at = event__begin(out, PERF_RECORD_NAMESPACES, 0);

	buf__u32(out, pid);
	buf__u32(out, tid);
	buf__u64(out, ARRAY_SIZE(names));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char path[96];
		struct stat st;

		/* one the kernel lacks (or a task gone meanwhile) is 0, 0, as
		 * the kernel itself reports a namespace it cannot name */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/%s", pid, tid, names[i]);
		if (stat(path, &st))
			memset(&st, 0, sizeof(st));
		buf__u64(out, st.st_dev);
		buf__u64(out, st.st_ino);
	}
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

static int synthesize__fork(struct buf *out, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid,
			    u64 sample_type)
{
	struct sample_id sid = { .pid = pid, .tid = tid };
	size_t at = event__begin(out, PERF_RECORD_FORK, 0);

	buf__u32(out, pid);
	buf__u32(out, ppid);
	buf__u32(out, tid);
	buf__u32(out, ptid);
	buf__u64(out, 0);
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

/* One executable line of /proc/PID/maps as an MMAP2 record. */
static int synthesize__map_line(struct buf *out, pid_t pid, const char *line, u64 sample_type,
				struct build_id_cache *c)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8], path[PATH_MAX] = "";
	struct sample_id sid = { .pid = pid, .tid = pid };
	u8 bid[BUILD_ID_SIZE] = { 0 };
	int n, bid_len = 0;
	u32 prot = 0;
	size_t at;

	n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, path);
	if (n < 7 || perms[2] != 'x')
		return 0;
	if (n == 7 || !path[0])
		strcpy(path, "//anon");
	/* "(deleted)" files and pseudo maps keep their names, as perf does */
	if (c && path[0] == '/' && path[1] != '/')
		bid_len = build_id_cache__get(c, path, bid);
	prot |= perms[0] == 'r' ? PROT_READ : 0;
	prot |= perms[1] == 'w' ? PROT_WRITE : 0;
	prot |= PROT_EXEC;
	at = event__begin(out, PERF_RECORD_MMAP2,
			  PERF_RECORD_MISC_USER | (bid_len ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	buf__u32(out, pid);
	buf__u32(out, pid);
	buf__u64(out, start);
	buf__u64(out, end - start);
	buf__u64(out, pgoff);
	if (bid_len) {
		buf__u8(out, bid_len);
		buf__zero(out, 3);
		buf__add(out, bid, BUILD_ID_SIZE);
	} else {
		buf__u32(out, maj);
		buf__u32(out, min);
		buf__u64(out, ino);
		buf__u64(out, 0);
	}
	buf__u32(out, prot);
	buf__u32(out, perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE);
	put_name(out, path);
	return event__end(out, at, sample_type, &sid) ? 0 : -ENOMEM;
}

static int read_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	s = read_file(path, NULL);
	if (!s)
		return -ESRCH;
	s[strcspn(s, "\n")] = '\0';
	snprintf(comm, 16, "%s", s);
	free(s);
	return 0;
}

/* Reads Tgid and PPid from /proc/PID/status. */
static int read_ids(pid_t pid, pid_t *tgid, pid_t *ppid)
{
	char path[64], *s, *p;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	s = read_file(path, NULL);
	if (!s)
		return -ESRCH;
	p = strstr(s, "\nTgid:");
	*tgid = p ? atoi(p + 6) : pid;
	p = strstr(s, "\nPPid:");
	*ppid = p ? atoi(p + 6) : 0;
	free(s);
	return 0;
}

int synthesize__process(struct buf *out, pid_t pid, u64 sample_type, struct build_id_cache *c)
{
	char path[64], comm[16], *maps, *line, *next;
	struct dirent *de;
	pid_t tgid, ppid;
	DIR *d;
	int err;

	if (read_ids(pid, &tgid, &ppid) || tgid != pid || read_comm(pid, pid, comm))
		return -ESRCH;
	err = synthesize__fork(out, pid, ppid, pid, ppid, sample_type);
	if (!err)
		err = synthesize__comm(out, pid, pid, comm, sample_type);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = err ? NULL : read_file(path, NULL);
	for (line = maps; !err && line && *line; line = next) {
		next = next_line(line);
		err = synthesize__map_line(out, pid, line, sample_type, c);
	}
	free(maps);

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = err ? NULL : opendir(path);
	while (d && !err && (de = readdir(d))) {
		pid_t tid = atoi(de->d_name);

		if (tid <= 0 || tid == pid || read_comm(pid, tid, comm))
			continue;
		err = synthesize__fork(out, pid, pid, tid, pid, sample_type);
		if (!err)
			err = synthesize__comm(out, pid, tid, comm, sample_type);
	}
	if (d)
		closedir(d);
	return err;
}

int synthesize__all(struct buf *out, u64 sample_type, struct build_id_cache *c)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		err = synthesize__process(out, atoi(de->d_name), sample_type, c);
		if (err == -ESRCH)
			err = 0;	/* exited while we looked */
	}
	closedir(d);
	return err;
}

/* The threads of process pid, each a COMM; their count, or -errno. */
static int synthesize__names_of(struct buf *out, pid_t pid, u64 sample_type)
{
	char path[64], comm[16];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;	/* gone */
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);

		if (tid <= 0 || read_comm(pid, tid, comm))
			continue;	/* not a task, or gone meanwhile */
		if (synthesize__comm(out, pid, tid, comm, sample_type)) {
			closedir(d);
			return -ENOMEM;
		}
		n++;
	}
	closedir(d);
	return n;
}

/* A signal that ends the recorder waits, blocked, for its loop: a scan
 * of a machine's every thread must not keep the loop from it. */
static int synthesize__stop_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGHUP) == 1);
}

int synthesize__names(struct buf *out, u64 sample_type)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0, got = 0;

	if (!d)
		return -errno;
	while (got >= 0 && !synthesize__stop_pending() && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		got = synthesize__names_of(out, atoi(de->d_name), sample_type);
		n += got > 0 ? got : 0;
	}
	closedir(d);
	return got < 0 ? got : n;
}
