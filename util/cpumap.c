/* CPU and thread lists: parsed from the command line, read from sysfs
 * and /proc, shared by reference count. */
#include "util/cpumap.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

static struct cpu_map *cpu_map__alloc(int nr)
{
	struct cpu_map *m = calloc(1, sizeof(*m) + nr * sizeof(int));

	if (m) {
		m->refcnt = 1;
		m->nr = nr;
	}
	return m;
}

/* Parses a "0-3,5" list into a 0/1 array indexed by cpu; its length is
 * returned (highest cpu + 1), -EINVAL for bad syntax or -ENODEV for a cpu
 * number beyond max. */
static int cpu_list__parse(const char *s, char *set, int max)
{
	int hi = 0;

	while (*s) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		a = b = strtol(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			b = strtol(end + 1, &end, 10);
		}
		if (b < a)
			return -EINVAL;
		if (b >= max)
			return -ENODEV;
		for (long c = a; c <= b; c++)
			set[c] = 1;
		if (b + 1 > hi)
			hi = b + 1;
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -EINVAL;
	}
	return hi ? hi : -EINVAL;
}

#define CPU_LIMIT 4096

struct cpu_map *cpu_map__new(const char *list)
{
	char *online_str = read_file("/sys/devices/system/cpu/online", NULL);
	char online[CPU_LIMIT] = { 0 }, want[CPU_LIMIT] = { 0 };
	struct cpu_map *m;
	int n_online, n_want, nr = 0;

	if (!online_str)
		return NULL;
	online_str[strcspn(online_str, "\n")] = '\0';
	n_online = cpu_list__parse(online_str, online, CPU_LIMIT);
	free(online_str);
	if (n_online < 0) {
		errno = EINVAL;
		return NULL;
	}
	n_want = list ? cpu_list__parse(list, want, CPU_LIMIT) : n_online;
	if (n_want < 0) {
		errno = -n_want;
		return NULL;
	}
	if (!list)
		memcpy(want, online, sizeof(want));
	for (int c = 0; c < n_want; c++) {
		if (want[c] && !online[c]) {
			errno = ENODEV;
			return NULL;
		}
		nr += want[c];
	}
	m = cpu_map__alloc(nr);
	if (!m)
		return NULL;
	nr = 0;
	for (int c = 0; c < n_want; c++)
		if (want[c])
			m->map[nr++] = c;
	return m;
}

struct cpu_map *cpu_map__new_any(void)
{
	struct cpu_map *m = cpu_map__alloc(1);

	if (m)
		m->map[0] = -1;
	return m;
}

struct cpu_map *cpu_map__get(struct cpu_map *map)
{
	if (map)
		map->refcnt++;
	return map;
}

void cpu_map__put(struct cpu_map *map)
{
	if (map && --map->refcnt == 0)
		free(map);
}

int cpu__max_present(void)
{
	char *s = read_file("/sys/devices/system/cpu/possible", NULL);
	char set[CPU_LIMIT] = { 0 };
	int n;

	if (!s)
		return 1;
	s[strcspn(s, "\n")] = '\0';
	n = cpu_list__parse(s, set, CPU_LIMIT);
	free(s);
	return n > 0 ? n : 1;
}

static struct thread_map *thread_map__alloc(int nr)
{
	struct thread_map *m = calloc(1, sizeof(*m) + nr * sizeof(pid_t));

	if (m) {
		m->refcnt = 1;
		m->nr = nr;
	}
	return m;
}

struct thread_map *thread_map__new_pid(pid_t pid)
{
	struct thread_map *m = thread_map__alloc(1);

	if (m)
		m->map[0] = pid;
	return m;
}

static int thread_map__append(struct thread_map **mp, pid_t tid)
{
	struct thread_map *m = *mp;
	struct thread_map *n = realloc(m, sizeof(*m) + (m->nr + 1) * sizeof(pid_t));

	if (!n)
		return -ENOMEM;
	n->map[n->nr++] = tid;
	*mp = n;
	return 0;
}

static int thread_map__add_tasks(struct thread_map **mp, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (!err && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			err = thread_map__append(mp, atoi(de->d_name));
	closedir(d);
	return err;
}

/* A built map, or NULL with errno: err, or empty_err for an empty map. */
static struct thread_map *thread_map__result(struct thread_map *m, int err, int empty_err)
{
	if (!err && m->nr == 0)
		err = empty_err;
	if (err) {
		free(m);
		errno = -err;
		return NULL;
	}
	return m;
}

struct thread_map *thread_map__new_str(const char *list, int tids_only)
{
	struct thread_map *m = thread_map__alloc(0);
	char *copy = strdup(list), *tok, *save = NULL;
	int err = copy && m ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; !err && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		u64 id;
		char path[64];

		if (parse_u64(tok, &id) || id == 0 || id > INT32_MAX) {
			err = -EINVAL;
			break;
		}
		if (!tids_only) {
			err = thread_map__add_tasks(&m, id);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
		char *st = read_file(path, NULL);

		err = st ? thread_map__append(&m, id) : -ESRCH;
		free(st);
	}
	free(copy);
	return thread_map__result(m, err, -EINVAL);
}

struct thread_map *thread_map__new_uid(uid_t uid)
{
	struct thread_map *m = thread_map__alloc(0);
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int err = m && proc ? 0 : -errno;

	while (!err && (de = readdir(proc))) {
		struct stat st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		/* a process's /proc directory belongs to its effective uid */
		if (fstatat(dirfd(proc), de->d_name, &st, 0) || st.st_uid != uid)
			continue;
		err = thread_map__add_tasks(&m, atoi(de->d_name));
		if (err == -ESRCH)
			err = 0;	/* it exited meanwhile */
	}
	if (proc)
		closedir(proc);
	return thread_map__result(m, err, -ESRCH);
}

struct thread_map *thread_map__get(struct thread_map *map)
{
	if (map)
		map->refcnt++;
	return map;
}

void thread_map__put(struct thread_map *map)
{
	if (map && --map->refcnt == 0)
		free(map);
}

int cpu_map__has(const struct cpu_map *map, int cpu)
{
	for (int i = 0; map && i < map->nr; i++)
		if (map->map[i] == cpu)
			return 1;
	return 0;
}
