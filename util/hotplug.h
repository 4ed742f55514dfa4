/* CPU hotplug as the kernel announces it: the uevents of the cpu
 * subsystem, read from a netlink socket, and which CPUs went offline and
 * came back since someone last looked. */
#ifndef PERF_HOTPLUG_H
#define PERF_HOTPLUG_H

#include <stddef.h>

/* CPUs numbered from this on are not followed (cpu_map__new()'s limit). */
#define HOTPLUG_CPU_LIMIT 4096

/* What a uevent says of a CPU. */
enum cpu_uevent {
	CPU_UEVENT_OTHER,	/* not a CPU's online or offline, or malformed */
	CPU_UEVENT_OFFLINE,
	CPU_UEVENT_ONLINE,
};

/* What cpu_hotplug__take() reports of a CPU, as bits. */
enum {
	HOTPLUG_WENT = 1,	/* it went offline */
	HOTPLUG_BACK = 2,	/* it came online after that (the last word) */
};

/* The watch: a socket on the kernel's uevents and, per CPU, what they
 * said since the last cpu_hotplug__take() of it. Zeroed, it is closed
 * (fd 0 is taken as not open only through cpu_hotplug__init()). */
struct cpu_hotplug {
	int fd;			/* NETLINK_KOBJECT_UEVENT socket, or -1 */
	int lost;		/* uevents dropped (the socket overflowed): any CPU may have gone */
	int pending;		/* something was noted, or lost, since the flag was cleared */
	unsigned char state[HOTPLUG_CPU_LIMIT];	/* HOTPLUG_* bits */
};

/* Parses one uevent message, "ACTION@DEVPATH" then "KEY=VALUE" strings,
 * each NUL-terminated, of len bytes: an online or offline of
 * /devices/system/cpu/cpuN (SUBSYSTEM=cpu) sets *cpu to N. Anything else,
 * malformed or beyond HOTPLUG_CPU_LIMIT included, is CPU_UEVENT_OTHER. */
enum cpu_uevent cpu_uevent__parse(const char *msg, size_t len, int *cpu);

/* Not open, nothing noted. */
void cpu_hotplug__init(struct cpu_hotplug *h);
/* Opens the socket, non-blocking. 0 or -errno (then fd stays -1). */
int cpu_hotplug__open(struct cpu_hotplug *h);
void cpu_hotplug__close(struct cpu_hotplug *h);
/* Notes one uevent of cpu: an offline sets HOTPLUG_WENT (and clears
 * HOTPLUG_BACK), an online sets HOTPLUG_BACK. */
void cpu_hotplug__note(struct cpu_hotplug *h, enum cpu_uevent ev, int cpu);
/* Reads every queued uevent and notes those of CPUs. The number of CPU
 * uevents read, or -errno; an overflow of the socket sets lost (some
 * uevents are gone, any CPU may have gone and come back) and goes on. */
int cpu_hotplug__read(struct cpu_hotplug *h);
/* What was noted of cpu (HOTPLUG_* bits), forgotten from now on. */
int cpu_hotplug__take(struct cpu_hotplug *h, int cpu);

#endif
