/* PLACEHOLDER: being written (issue 7). */
#include "cli.h"
int cmd_preview(int argc, char **argv) { (void)argc; (void)argv; return cli_fail(NULL, "not yet built"); }
