/* C-style escaping of names for log lines (and its undoing, for a name
 * passed on in a line-based protocol). */
#include "lib/escape.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

size_t escape__utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Valid UTF-8 that still changes what a reader sees: C1 controls, U+2028,
 * U+2029, U+202A..U+202E, U+2066..U+2069. */
static int utf8_hidden(const unsigned char *s, size_t n)
{
	if (n == 2)
		return s[0] == 0xc2 && s[1] < 0xa0;
	if (n != 3 || s[0] != 0xe2)
		return 0;
	return (s[1] == 0x80 && s[2] >= 0xa8 && s[2] <= 0xae) ||
	       (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9);
}

/* The escaped form of the character at s into out (at most 16 bytes);
 * its length in *in. */
static size_t escape_one(const unsigned char *s, size_t *in, char *out)
{
	static const char named[] = { '\n', 'n', '\t', 't', '\r', 'r', '\\', '\\' };
	size_t n = s[0] >= 0x80 ? escape__utf8_len(s) : 1, len = 0;

	for (size_t i = 0; i < sizeof(named); i += 2) {
		if (s[0] == (unsigned char)named[i]) {
			*in = 1;
			out[0] = '\\';
			out[1] = named[i + 1];
			return 2;
		}
	}
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		*in = 1;
		out[0] = (char)s[0];
		return 1;
	}
	if (n > 1 && !utf8_hidden(s, n)) {
		*in = n;
		memcpy(out, s, n);
		return n;
	}
	/* a control byte, a byte of no valid sequence (alone), or a whole
	 * sequence that is hidden */
	n = n ? n : 1;
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(out + len, "\\x%02x", s[i]);
	*in = n;
	return len;
}

const char *escape__str(char *dst, size_t dstsz, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, total = 1, in;
	char one[20];

	if (!dstsz)
		return dst;
	for (const unsigned char *q = p; *q; q += in)
		total += escape_one(q, &in, one);
	while (*p) {
		size_t len = escape_one(p, &in, one);

		/* a name that is cut keeps room for its mark */
		if (total > dstsz && used + len + 4 > dstsz) {
			snprintf(dst + used, dstsz - used, "...");
			return dst;
		}
		memcpy(dst + used, one, len);
		used += len;
		p += in;
	}
	dst[used] = '\0';
	return dst;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte that the escape at s (after its backslash) stands for, and its
 * length in *len; -1 if it is not one of escape__str()'s. */
static int unescape_one(const char *s, size_t *len)
{
	int hi, lo;

	*len = 1;
	switch (s[0]) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '\\': return '\\';
	case 'x':
		hi = hex_digit(s[1]);
		lo = hi < 0 ? -1 : hex_digit(s[2]);
		*len = 3;
		return lo < 0 || (hi | lo) == 0 ? -1 : hi << 4 | lo;
	default:
		return -1;
	}
}

int escape__undo(char *dst, size_t dstsz, const char *s)
{
	size_t used = 0, len;

	for (; *s; s++) {
		int c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return -EINVAL;
		if (c == '\\') {
			c = unescape_one(s + 1, &len);
			if (c < 0)
				return -EINVAL;
			s += len;
		}
		if (used + 1 >= dstsz)
			return -ENAMETOOLONG;
		dst[used++] = (char)c;
	}
	if (!dstsz)
		return -ENAMETOOLONG;
	dst[used] = '\0';
	return 0;
}
