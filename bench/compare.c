/* compare.c — PLACEHOLDER until `arbench compare` lands. */
#include "ar.h"
#include "commands.h"
#include <stdio.h>
int ar_cmd_compare(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: compare not built yet\n"); return 1; }
