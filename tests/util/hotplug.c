/* CPU hotplug (util/hotplug.c, evlist__revive_cpu()): the uevents that
 * say a CPU went or came back, what is noted of them, and a CPU's events
 * opened anew in the rings they had, twins included. */
#include "tests/tests.h"
#include "util/cpumap.h"
#include "util/evlist.h"
#include "util/hotplug.h"
#include "util/parse-events.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* a message with its last NUL */
#define PARSE(s) cpu_uevent__parse(s, sizeof(s), &cpu)

/* Messages that say nothing of a CPU going or coming back. */
#define OTHER(s, what) { s, sizeof(s), what }
static const struct {
	const char *msg;
	size_t len;
	const char *what;
} others[] = {
	/* another subsystem, another action, a path that is not a CPU's */
	OTHER("online@/devices/system/memory/memory1\0ACTION=online\0"
	      "DEVPATH=/devices/system/memory/memory1\0SUBSYSTEM=memory", "memory"),
	OTHER("add@/devices/system/cpu/cpu1\0ACTION=add\0"
	      "DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu", "add"),
	OTHER("change@/devices/system/cpu/cpufreq\0ACTION=online\0"
	      "DEVPATH=/devices/system/cpu/cpufreq\0SUBSYSTEM=cpu", "cpufreq"),
	/* malformed: numbers, keys missing, no '@' (libudev's), no last NUL */
	OTHER("online@x\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu1x\0SUBSYSTEM=cpu", "1x"),
	OTHER("online@x\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu01\0SUBSYSTEM=cpu", "01"),
	OTHER("online@x\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu99999999999\0"
	      "SUBSYSTEM=cpu", "a CPU beyond the limit"),
	OTHER("online@x\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu\0SUBSYSTEM=cpu", "no N"),
	OTHER("online@x\0ACTION=online\0SUBSYSTEM=cpu", "no DEVPATH"),
	OTHER("libudev\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu", "udev's"),
	{ "online@x\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu", 60,
	  "no last NUL" },
	{ "", 0, "empty" },
};

static int test_parse(struct test_ctx *ctx)
{
	int cpu = -1;

	(void)ctx;
	TEST_ASSERT(PARSE("online@/devices/system/cpu/cpu1\0ACTION=online\0"
		    "DEVPATH=/devices/system/cpu/cpu1\0SUBSYSTEM=cpu\0SEQNUM=7") ==
		    CPU_UEVENT_ONLINE && cpu == 1, "online, cpu %d", cpu);
	TEST_ASSERT(PARSE("offline@/devices/system/cpu/cpu12\0ACTION=offline\0"
		    "DEVPATH=/devices/system/cpu/cpu12\0SUBSYSTEM=cpu") ==
		    CPU_UEVENT_OFFLINE && cpu == 12, "offline, cpu %d", cpu);
	cpu = -1;
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		TEST_ASSERT(cpu_uevent__parse(others[i].msg, others[i].len, &cpu) ==
			    CPU_UEVENT_OTHER, "%s", others[i].what);
	TEST_ASSERT(cpu == -1, "cpu set by a refused message: %d", cpu);
	return TEST_OK;
}

/* Offline then online is a CPU back; a take forgets; an offline after an
 * online is a CPU gone. */
static int test_note(struct test_ctx *ctx)
{
	struct cpu_hotplug h;

	(void)ctx;
	cpu_hotplug__init(&h);
	TEST_ASSERT(h.fd == -1 && !h.pending, "closed, nothing noted");
	cpu_hotplug__note(&h, CPU_UEVENT_OFFLINE, 1);
	cpu_hotplug__note(&h, CPU_UEVENT_ONLINE, 1);
	cpu_hotplug__note(&h, CPU_UEVENT_OFFLINE, 2);
	cpu_hotplug__note(&h, CPU_UEVENT_OFFLINE, 3);
	cpu_hotplug__note(&h, CPU_UEVENT_ONLINE, 3);
	cpu_hotplug__note(&h, CPU_UEVENT_OFFLINE, 3);
	cpu_hotplug__note(&h, CPU_UEVENT_ONLINE, HOTPLUG_CPU_LIMIT);
	TEST_ASSERT(h.pending, "pending");
	TEST_ASSERT(cpu_hotplug__take(&h, 1) == (HOTPLUG_WENT | HOTPLUG_BACK), "1 back");
	TEST_ASSERT(cpu_hotplug__take(&h, 1) == 0, "1 forgotten");
	TEST_ASSERT(cpu_hotplug__take(&h, 2) == HOTPLUG_WENT, "2 gone");
	TEST_ASSERT(cpu_hotplug__take(&h, 3) == HOTPLUG_WENT, "3 gone again");
	TEST_ASSERT(cpu_hotplug__take(&h, 0) == 0 && cpu_hotplug__take(&h, -1) == 0 &&
		    cpu_hotplug__take(&h, HOTPLUG_CPU_LIMIT) == 0, "the others");
	return TEST_OK;
}

/* Bytes a backward ring took since head was before. */
static u64 ring_took(const struct mmap *m, u64 *before)
{
	u64 now = mmap__read_head(m), took = *before - now;

	*before = now;
	return took;
}

static void prctls(int n)
{
	for (int i = 0; i < n; i++)
		prctl(PR_SET_NAME, "hotplug-test");
}

/* sys_enter_prctl of this thread on CPU 0, backward with twins, as the
 * flight recorder opens a tracepoint of whole CPUs; enabled. */
