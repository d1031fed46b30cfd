/* replay.c — runs a libFuzzer harness without libFuzzer (any compiler): every file named, or every
 * file in every directory named, goes once through LLVMFuzzerTestOneInput; the regression run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), f) : 0;
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, got);
  free(buf);
  return 0;
}

static int run_path(const char *path, int *count) {
  struct stat st;
  if (stat(path, &st)) return 0; /* an absent crashers folder is fine */
  if (!S_ISDIR(st.st_mode)) return (*count)++, run_file(path);
  struct dirent **names;
  int n = scandir(path, &names, NULL, alphasort), bad = 0;
  for (int i = 0; i < n; i++) {
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && !stat(full, &st) && S_ISREG(st.st_mode)) bad |= run_path(full, count);
    free(names[i]);
  }
  free(names);
  return bad;
}

int main(int argc, char **argv) {
  int count = 0, bad = 0;
  for (int i = 1; i < argc; i++) bad |= run_path(argv[i], &count);
  printf("replay: %d inputs ran\n", count);
  if (!count) {
    fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  return bad;
}
