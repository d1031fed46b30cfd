/* table.c — PLACEHOLDER until `arbench table` lands. */
#include "ar.h"
#include "commands.h"
#include <stdio.h>
int ar_cmd_table(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: table not built yet\n"); return 1; }
