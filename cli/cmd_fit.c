/* PLACEHOLDER: being written (issue 3). */
#include "cli.h"
int cmd_fit(int argc, char **argv) { (void)argc; (void)argv; return cli_fail(NULL, "not yet built"); }
