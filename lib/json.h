/* A writer of one JSON document (RFC 8259) onto a stdio stream: objects,
 * arrays, and strings escaped whatever bytes they hold. */
#ifndef PERF_JSON_H
#define PERF_JSON_H

#include <stdio.h>
#include "lib/util.h"

#define JSON_MAX_DEPTH 16

/* Where the document stands: a comma is owed before the next value of a
 * level that has one already. */
struct json {
	FILE *f;
	int depth;
	u8 has_value[JSON_MAX_DEPTH + 1];
};

void json__init(struct json *j, FILE *f);
/* KEY is the member's name inside an object, NULL inside an array or at
 * the top. Nesting deeper than JSON_MAX_DEPTH is a bug of the caller's:
 * the levels past it are written flat. */
void json__object(struct json *j, const char *key);
void json__array(struct json *j, const char *key);
/* Closes the innermost object or array (the one last opened). */
void json__end(struct json *j, char close);
#define json__end_object(j) json__end(j, '}')
#define json__end_array(j) json__end(j, ']')
/* S as a JSON string, null for NULL (see json__write_string()). */
void json__str(struct json *j, const char *key, const char *s);
void json__s64(struct json *j, const char *key, long long v);
void json__u64(struct json *j, const char *key, unsigned long long v);
/* A number as exact as a double holds it; null if not finite. */
void json__double(struct json *j, const char *key, double v);
void json__bool(struct json *j, const char *key, int v);
void json__null(struct json *j, const char *key);

/* S as a JSON string with its quotes: '"' and '\' escaped; \b \f \n \r
 * \t, and \u00XX for every other control byte (below 0x20) and DEL; valid
 * UTF-8 as it is, except U+2028 and U+2029 (\u2028, \u2029: a JavaScript
 * reader takes them for line ends); and U+FFFD (\ufffd) for each byte that
 * is not part of a valid UTF-8 sequence (overlong forms, surrogates, past
 * U+10FFFF, cut sequences), so that the document is always valid UTF-8. */
void json__write_string(FILE *f, const char *s);

#endif
