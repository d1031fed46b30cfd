/* import.c — PLACEHOLDER until `arbench import` lands. */
#include "ar.h"
#include "commands.h"
#include <stdio.h>
int ar_cmd_import(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: import not built yet\n"); return 1; }