static struct evlist *open_prctl(char *err, size_t errsz, int *ret)
{
	struct evlist *l = evlist__new();
	struct cpu_map *cpus = cpu_map__new("0");
	struct thread_map *threads = thread_map__new_pid(-1);
	char filter[64];

	*ret = -ENOMEM;
	if (l && cpus && threads) {
		evlist__set_maps(l, cpus, threads);
		*ret = parse_events(l, "syscalls:sys_enter_prctl", err, errsz) ? -EINVAL : 0;
	}
	cpu_map__put(cpus);
	thread_map__put(threads);
	if (!*ret) {
		struct evsel *e = l->entries[0];

		e->attr.write_backward = 1;
		e->attr.disabled = 1;
		e->attr.sample_period = 1;
		e->attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		snprintf(filter, sizeof(filter), "common_pid == %d", gettid());
		*ret = evsel__append_filter(e, filter);
	}
	if (!*ret)
		*ret = evlist__open(l, err, errsz, -1);
	if (!*ret)
		*ret = evlist__open_twins(l, err, errsz);
	if (!*ret)
		*ret = evlist__mmap(l, 4096, 64 << 10, err, errsz);
	if (!*ret && !evlist__twinned(l))
		*ret = -ENOMEM;
	if (!*ret)
		*ret = evlist__enable(l);
	if (*ret) {
		evlist__delete(l);
		return NULL;
	}
	return l;
}

/* evlist__revive_cpu() on a CPU that never went (as after lost uevents):
 * every fd replaced, the rings and their fds kept, old and new ids
 * listed and hashed, and each hit in the ring once; then a twin switch
 * goes to the new events of the other set. */
static int revive_checks(struct evlist *l, struct test_ctx *ctx)
{
	struct evsel *e = l->entries[0];
	int ring_fd = l->bwd[0].fd, slot0 = *evsel__slot_fd(e, 0, 0, 0);
	u64 old_id = *evsel__slot_id(e, 0, 0, 0), nr_ids = evsel__nr_ids(e);
	u64 head = mmap__read_head(&l->bwd[0]), twin_head = mmap__read_head(&l->bwd_twin[0]);
	u64 size;
	char err[256] = "";

	prctls(10);
	size = ring_took(&l->bwd[0], &head) / 10;
	TEST_ASSERT(size >= 16 && size % 8 == 0, "a hit's record: %llu bytes",
		    (unsigned long long)size);
	TEST_ASSERT(!evlist__revive_cpu(l, 0, err, sizeof(err)), "revive: %s", err);
	TEST_LOG(ctx, "  ring fd %d kept; slot 0: fd %d -> %d\n", ring_fd, slot0,
		 *evsel__slot_fd(e, 0, 0, 0));
	TEST_ASSERT(l->bwd[0].fd == ring_fd && l->bwd[0].own_fd, "the ring keeps its fd");
	TEST_ASSERT(*evsel__slot_id(e, 0, 0, 0) != old_id, "a new id");
	TEST_ASSERT(e->nr_gone_ids == TWIN_SLOTS && evsel__nr_ids(e) == nr_ids + TWIN_SLOTS,
		    "ids: %d gone, %llu in all", e->nr_gone_ids,
		    (unsigned long long)evsel__nr_ids(e));
	TEST_ASSERT(evlist__id2evsel(l, old_id) == e &&
		    evlist__id2evsel(l, *evsel__slot_id(e, 0, 0, 0)) == e, "ids hashed");
	prctls(10);
	TEST_ASSERT(ring_took(&l->bwd[0], &head) == 10 * size, "each hit once, in the same ring");
	TEST_ASSERT(ring_took(&l->bwd_twin[0], &twin_head) == 0, "nothing in the twin ring");
	TEST_ASSERT(evlist__switch_twins(l) == 0, "switch");
	prctls(10);
	TEST_ASSERT(ring_took(&l->bwd_twin[0], &twin_head) == 10 * size &&
		    ring_took(&l->bwd[0], &head) == 0, "after the switch, the twin ring only");
	TEST_ASSERT(!evlist__reopen_twins(l), "set 0 opened anew");
	return TEST_OK;
}

static int test_revive(struct test_ctx *ctx)
{
	cpu_set_t was, cpu0;
	struct evlist *l;
	char err[256] = "";
	int ret;

	if (sched_getaffinity(0, sizeof(was), &was))
		TEST_SKIP_BECAUSE(ctx, "sched_getaffinity: %s", strerror(errno));
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		TEST_SKIP_BECAUSE(ctx, "cannot run on cpu 0: %s", strerror(errno));
	l = open_prctl(err, sizeof(err), &ret);
	if (!l) {
		sched_setaffinity(0, sizeof(was), &was);
		if (ret == -EACCES || ret == -EPERM || ret == -ENOENT)
			TEST_SKIP_BECAUSE(ctx, "sys_enter_prctl of a whole CPU: %.160s", err);
		TEST_ASSERT(0, "open: %s (%s)", err, strerror(-ret));
	}
	ret = revive_checks(l, ctx);
	evlist__delete(l);
	sched_setaffinity(0, sizeof(was), &was);
	return ret;
}

TEST_SUITE(suite_util_hotplug, "util/hotplug",
	   "CPU hotplug: cpu uevents parsed, what is noted of them, a CPU's events and twins "
	   "opened anew in the rings they had",
	   test_parse, test_note, test_revive);
