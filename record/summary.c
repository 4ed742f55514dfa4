/* perf record's closing lines: what was written, what was lost and why,
 * and in overwrite mode what the dumps took. */
#include "record/summary.h"
#include "record/drain-thread.h"
#include "util/evlist.h"
#include "record/record.h"

/* Overwrite mode: what the rings, capture buffers and tracking log take. */
void record__print_memory(struct record *rec)
{
	struct history *h = rec->history;

	if (h)
		pr_err("[ perf record: memory: history %lluK in chunks of %uK (%lluK in use), %d "
		       "forward rings of %lluK, tracking %lluK ]\n",
		       (unsigned long long)(h->size >> 10), h->chunk_bytes >> 10,
		       (unsigned long long)(history__memory(h) >> 10),
		       h->nr_slots, (unsigned long long)(rec->opts.mmap_bytes >> 10),
		       (unsigned long long)(rec->tracking.log.cap >> 10));
	if (!h || rec->dump->nr_rings)
		pr_err("[ perf record: memory: %d rings of %lluK%s, dump buffers %lluK, tracking "
		       "%lluK in %d forward rings of %lluK ]\n", rec->dump->nr_rings,
		       (unsigned long long)(rec->opts.bwd_mmap_bytes >> 10),
		       evlist__twinned(rec->evlist) ? " and as many twin rings" : "",
		       (unsigned long long)(rec->dump->memory >> 10),
		       (unsigned long long)(rec->tracking.log.cap >> 10), rec->evlist->nr_mmaps,
		       (unsigned long long)(rec->opts.mmap_bytes >> 10));
}

/* --history: what it took in, what it dropped for its size, how well it
 * compressed. */
static void record__print_history(struct record *rec)
{
	const struct history_stats *st = &rec->history->st;

	history__sync(rec->history);
	pr_err("[ perf record: history: %llu records (%.1f MB) taken in, %llu (%.1f MB) "
	       "dropped, oldest first, to stay within %lluM; compressed %.1f:1 ]\n",
	       (unsigned long long)st->records, st->bytes / 1048576.0,
	       (unsigned long long)st->dropped_records, st->dropped_bytes / 1048576.0,
	       (unsigned long long)(rec->history->size >> 20),
	       st->chunk_bytes_out ? (double)st->chunk_bytes_in / st->chunk_bytes_out : 1.0);
}

/* Overwrite mode: the tracking records the kernel dropped, and the names
 * read again from /proc for the tasks still alive. */
static void record__print_tracking_lost(struct record *rec)
{
	const struct tracking *t = &rec->tracking;

	pr_err("Warning: %llu tracking records lost: the forward rings (%lluK a CPU, "
	       "sized from -m and --tracking-max-size) filled up before they were read; "
	       "the live tasks were named again from /proc %llu times (%llu names)\n",
	       (unsigned long long)rec->stats.lost,
	       (unsigned long long)(rec->opts.mmap_bytes >> 10),
	       (unsigned long long)t->renamings, (unsigned long long)t->renamed);
}

/* Overwrite mode, at the end: the dumps, what they lost, the tracking log
 * and the memory it all took. */
