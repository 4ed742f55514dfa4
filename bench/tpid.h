#ifndef BENCH_TPID_H
#define BENCH_TPID_H

#include <stdio.h>

/* The id of tracepoint sys:name from tracefs, where it is mounted (the
 * bench's helpers link nothing of util/), or -1. */
static inline long long bench_tp_id(const char *sys, const char *name)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	long long id = -1;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && id < 0; i++) {
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/%s/%s/id", dirs[i], sys, name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%lld", &id) != 1)
			id = -1;
		if (f)
			fclose(f);
	}
	return id;
}

#endif
