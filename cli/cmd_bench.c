/* PLACEHOLDER: being written (issue 5). */
#include "cli.h"
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return cli_fail(NULL, "not yet built"); }
