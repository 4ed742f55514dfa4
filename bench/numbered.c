/* close(BASE + i) for SECONDS on whatever CPU it is pinned to: one numbered
 * sequence per CPU (distinct BASE each), every number of which a recorder
 * should deliver once; at most ROOM numbers, so that sequences never meet.
 *   numbered SECONDS BASE ROOM
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned long base = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	unsigned long room = argc > 3 ? strtoul(argv[3], NULL, 0) : 1000000;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < room; i++) {
		if (i % 1024 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
				break;
		}
		close((int)(base + i));
	}
	return 0;
}
