/* The number parsers of lib/util.c: sizes, u64s, ranges, powers of two;
 * its readers of files a local user may have placed. */
#include "tests/tests.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_util(struct test_ctx *ctx)
{
	u64 v;

	(void)ctx;
	TEST_ASSERT(!parse_size("16M", &v) && v == 16ULL << 20, "16M");
	TEST_ASSERT(!parse_size("512K", &v) && v == 512 << 10, "512K");
	TEST_ASSERT(!parse_size("1G", &v) && v == 1ULL << 30, "1G");
	TEST_ASSERT(!parse_size("100B", &v) && v == 100, "100B");
	TEST_ASSERT(!parse_size("4kb", &v) && v == 4096, "4kb");
	TEST_ASSERT(parse_size("16X", &v) == -EINVAL, "16X");
	TEST_ASSERT(parse_size("-1", &v) == -EINVAL, "-1");
	TEST_ASSERT(parse_size("99999999999999999999G", &v) == -ERANGE, "overflow");
	TEST_ASSERT(parse_size("16BB", &v) == -EINVAL && parse_size("K", &v) == -EINVAL &&
		    parse_size("", &v) == -EINVAL && parse_size(NULL, &v) == -EINVAL, "junk sizes");
	TEST_ASSERT(!parse_size("17179869183G", &v) && v == 17179869183ULL << 30, "largest G");
	TEST_ASSERT(parse_size("17179869184G", &v) == -ERANGE, "2^64 bytes");
	TEST_ASSERT(!parse_size("18446744073709551615", &v) && v == UINT64_MAX, "u64 max bytes");
	TEST_ASSERT(parse_size("18446744073709551616B", &v) == -ERANGE, "2^64 B");
	TEST_ASSERT(!parse_size("0", &v) && v == 0, "0 bytes parses, callers judge it");
	TEST_ASSERT(parse_u64("12a", &v) == -EINVAL && parse_u64("", &v) == -EINVAL, "junk");
	TEST_ASSERT(parse_u64("-1", &v) == -EINVAL && parse_u64("+1", &v) == -EINVAL &&
		    parse_u64(" 1", &v) == -EINVAL && parse_u64("1 ", &v) == -EINVAL &&
		    parse_u64("0x10", &v) == -EINVAL && parse_u64(NULL, &v) == -EINVAL, "signs, blanks, hex");
	TEST_ASSERT(!parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "u64 max");
	TEST_ASSERT(parse_u64("18446744073709551616", &v) == -ERANGE, "2^64");
	TEST_ASSERT(parse_u64("99999999999999999999999999999", &v) == -ERANGE, "way past 2^64");
	v = 42;
	TEST_ASSERT(parse_u64_range("0", 1, 10, &v) == -ERANGE && v == 42, "below the range");
	TEST_ASSERT(parse_u64_range("11", 1, 10, &v) == -ERANGE && v == 42, "above the range");
	TEST_ASSERT(parse_u64_range("x", 1, 10, &v) == -EINVAL, "junk in a range");
	TEST_ASSERT(!parse_u64_range("10", 1, 10, &v) && v == 10, "the top of the range");
	TEST_ASSERT(!parse_u64_range("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX,
		    "the whole u64 range");
	TEST_ASSERT(roundup_pow2(3) == 4 && roundup_pow2(4) == 4 && roundup_pow2(1) == 1, "pow2");
	return TEST_OK;
}

/* read_fd's bound, across its buffer's growth; regular_file__open
 * refuses a link and a FIFO, and gives a file's size. */
static int test_files(struct test_ctx *ctx)
{
	char dir[] = "/tmp/frtest-util-XXXXXX", path[3][96], *text = malloc(10000);
	int fd, ret = TEST_FAIL;
	size_t len;
	u64 size;

	(void)ctx;
	TEST_ASSERT(text && mkdtemp(dir), "mkdtemp");
	for (int i = 0; i < 3; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, (const char *[]){ "f", "l", "p" }[i]);
	memset(text, 'x', 10000);
	fd = open(path[0], O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write_all(fd, text, 10000) || close(fd) || symlink(path[0], path[1]) ||
	    mkfifo(path[2], 0600))
		goto out;
	free(text);
	text = NULL;
	for (size_t max = 9999; max <= 10001; max++) {
		fd = regular_file__open(AT_FDCWD, path[0], &size);
		if (fd < 0 || size != 10000)
			goto out;
		errno = 0;
		text = read_fd(fd, max, &len);
		close(fd);
		if (max < 10000 ? text || errno != EFBIG : !text || len != 10000 || text[len]) {
			fprintf(stderr, "  read_fd at most %zu of 10000 bytes: %s\n", max,
				text ? "read" : strerror(errno));
			goto out;
		}
		free(text);
		text = NULL;
	}
	if (regular_file__open(AT_FDCWD, path[1], NULL) != -ELOOP ||
	    regular_file__open(AT_FDCWD, path[2], NULL) != -EINVAL)
		goto out;
	ret = TEST_OK;
out:
	free(text);
	for (int i = 0; i < 3; i++)
		unlink(path[i]);
	rmdir(dir);
	return ret;
}

TEST_SUITE(suite_lib_util, "lib/util", "Size, number and range parsers; bounded reads of "
	   "files a local user may have placed", test_util, test_files);
