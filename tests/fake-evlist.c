/* An evlist that looks opened, for the suites that write or read files
 * of its events (tests/tests.h). */
#include "tests/tests.h"
#include "util/evlist.h"
#include "util/evsel.h"

#include <stdlib.h>

#define ST FAKE_EVLIST_ST

struct evlist *fake_evlist(void)
{
	struct evlist *l = evlist__new();
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = ST, .sample_id_all = 1, .sample_period = 1000 };
	const char *names[] = { "cpu-clock", "task-clock" };

	for (int i = 0; l && i < 2; i++) {
		struct evsel *e = evsel__new(&a, names[i]);

		if (!e || evlist__add(l, e))
			goto fail;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		e->nr_cpus = e->nr_threads = 1;
		e->fd = malloc(sizeof(int));
		e->id = malloc(sizeof(u64));
		if (!e->fd || !e->id)
			goto fail;
		e->fd[0] = -1;
		e->id[0] = 100 + i;
	}
	return l;
fail:
	evlist__delete(l);
	return NULL;
}
