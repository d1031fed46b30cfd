/* tune.c — PLACEHOLDER until `arbench tune` lands. */
#include "ar.h"
#include "commands.h"
#include <stdio.h>
int ar_cmd_tune(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: tune not built yet\n"); return 1; }
