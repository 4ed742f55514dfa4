/* Register names to sample_regs_* bits. */
#include "util/regs.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

struct reg_name {
	const char *name;
	int bit;
};

#if defined(__x86_64__)
/* enum perf_event_x86_regs; DS, ES, FS and GS (bits 12-15) are left out as
 * perf leaves them out: in 64-bit mode the kernel reports them as 0 */
static const struct reg_name reg_names[] = {
	{ "AX", 0 }, { "BX", 1 }, { "CX", 2 }, { "DX", 3 }, { "SI", 4 }, { "DI", 5 },
	{ "BP", 6 }, { "SP", 7 }, { "IP", 8 }, { "FLAGS", 9 }, { "CS", 10 }, { "SS", 11 },
	{ "R8", 16 }, { "R9", 17 }, { "R10", 18 }, { "R11", 19 }, { "R12", 20 },
	{ "R13", 21 }, { "R14", 22 }, { "R15", 23 },
};
#else
static const struct reg_name reg_names[] = { { NULL, 0 } };
#endif

static const struct reg_name *regs__find(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(reg_names); i++)
		if (reg_names[i].name && strlen(reg_names[i].name) == len &&
		    !strncasecmp(reg_names[i].name, name, len))
			return &reg_names[i];
	return NULL;
}

u64 regs__default_mask(void)
{
	u64 mask = 0;

	for (size_t i = 0; i < ARRAY_SIZE(reg_names); i++)
		if (reg_names[i].name)
			mask |= 1ULL << reg_names[i].bit;
	return mask;
}

void regs__list(FILE *f)
{
	fprintf(f, "available registers: ");
	for (size_t i = 0; i < ARRAY_SIZE(reg_names); i++)
		if (reg_names[i].name)
			fprintf(f, "%s ", reg_names[i].name);
	fputc('\n', f);
}

int regs__parse(const char *arg, const char *opt, u64 *mask, char *errbuf, size_t errsz)
{
	u64 m = 0;

	for (const char *s = arg;; s++) {
		size_t len = strcspn(s, ",");
		const struct reg_name *r;

		if (len == 1 && *s == '?') {
			regs__list(stderr);
			return 1;
		}
		r = regs__find(s, len);
		if (!r) {
			snprintf(errbuf, errsz, "Unknown register \"%.*s\", check man page or run "
				 "\"perf record %s?\"", (int)len, s, opt);
			return -EINVAL;
		}
		m |= 1ULL << r->bit;
		s += len;
		if (!*s)
			break;
	}
	*mask = m;
	return 0;
}
