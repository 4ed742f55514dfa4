/* perf's own records (types 64 and up): those that say how the rest
 * reads (a stream's attrs and features, event names, the id index) taken
 * in; each checked at least as strictly as the stock perf 6.1 checks it,
 * which refuses a file with a lie in one. */
#include "perfdata/reader-internal.h"
#include "perfdata/header-internal.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* AUXTRACE_INFO's types the stock perf 6.1 decodes: Intel PT to HiSilicon PTT */
#define AUXTRACE_TYPE_MAX 6

struct user_rec {
	struct perf_reader *r;
	const struct perf_event_header *h;
	const char *body;	/* after the header */
	size_t len;		/* the body's bytes */
	const char *bad;	/* what is wrong, for the message */
	char why[64];		/* room for a bad that names something */
};

/* {attr, ids}: an event of a stream, as the stock perf adds one. */
static int user__attr(struct user_rec *u, char *err, size_t errsz)
{
	u32 asz;

	if (u->len < PERF_ATTR_SIZE_VER0) {
		u->bad = "shorter than an attr";
		return -EINVAL;
	}
	memcpy(&asz, u->body + offsetof(struct perf_event_attr, size), sizeof(asz));
	if (asz < PERF_ATTR_SIZE_VER0 || asz > u->len) {
		u->bad = "bad attr.size";
		return -EINVAL;
	}
	return reader__add_attr(u->r, u->body, asz, u->body + asz, (u->len - asz) / sizeof(u64),
				err, errsz);
}

/* {nr, {id, idx, cpu, tid}[nr]}: the stock perf refuses an index whose
 * count is more than the record holds or that names an id no event has. */
static int user__id_index(struct user_rec *u)
{
	u64 nr, id;

	if (u->len < sizeof(nr)) {
		u->bad = "no room for its count";
		return -EINVAL;
	}
	memcpy(&nr, u->body, sizeof(nr));
	if (nr > (u->len - sizeof(nr)) / (4 * sizeof(u64))) {
		u->bad = "more entries than the record holds";
		return -EINVAL;
	}
	for (u64 i = 0; i < nr; i++) {
		memcpy(&id, u->body + sizeof(nr) + i * 4 * sizeof(u64), sizeof(id));
		if (!id_hash__find(&u->r->ids, id)) {
			u->bad = "an entry names an id no event has";
			return -EINVAL;
		}
	}
	return 0;
}

/* {type, id, ...}: a NAME renames its event, as a stream names its
 * events (the stock perf ignores an update of an id no event has). */
static int user__event_update(struct user_rec *u)
{
	const size_t fixed = 2 * sizeof(u64);
	struct reader_evsel *e;
	u64 type, id;
	char *name;

	if (u->len < fixed) {
		u->bad = "no room for its type and id";
		return -EINVAL;
	}
	memcpy(&type, u->body, sizeof(type));
	memcpy(&id, u->body + sizeof(type), sizeof(id));
	if (type != EVENT_UPDATE_NAME || !(e = id_hash__find(&u->r->ids, id)))
		return 0;
	if (!memchr(u->body + fixed, 0, u->len - fixed)) {
		u->bad = "its name does not end inside it";
		return -EINVAL;
	}
	name = strdup(u->body + fixed);
	if (!name)
		return -ENOMEM;
	free(e->name);
	e->name = name;
	return 0;
}

