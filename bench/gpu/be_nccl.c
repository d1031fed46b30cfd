/* be_nccl.c — PLACEHOLDER until the GPU engine issue lands. */
#include "backend.h"
#include <stdio.h>
static int na(const struct ar_env *e, char *why, size_t len) { (void)e; snprintf(why, len, "not built yet"); return -AR_EUNAVAIL; }
const struct ar_backend ar_be_nccl = {.name = "nccl", .summary = "ncclAllReduce", .flags = AR_BE_DEVICE, .available = na};
