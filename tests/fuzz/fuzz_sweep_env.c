/* fuzz_sweep_env.c — libFuzzer harness for `arbench sweep`'s axis parser: the input is one --env
 * (or --exclude) value after a valid --np and -J; a rejected value always comes with a message. */
#include "fuzz_util.h"
#include "sweep/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 2048) return 0;
  char *spec = malloc(size);
  if (!spec) return 0;
  memcpy(spec, data + 1, size - 1); /* the first byte picks the option */
  spec[size - 1] = 0;
  const char *opt = data[0] & 1 ? "--exclude" : "--env";
  char *argv[] = {"sweep", "--np", "2", "--env", "A=1,2", (char *)opt, spec, "-J", "fuzz.jsonl", "--",
                  "--backend", "mpi", NULL};
  struct ar_sweep_cfg c;
  char err[AR_ERRLEN] = "";
  int rc = ar_sweep_parse(&c, 12, argv, "arbench", "/nonexistent-fuzz-dir", err, sizeof err);
  if (rc < 0 && !*err) abort();
  ar_sweep_cfg_free(&c);
  free(spec);
  return 0;
}
