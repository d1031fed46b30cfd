/* fuzz_size.c — libFuzzer harness for the size parser ("8", "4K", "1M", "2G"): every accepted size
 * formats back to a string that parses to the same number of bytes. */
#include "fuzz_util.h"
#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256) return 0;
  char s[257], err[AR_ERRLEN] = "", back[64];
  memcpy(s, data, size);
  s[size] = 0;
  size_t bytes = 0, again = 0;
  if (ar_size_parse(s, &bytes, err, sizeof err)) {
    if (!*err) abort();
    return 0;
  }
  ar_size_format(bytes, back, sizeof back);
  if (ar_size_parse(back, &again, err, sizeof err) || again != bytes) abort();
  return 0;
}
