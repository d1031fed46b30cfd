/* aic.h — aiconfigurator's comm tables both ways: `arbench import aiconfigurator PATH` (import.c) and `arbench export
 * aiconfigurator FILES -o DIR` (export.c), through plots/arbench-aic (pyarrow) spawned as the report spawns plots. */
#ifndef AR_AIC_H
#define AR_AIC_H

#include <jansson.h>
#include <stddef.h>

int ar_aic_import(int argc, char **argv); /* argv[0] = "aiconfigurator" */
int ar_cmd_export(int argc, char **argv);
/* The helper: $ARBENCH_AIC, else ../plots/arbench-aic beside the binary, else the source tree's (out). */
void ar_aic_find_helper(char *out, size_t len);
/* Run the helper with args (argv[1..], NULL-ended); its stdout parsed as JSON into *out.
 * 0; 2 with one line in err for the helper's bad-input line; 1 for anything else (missing pyarrow: its line). */
int ar_aic_run(char *const args[], json_t **out, char *err, size_t len);

#endif
