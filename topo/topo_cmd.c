/* topo_cmd.c — PLACEHOLDER until topo/ lands: `arbench topo`. */
#include "topo.h"
#include "ar.h"
#include <stdio.h>
int ar_cmd_topo(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "arbench: topo not built yet\n"); return 1; }
