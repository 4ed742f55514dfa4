#include "builtin.h"
int cmd_test(int argc, const char **argv) { (void)argc; (void)argv; return 1; }
