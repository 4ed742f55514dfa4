/*
 * LD_PRELOAD shim for the attr tests (tests/shell/record_attr.sh): the stock
 * perf has a PERF_TEST_ATTR hook built in, this perf has none, so this
 * interposes libc's syscall() and, after each perf_event_open that succeeds,
 * writes one file per event in the format the stock tests/attr.py reads: a
 * configparser file of one section named like the file, with the syscall's
 * arguments and the attr fields attr.py compares, in decimal.
 *
 * The file is event-TYPE-CONFIG-FD, so an event reopened on a reused fd
 * number overwrites its old file, as the stock's hook does.  ATTR_SHIM_DIR,
 * when set, is used instead of PERF_TEST_ATTR: run under the stock perf, the
 * shim then writes beside the stock's own hook rather than over it, and the
 * two can be compared.
 *
 * Nothing here may change what perf sees: the return value and errno are
 * the real syscall's, and a file that cannot be written is silently lost.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

typedef long (*syscall_fn)(long nr, ...);

static const char *attr_shim__dir(void)
{
	const char *dir = getenv("ATTR_SHIM_DIR");

	return dir && *dir ? dir : getenv("PERF_TEST_ATTR");
}

/* One key=value line; the value is any unsigned field widened, or a signed
 * one that fits in long long. */
#define KEY_U(f, key, v) fprintf(f, "%s=%llu\n", key, (unsigned long long)(v))
#define KEY_D(f, key, v) fprintf(f, "%s=%lld\n", key, (long long)(v))
#define ATTR(f, a, field) KEY_U(f, #field, (a)->field)

static void attr_shim__write_attr(FILE *f, const struct perf_event_attr *a)
{
	/* attr.py's Event.terms, in its order */
	ATTR(f, a, type);
	ATTR(f, a, size);
	ATTR(f, a, config);
	ATTR(f, a, sample_period);
	ATTR(f, a, sample_type);
	ATTR(f, a, read_format);
	ATTR(f, a, disabled);
	ATTR(f, a, inherit);
	ATTR(f, a, pinned);
	ATTR(f, a, exclusive);
	ATTR(f, a, exclude_user);
	ATTR(f, a, exclude_kernel);
	ATTR(f, a, exclude_hv);
	ATTR(f, a, exclude_idle);
	ATTR(f, a, mmap);
	ATTR(f, a, comm);
	ATTR(f, a, freq);
	ATTR(f, a, inherit_stat);
	ATTR(f, a, enable_on_exec);
	ATTR(f, a, task);
	ATTR(f, a, watermark);
	ATTR(f, a, precise_ip);
	ATTR(f, a, mmap_data);
	ATTR(f, a, sample_id_all);
	ATTR(f, a, exclude_host);
	ATTR(f, a, exclude_guest);
	ATTR(f, a, exclude_callchain_kernel);
	ATTR(f, a, exclude_callchain_user);
	/* not compared by attr.py, but the stock's hook writes them and they
	 * are the first thing to look at when the tracking events differ */
	ATTR(f, a, mmap2);
	ATTR(f, a, comm_exec);
	ATTR(f, a, context_switch);
	ATTR(f, a, write_backward);
	ATTR(f, a, namespaces);
	ATTR(f, a, use_clockid);
	ATTR(f, a, wakeup_events);
	ATTR(f, a, bp_type);
	ATTR(f, a, config1);
	ATTR(f, a, config2);
	ATTR(f, a, branch_sample_type);
	ATTR(f, a, sample_regs_user);
	ATTR(f, a, sample_stack_user);
}

static void attr_shim__store(const struct perf_event_attr *a, int pid, int cpu,
			     int group_fd, unsigned long flags, int fd)
{
	const char *dir = attr_shim__dir();
	char path[PATH_MAX];
	FILE *f;
	int n;

	if (!dir || !a)
		return;
	n = snprintf(path, sizeof(path), "%s/event-%u-%llu-%d", dir, a->type,
		     (unsigned long long)a->config, fd);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "[event-%u-%llu-%d]\n", a->type, (unsigned long long)a->config, fd);
	/* the syscall's own arguments: attr.py pairs fd with group_fd for groups */
	KEY_D(f, "fd", fd);
	KEY_D(f, "group_fd", group_fd);
	KEY_D(f, "cpu", cpu);
	KEY_D(f, "pid", pid);
	KEY_U(f, "flags", flags);
	attr_shim__write_attr(f, a);
	fclose(f);
}

long syscall(long nr, ...)
{
	syscall_fn next = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	long arg[6], ret;
	va_list ap;
	int err;

	/* as libc's own syscall(): six register-sized arguments, whichever
	 * of them this call really has */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		arg[i] = va_arg(ap, long);
	va_end(ap);

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	ret = next(nr, arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
	if (nr != __NR_perf_event_open || ret < 0)
		return ret;

	err = errno;
	/* pid, cpu and group_fd are ints: the upper halves of their registers
	 * are not theirs */
	attr_shim__store((const struct perf_event_attr *)arg[0], (int)arg[1], (int)arg[2],
			 (int)arg[3], (unsigned long)arg[4], (int)ret);
	errno = err;
	return ret;
}
