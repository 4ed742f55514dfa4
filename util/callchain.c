/* --call-graph values, and what dwarf unwinding needs from each sample. */
#include "util/callchain.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* a sample's stack dump size is a u16 and 8-byte aligned */
#define DUMP_SIZE_MAX 65528

int callchain__parse(struct callchain_param *p, const char *arg, char *errbuf, size_t errsz)
{
	const char *comma = strchr(arg, ',');
	size_t mode_len = comma ? (size_t)(comma - arg) : strlen(arg);
	u64 size = CALLCHAIN_DWARF_SIZE_DEFAULT;

	if (mode_len == 2 && !strncmp(arg, "fp", 2) && !comma) {
		*p = (struct callchain_param){ .mode = CALLCHAIN_FP };
		return 0;
	}
	if (mode_len == 3 && !strncmp(arg, "lbr", 3)) {
		snprintf(errbuf, errsz, "--call-graph lbr needs a PMU with LBR (Intel), "
			 "which this machine does not have");
		return -EINVAL;
	}
	if (mode_len != 5 || strncmp(arg, "dwarf", 5)) {
		snprintf(errbuf, errsz, "callchain: Unknown --call-graph option value: %s "
			 "(fp, dwarf[,SIZE])", arg);
		return -EINVAL;
	}
	if (comma && (parse_size(comma + 1, &size) || !size || size > DUMP_SIZE_MAX)) {
		snprintf(errbuf, errsz, "callchain: Incorrect stack dump size (max %d): %s",
			 DUMP_SIZE_MAX, comma + 1);
		return -EINVAL;
	}
	if (!callchain__user_regs()) {
		snprintf(errbuf, errsz, "--call-graph dwarf: not supported on this architecture");
		return -EINVAL;
	}
	*p = (struct callchain_param){ .mode = CALLCHAIN_DWARF, .dump_size = ALIGN_UP(size, 8) };
	return 0;
}

u64 callchain__user_regs(void)
{
#if defined(__x86_64__)
	/* every general register, ip, flags, cs and ss: not the data segments,
	 * which the kernel reports as 0 in 64-bit mode */
	return 0xff0fffULL;
#elif defined(__aarch64__)
	return (1ULL << 33) - 1;	/* x0-x30, sp, pc */
#else
	return 0;
#endif
}