/* {feat, body}: a stream's feature, checked as a file's. */
static int user__feature(struct user_rec *u)
{
	struct perf_reader *r = u->r;
	u32 nr_cpus = 0;
	u64 feat, size;
	const void *nrcpus = reader__feature(r, HEADER_NRCPUS, &size);

	if (u->len < sizeof(feat)) {
		u->bad = "no room for its feature";
		return -EINVAL;
	}
	memcpy(&feat, u->body, sizeof(feat));
	/* the stock perf warns and goes on: a feature it has no use for here */
	if (!r->pipe || feat == HEADER_TRACING_DATA || feat >= HEADER_LAST_FEATURE)
		return 0;
	if (nrcpus && size >= sizeof(nr_cpus))
		memcpy(&nr_cpus, nrcpus, sizeof(nr_cpus));
	if (header__check_feature(feat, u->body + sizeof(feat), u->len - sizeof(feat), nr_cpus)) {
		snprintf(u->why, sizeof(u->why), "malformed feature %d (%s)", (int)feat,
			 feature__name(feat) ? feature__name(feat) : "unknown");
		u->bad = u->why;
		return -EINVAL;
	}
	/* the first stays: what reader__feature() gave must not move */
	if (feature__isset(r->hdr.adds_features, feat))
		return 0;
	buf__add(&r->feats[feat], u->body + sizeof(feat), u->len - sizeof(feat));
	if (r->feats[feat].err)
		return -ENOMEM;
	r->hdr.adds_features[feat / 64] |= 1ULL << (feat % 64);
	return 0;
}

/* The sizes of the other records: what their fields need. */
static int user__sizes(struct user_rec *u, u64 *payload)
{
	u32 type = u->h->type, auxtype;
	const char *name;

	switch (type) {
	case PERF_RECORD_HEADER_BUILD_ID:	/* pid, build id[24], file name */
		name = u->body + 4 + 24;
		if (u->len < 4 + 24 + 1 || !memchr(name, 0, u->len - 4 - 24))
			u->bad = "its file name does not end inside it";
		break;
	case PERF_RECORD_AUXTRACE_INFO:		/* type, reserved, private data */
		if (u->len < 8)
			u->bad = "no room for its type";
		else if (memcpy(&auxtype, u->body, 4), !auxtype || auxtype > AUXTRACE_TYPE_MAX)
			u->bad = "an AUX area tracing type the stock perf does not know";
		u->r->auxtrace_info = 1;
		break;
	case PERF_RECORD_AUXTRACE:	/* size, offset, reference, idx, tid, cpu, reserved */
		if (u->len < 40)
			u->bad = "shorter than its fields";
		else if (!u->r->auxtrace_info)
			u->bad = "AUX area data without an AUXTRACE_INFO before it to say how to "
				 "read it (the stock perf refuses it too)";
		else
			memcpy(payload, u->body, sizeof(*payload));
		break;
	case PERF_RECORD_THREAD_MAP:	/* nr, {pid, comm[16]}[nr] */
	case PERF_RECORD_STAT_CONFIG:	/* nr, {tag, val}[nr] */ {
		u64 nr, each = type == PERF_RECORD_THREAD_MAP ? 24 : 16;

		if (u->len < 8 || (memcpy(&nr, u->body, 8), nr > (u->len - 8) / each))
			u->bad = "more entries than the record holds";
		break;
	}
	}
	return u->bad ? -EINVAL : 0;
}

int reader__user_record(struct perf_reader *r, const struct perf_event_header *h, u64 off,
			u64 *payload, char *err, size_t errsz)
{
	struct user_rec u = { .r = r, .h = h, .body = (const char *)(h + 1),
			      .len = h->size - sizeof(*h) };
	int ret;

	*payload = 0;
	switch (h->type) {
	case PERF_RECORD_HEADER_ATTR: ret = user__attr(&u, err, errsz); break;
	case PERF_RECORD_ID_INDEX: ret = user__id_index(&u); break;
	case PERF_RECORD_EVENT_UPDATE: ret = user__event_update(&u); break;
	case PERF_RECORD_HEADER_FEATURE: ret = user__feature(&u); break;
	default: ret = user__sizes(&u, payload); break;
	}
	if (ret == -EINVAL && u.bad)
		snprintf(err, errsz, "record at offset %#llx: %s: %s", (unsigned long long)off,
			 event__type_name(h->type), u.bad);
	else if (ret && ret != -EINVAL)
		snprintf(err, errsz, "record at offset %#llx: %s: %s", (unsigned long long)off,
			 event__type_name(h->type), strerror(-ret));
	return ret;
}