static void record__print_flight(struct record *rec)
{
	struct dump_stats *d = &rec->dump_stats;

	pr_err("[ perf record: %llu dumps%s, %llu records written (%llu samples); lost: "
	       "%llu dropped by the kernel, ~%llu overwritten before a dump (%llu bytes)%s ]\n",
	       (unsigned long long)d->dumps, d->failed ? " (some failed)" : "",
	       (unsigned long long)d->records, (unsigned long long)d->samples,
	       (unsigned long long)d->kernel_lost, (unsigned long long)d->overwritten_est,
	       (unsigned long long)d->overwritten_bytes,
	       d->trimmed ? ", samples outside the common window left out" : "");
	pr_err("[ perf record: tracking: %llu records (%llu KB) kept, %llu pruned after "
	       "their task exited, %llu evicted by --tracking-max-size; a dump's prelude "
	       "at most %llu records ]\n",
	       (unsigned long long)rec->tracking.nr_records,
	       (unsigned long long)rec->tracking.log.len / 1024,
	       (unsigned long long)rec->tracking.pruned_records,
	       (unsigned long long)rec->tracking.evicted_records,
	       (unsigned long long)rec->prelude_max);
	if (rec->history)
		record__print_history(rec);
	record__print_memory(rec);
	if (rec->opts.verbose)
		pr_err("[ perf record: %llu samples trimmed to the common window, %llu left "
		       "for the next dump, %llu triggers with nothing new, %llu records of "
		       "the twin switches' overlaps left out (dumped once, from the ring "
		       "read first) ]\n",
		       (unsigned long long)d->trimmed, (unsigned long long)d->deferred,
		       (unsigned long long)d->empty, (unsigned long long)d->overlap);
}

void record__print_summary(struct record *rec)
{
	double mb = (rec->data.data_offset + rec->data.data_size +
		     drain_threads__bytes(rec->threads)) / 1024.0 / 1024.0;
	struct dump_stats *d = &rec->dump_stats;

	if (d->prune_failed)
		pr_err("Warning: tracking: %llu prunes failed for want of memory (the "
		       "--tracking-max-size cap held)\n", (unsigned long long)d->prune_failed);
	if (rec->pending_dropped)
		pr_err("Warning: %llu /no-overwrite/ records dropped, oldest first: more than "
		       "%lluM came between two dumps\n", (unsigned long long)rec->pending_dropped,
		       (unsigned long long)(rec->pending_max >> 20));
	if (rec->opts.quiet)
		return;
	if (rec->trigger.limited)
		pr_err("[ perf record: %llu triggers ignored: over --switch-output-max-rate ]\n",
		       (unsigned long long)rec->trigger.limited);
	/* -v only: libbpf loads and frees probe programs all the time */
	if (rec->opts.verbose && rec->bpf.missed)
		pr_err("[ perf record: %llu BPF programs unloaded before their info was read: "
		       "named, but not in BPF_PROG_INFO ]\n", (unsigned long long)rec->bpf.missed);
	if (rec->stats.lost && rec->opts.overwrite && !rec->history)
		record__print_tracking_lost(rec);
	else if (rec->stats.lost)
		pr_err("Warning: %llu samples lost: the rings filled up (try a bigger -m or "
		       "a lower -F)\n", (unsigned long long)rec->stats.lost);
	if (rec->cache_budget.left_out)
		pr_err("[ perf record: build-id cache: %llu binaries left out: this recording added "
		       "%.1f MB of --buildid-cache-max=%lluK ]\n",
		       (unsigned long long)rec->cache_budget.left_out,
		       rec->cache_budget.added / 1048576.0,
		       (unsigned long long)(rec->cache_budget.max >> 10));
	if (rec->opts.overwrite) {
		record__print_flight(rec);
		return;
	}
	pr_err("[ perf record: Woken up %llu times to write data ]\n",
	       (unsigned long long)rec->stats.wakeups);
	if (rec->so.kind)
		pr_err("[ perf record: Captured and wrote %d files ]\n", rec->files);
	else if (rec->data.placed[0] && rec->data.comp_out)
		pr_err("[ perf record: Captured and wrote %.3f MB %s (%llu samples), compressed "
		       "(original %.3f MB, ratio is %.3f) ]\n", mb, rec->data.placed,
		       (unsigned long long)rec->stats.samples, rec->data.comp_in / 1024.0 / 1024.0,
		       perf_data__comp_ratio(&rec->data));
	else if (rec->data.placed[0])
		pr_err("[ perf record: Captured and wrote %.3f MB %s (%llu samples) ]\n", mb,
		       rec->data.placed, (unsigned long long)rec->stats.samples);
}
