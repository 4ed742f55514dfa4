/* Names that a local user controls (file names, comms, paths), made safe
 * for a log line: C-style escapes, so that a name can neither start a line
 * of its own nor drive a terminal, and can be read back exactly. */
#ifndef PERF_ESCAPE_H
#define PERF_ESCAPE_H

#include <stddef.h>

/* The room escape__str() needs for a name of n bytes: each may become \xNN. */
#define ESCAPE_SIZE(n) (4 * (n) + 1)
/* A buffer for a name printed in a message: longer ones are cut, marked. */
#define ESCAPE_LOG_SIZE 1024

/* Writes S into DST (DSTSZ bytes, at least 8) with "\\" for a backslash,
 * "\n", "\t", "\r" for those, and "\xNN" for every other control byte
 * (below 0x20, 0x7f), the C1 controls (U+0080..U+009F), the line and
 * paragraph separators and the bidirectional overrides (a terminal or an
 * editor would show the line as something else), and every byte of
 * what is not valid UTF-8. Printable ASCII and other UTF-8 stay as they
 * are. What does not fit is cut at a character's end and marked "...".
 * Returns DST, for use as a printf argument. */
const char *escape__str(char *dst, size_t dstsz, const char *s);

/* Undoes escape__str() of a name that was not cut: DST (DSTSZ bytes) gets
 * the original, NUL-terminated. 0; -EINVAL for an escape it does not
 * know, a \x00, or a raw control byte (not something escape__str()
 * wrote); -ENAMETOOLONG when it does not fit. */
int escape__undo(char *dst, size_t dstsz, const char *s);

/* The length of the valid UTF-8 sequence at s (2 to 4), 0 if there is
 * none: overlong forms, surrogates and code points past U+10FFFF are not.
 * s is NUL-terminated: a NUL ends a sequence before anything past it is
 * read. */
size_t escape__utf8_len(const unsigned char *s);

#endif
