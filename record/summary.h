/* perf record's closing lines, and the memory line of overwrite mode
 * that -v prints at the start too. */
#ifndef PERF_RECORD_SUMMARY_H
#define PERF_RECORD_SUMMARY_H

struct record;

/* Overwrite mode: what the rings, capture buffers and tracking log take. */
void record__print_memory(struct record *rec);
/* The end of a recording: warnings (lost, dropped), then what was
 * written; with -q only the warnings. */
void record__print_summary(struct record *rec);

#endif
