/* helper.c — running plots/arbench-aic (aiconfigurator's Parquet tables as JSON, and back): found like the report finds
 * arbench-plot, spawned bounded with its output in a private temporary folder, its one error line relayed. */
#include "aic/aic.h"
#include "ar_config.h"
#include "page/page.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AR_AIC_TIMEOUT 300 /* seconds: aiconfigurator's largest comm table is a few thousand rows */

void ar_aic_find_helper(char *out, size_t len) {
  const char *env = getenv("ARBENCH_AIC");
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = 0;
  if (env && *env) {
    snprintf(out, len, "%s", env);
    return;
  }
  const char *slash = strrchr(self, '/');
  snprintf(out, len, "%.*s/../plots/arbench-aic", slash ? (int)(slash - self) : 1, slash ? self : ".");
  if (access(out, X_OK)) snprintf(out, len, "%s", AR_AIC_SCRIPT);
}

static void first_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  *buf = 0;
  if (f && fgets(buf, (int)len, f)) buf[strcspn(buf, "\n")] = 0;
  if (f) fclose(f);
}

int ar_aic_run(char *const args[], json_t **out, char *err, size_t len) {
  char helper[4096], dir[] = "/tmp/arbench-aic.XXXXXX", o[64], e[64], line[1024];
  char *argv[8];
  int n = 0;
  *out = NULL;
  ar_aic_find_helper(helper, sizeof helper);
  if (access(helper, X_OK)) {
    snprintf(err, len, "cannot run %s (aiconfigurator's tables are Parquet, read by plots/arbench-aic: set ARBENCH_AIC)",
             helper);
    return 1;
  }
  if (!mkdtemp(dir)) {
    snprintf(err, len, "cannot make a temporary folder in /tmp");
    return 1;
  }
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  argv[n++] = helper;
  for (int i = 0; args[i] && n < 7; i++) argv[n++] = args[i];
  argv[n] = NULL;
  int rc = ar_page_spawn(argv, o, e, AR_AIC_TIMEOUT, err, len);
  if (rc == 0) {
    json_error_t je;
    *out = json_load_file(o, 0, &je);
    if (!*out) snprintf(err, len, "%s wrote no JSON (%s)", helper, je.text), rc = 1;
  } else if (rc > 0) {
    first_line(e, line, sizeof line);
    const char *msg = strncmp(line, "arbench-aic: ", 13) ? line : line + 13;
    snprintf(err, len, "%s", *msg ? msg : "plots/arbench-aic failed");
    rc = rc == 2 ? 2 : 1;
  } else rc = 1;
  unlink(o);
  unlink(e);
  rmdir(dir);
  return rc;
}
