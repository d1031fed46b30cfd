/* sweep.c — PLACEHOLDER until `arbench sweep` lands. */
#include "ar.h"
#include "commands.h"
#include <stdio.h>
int ar_cmd_sweep(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: sweep not built yet\n"); return 1; }
