/* CPU hotplug in a recording: the kernel drops the events of a CPU that
 * goes offline, and nothing revives them when it comes back, so the
 * session opens them anew, in the rings the CPU had: a flight
 * recorder's rings keep what they held before, and the file's attrs
 * list the new ids beside the old. */
#include "record/hotplug.h"
#include "buildid/dso-hits.h"
#include "record/record.h"
#include "record/off-cpu.h"
#include "util/cpumap.h"
#include "util/evlist.h"

#include <errno.h>
#include <string.h>

/* CPU index c: what was noted of it (HOTPLUG_* bits), acted on. */
static void record__cpu_hotplug(struct record *rec, int c, int st)
{
	struct evlist *evlist = rec->evlist;
	int cpu = evlist->cpus->map[c], err;

	if (st & HOTPLUG_WENT && rec->opts.verbose)
		pr_err("[ perf record: cpu %d went offline ]\n", cpu);
	if (!(st & HOTPLUG_BACK))
		return;
	err = evlist__revive_cpu(evlist, c, rec->err, sizeof(rec->err));
	if (err) {
		/* -ENODEV: it went again, and its coming back is still ahead */
		if (err != -ENODEV || rec->opts.verbose)
			pr_err("perf record: cpu %d came back online: %s: not recorded until it "
			       "comes back again\n", cpu, rec->err);
		return;
	}
	/* the BPF programs emit into the CPU's event: the new one now */
	err = record__off_cpu_cpu_changed(rec, c);
	if (!err)
		err = switch_when__cpu_changed(&rec->when, evlist, c);
	if (err)
		pr_err("perf record: cpu %d came back online: the BPF programs' event: %s: "
		       "their records of it are lost\n", cpu, strerror(-err));
	if (rec->opts.verbose)
		pr_err("[ perf record: cpu %d is back online: its events are open again ]\n", cpu);
	/* a file being written learns the new ids of its samples */
	if (rec->data.hits && dso_hits__add_ids(rec->data.hits, evlist))
		pr_err("perf record: cpu %d: build ids: %s: its samples' binaries may be left "
		       "out\n", cpu, strerror(ENOMEM));
}

void record__hotplug_start(struct record *rec)
{
	struct evlist *evlist = rec->evlist;

	if (rec->opts.verbose && evlist__whole_cpus(evlist) && evlist->hotplug.fd < 0)
		pr_err("perf record: CPU hotplug: uevent socket: %s: a CPU that goes offline is "
		       "not recorded when it comes back\n", strerror(-evlist->hotplug_err));
}

void record__hotplug(struct record *rec, int readable)
{
	struct evlist *evlist = rec->evlist;
	struct cpu_hotplug *h = &evlist->hotplug;
	struct cpu_map *online = NULL;
	int err;

	if (h->fd < 0)
		return;
	if (readable && (err = cpu_hotplug__read(h)) < 0)
		pr_err("perf record: CPU hotplug: reading uevents: %s\n", strerror(-err));
	if (!h->pending || writer__busy(&rec->writer))
		return;
	h->pending = 0;
	/* uevents were lost: any CPU online now may have gone and come back */
	if (h->lost) {
		h->lost = 0;
		online = cpu_map__new(NULL);
		if (rec->opts.verbose)
			pr_err("[ perf record: CPU hotplug: uevents lost: the events of every CPU "
			       "online are opened again ]\n");
	}
	for (int c = 0; c < evlist->cpus->nr; c++) {
		int st = cpu_hotplug__take(h, evlist->cpus->map[c]);

		if (cpu_map__has(online, evlist->cpus->map[c]))
			st |= HOTPLUG_BACK;
		if (st)
			record__cpu_hotplug(rec, c, st);
	}
	cpu_map__put(online);
}
