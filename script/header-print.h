/* perf script --header, --header-only and -I: the stock perf's "# ========"
 * block, drawn from a perf.data's header and feature sections. */
#ifndef PERF_SCRIPT_HEADER_PRINT_H
#define PERF_SCRIPT_HEADER_PRINT_H

#include <stdio.h>

struct perf_reader;
struct script_opts;

/* The block of a file: its header's lines, each feature's lines in bit
 * order (full: -I, those the stock shows only with -I too) and the
 * missing features. A stream's header has no sections: its block has the
 * header's lines only (zeros), its features follow it. */
void header_print__block(const struct perf_reader *r, FILE *out, int full);

/* Each feature's lines, in bit order, as the stock prints a stream's
 * HEADER_FEATURE records. */
void header_print__features(const struct perf_reader *r, FILE *out, int full);

/* What o asks before the records: --header / --header-only's block and a
 * stream's features (with -I too). Returns 1 when the records are not to
 * be printed (--header-only), else 0. */
int header_print__script(const struct perf_reader *r, const struct script_opts *o);

#endif
