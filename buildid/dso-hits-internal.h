/* What the parts of the DSO model in buildid/ share, and nothing outside
 * buildid/ uses. */
#ifndef PERF_DSO_HITS_INTERNAL_H
#define PERF_DSO_HITS_INTERNAL_H

struct dso_hits;
struct hit_dso;

/* Whether dso goes into the BUILD_ID feature and so into the cache. */
int dso_hits__wanted(const struct dso_hits *s, const struct hit_dso *d);

#endif
