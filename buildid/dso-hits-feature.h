/* The BUILD_ID feature's body, from the DSOs a file's samples hit. */
#ifndef PERF_DSO_HITS_FEATURE_H
#define PERF_DSO_HITS_FEATURE_H

struct buf;
struct dso_hits;

/* The BUILD_ID feature's body: one build_id_event per DSO hit (and the
 * vdso, and every DSO with --buildid-all) that has a build id, kernel and
 * modules first, as perf writes it. Build ids the records did not carry
 * are read from the files now. 0 or -ENOMEM. */
int dso_hits__write_feature(struct dso_hits *s, struct buf *b);

#endif
