/* CPU hotplug as the kernel announces it: a netlink socket on the
 * kernel's uevents, of which only those of the cpu subsystem count. A
 * uevent is queued for every online and offline, so a CPU that went and
 * came back between two reads is seen, which a look at
 * /sys/devices/system/cpu/online would miss. */
#include "util/hotplug.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's multicast group of uevents (udev's own is 2). */
#define UEVENT_GROUP_KERNEL 1
/* One uevent is at most 2048 bytes (UEVENT_BUFFER_SIZE) plus its header. */
#define UEVENT_MSG_MAX 8192
/* Room for a burst, as a suspend and resume of every CPU makes. */
#define UEVENT_RCVBUF (1 << 20)

/* The value of "KEY=" in a message's strings, or NULL. */
static const char *uevent__value(const char *msg, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (size_t off = 0; off < len;) {
		const char *s = msg + off;
		const char *nul = memchr(s, '\0', len - off);

		if (!nul)
			return NULL;	/* unterminated: not the kernel's */
		if ((size_t)(nul - s) > klen && !memcmp(s, key, klen) && s[klen] == '=')
			return s + klen + 1;
		off += nul - s + 1;
	}
	return NULL;
}

/* N of "/devices/system/cpu/cpuN", or -1. */
static int uevent__cpu_of(const char *devpath)
{
	static const char prefix[] = "/devices/system/cpu/cpu";
	const char *p = devpath + sizeof(prefix) - 1;
	long n = 0;

	if (strncmp(devpath, prefix, sizeof(prefix) - 1) || !*p || (*p == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
		if (n >= HOTPLUG_CPU_LIMIT)
			return -1;
	}
	return (int)n;
}

enum cpu_uevent cpu_uevent__parse(const char *msg, size_t len, int *cpu)
{
	const char *action, *devpath, *subsystem;
	enum cpu_uevent ev;
	int n;

	/* the kernel's messages start with "ACTION@DEVPATH" (libudev's
	 * with "libudev"), and every string ends with a NUL */
	if (!len || msg[len - 1] != '\0' || !memchr(msg, '@', strnlen(msg, len)))
		return CPU_UEVENT_OTHER;
	action = uevent__value(msg, len, "ACTION");
	devpath = uevent__value(msg, len, "DEVPATH");
	subsystem = uevent__value(msg, len, "SUBSYSTEM");
	if (!action || !devpath || !subsystem || strcmp(subsystem, "cpu"))
		return CPU_UEVENT_OTHER;
	n = uevent__cpu_of(devpath);
	if (n < 0)
		return CPU_UEVENT_OTHER;
	if (!strcmp(action, "online"))
		ev = CPU_UEVENT_ONLINE;
	else if (!strcmp(action, "offline"))
		ev = CPU_UEVENT_OFFLINE;
	else
		return CPU_UEVENT_OTHER;
	*cpu = n;
	return ev;
}

void cpu_hotplug__init(struct cpu_hotplug *h)
{
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

int cpu_hotplug__open(struct cpu_hotplug *h)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_GROUP_KERNEL };
	int size = UEVENT_RCVBUF, err;

	h->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (h->fd < 0)
		return -errno;
	/* FORCE passes rmem_max where we may (root); else what it allows */
	if (setsockopt(h->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(h->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(h->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		cpu_hotplug__close(h);
		return err;
	}
	return 0;
}

void cpu_hotplug__close(struct cpu_hotplug *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

void cpu_hotplug__note(struct cpu_hotplug *h, enum cpu_uevent ev, int cpu)
{
	if (cpu < 0 || cpu >= HOTPLUG_CPU_LIMIT)
		return;
	if (ev == CPU_UEVENT_OFFLINE)
		h->state[cpu] = HOTPLUG_WENT;
	else if (ev == CPU_UEVENT_ONLINE)
		h->state[cpu] |= HOTPLUG_BACK;
	h->pending = 1;
}

int cpu_hotplug__read(struct cpu_hotplug *h)
{
	char *msg = malloc(UEVENT_MSG_MAX);
	int nr = 0, err = 0;

	if (!msg)
		return -ENOMEM;
	while (h->fd >= 0) {
		struct sockaddr_nl from = { 0 };
		struct iovec iov = { msg, UEVENT_MSG_MAX };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
				     .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(h->fd, &mh, 0);
		enum cpu_uevent ev;
		int cpu;

		if (n < 0 && errno == ENOBUFS) {
			h->lost = h->pending = 1;
			continue;
		}
		if (n < 0) {
			err = errno == EAGAIN ? 0 : -errno;
			break;
		}
		/* only the kernel's, whole */
		if (from.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue;
		ev = cpu_uevent__parse(msg, n, &cpu);
		if (ev != CPU_UEVENT_OTHER) {
			cpu_hotplug__note(h, ev, cpu);
			nr++;
		}
	}
	free(msg);
	return err ? err : nr;
}

int cpu_hotplug__take(struct cpu_hotplug *h, int cpu)
{
	int st;

	if (cpu < 0 || cpu >= HOTPLUG_CPU_LIMIT)
		return 0;
	st = h->state[cpu];
	h->state[cpu] = 0;
	return st;
}
