/* fuzz_opts.c — libFuzzer harness for `arbench run`'s option parser (sizes, flags, backends): the
 * input is NUL-separated arguments; the parser must return 0, 1 (help) or -AR_EINVAL with a message. */
#include "fuzz_util.h"
#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *argv[64], *buf, err[AR_ERRLEN] = "";
  int argc = ar_fuzz_argv(data, size, "run", argv, 64, &buf);
  struct ar_opts *o = malloc(sizeof *o);
  if (o && argc) {
    ar_opts_defaults(o);
    int rc = ar_opts_parse(o, argc, argv, err, sizeof err);
    if (rc < 0 && !*err) abort(); /* an error always says what was wrong */
    if (rc == 0) {
      char canon[4096];
      ar_opts_canon(o, canon, sizeof canon);
    }
  }
  free(o);
  free(buf);
  return 0;
}
