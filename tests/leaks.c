/* Whether LeakSanitizer finds memory leaked so far, for the suites whose
 * inputs once leaked (tests/tests.h). */
#include "tests/tests.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
/* a leak must fail the suite, not only print a report when perf exits */
int test__leaked(void) { return __lsan_do_recoverable_leak_check(); }
#else
int test__leaked(void) { return 0; }
#endif
