/* One JSON document written onto a stdio stream, with strings escaped so
 * that hostile bytes (control characters, invalid UTF-8) keep it valid. */
#include "lib/json.h"
#include "lib/escape.h"

#include <math.h>
#include <string.h>

void json__init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* The comma a second value of a level owes, and the member's name. */
static void json__member(struct json *j, const char *key)
{
	int d = MIN(j->depth, JSON_MAX_DEPTH);

	if (j->has_value[d])
		fputc(',', j->f);
	j->has_value[d] = 1;
	if (key) {
		json__write_string(j->f, key);
		fputc(':', j->f);
	}
}

static void json__open(struct json *j, const char *key, char open)
{
	json__member(j, key);
	fputc(open, j->f);
	j->depth++;
	j->has_value[MIN(j->depth, JSON_MAX_DEPTH)] = 0;
}

void json__object(struct json *j, const char *key)
{
	json__open(j, key, '{');
}

void json__array(struct json *j, const char *key)
{
	json__open(j, key, '[');
}

void json__end(struct json *j, char close)
{
	if (j->depth > 0)
		j->depth--;
	fputc(close, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json__str(struct json *j, const char *key, const char *s)
{
	json__member(j, key);
	if (s)
		json__write_string(j->f, s);
	else
		fputs("null", j->f);
}

void json__s64(struct json *j, const char *key, long long v)
{
	json__member(j, key);
	fprintf(j->f, "%lld", v);
}

void json__u64(struct json *j, const char *key, unsigned long long v)
{
	json__member(j, key);
	fprintf(j->f, "%llu", v);
}

void json__double(struct json *j, const char *key, double v)
{
	json__member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

void json__bool(struct json *j, const char *key, int v)
{
	json__member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json__null(struct json *j, const char *key)
{
	json__member(j, key);
	fputs("null", j->f);
}

/* The escape of an ASCII byte c, NULL when it stands as it is. */
static const char *json__ascii_escape(unsigned char c, char *buf)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	if (c >= 0x20 && c != 0x7f)
		return NULL;
	snprintf(buf, 8, "\\u%04x", c);
	return buf;
}

void json__write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[8];

	fputc('"', f);
	while (*p) {
		const char *e;
		size_t n;

		if (*p < 0x80) {
			e = json__ascii_escape(*p, buf);
			e ? fputs(e, f) : fputc(*p, f);
			p++;
			continue;
		}
		n = escape__utf8_len(p);
		if (!n) {
			fputs("\\ufffd", f);	/* a byte of no valid sequence */
			p++;
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			fputs(p[2] == 0xa8 ? "\\u2028" : "\\u2029", f);
			p += n;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}
