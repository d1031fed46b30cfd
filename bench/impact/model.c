/* model.c — `impact --model`: a Hugging Face config.json or hidden=,layers=,dtype=, and the allreduces of one
 * forward pass of a dense decoder-only transformer under tensor parallelism (docs/impact.md#the-rule). */
#include "impact/impact.h"
#include "ar.h"
#include "infile.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AR_CONFIG_MAX (1L << 20) /* a config.json is a few KiB; 1 MiB is far above any real one */

/* torch_dtype's names and arbench's. */
static int dtype_of(const char *s, struct ar_impact_model *m) {
  static const char *const map[][3] = {{"bfloat16", "bfloat16", "2"}, {"bf16", "bfloat16", "2"},
                                       {"float16", "half", "2"},      {"fp16", "half", "2"},
                                       {"half", "half", "2"},         {"float32", "float", "4"},
                                       {"fp32", "float", "4"},        {"float", "float", "4"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(s, map[i][0])) {
      snprintf(m->dtype, sizeof m->dtype, "%s", map[i][1]);
      m->esize = atoi(map[i][2]);
      return 0;
    }
  return -1;
}

static int positive(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v <= 0 || v > (1L << 24)) return -1;
  *out = v;
  return 0;
}

static int inline_model(const char *arg, struct ar_impact_model *m, char *err, size_t len) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", arg);
  int have = 0;
  for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) break;
    *eq = 0;
    const char *k = kv, *v = eq + 1;
    if (!strcmp(k, "hidden") && !positive(v, &m->hidden)) have |= 1;
    else if (!strcmp(k, "layers") && !positive(v, &m->layers)) have |= 2;
    else if (!strcmp(k, "dtype") && !dtype_of(v, m)) have |= 4;
    else {
      snprintf(err, len, "bad --model '%s': %s=%s (expected hidden=N,layers=N,dtype=bfloat16|float16|float32, N a "
               "positive integer)", arg, k, v);
      return -AR_EINVAL;
    }
  }
  if (have != 7) {
    snprintf(err, len, "bad --model '%s' (expected a config.json or hidden=N,layers=N,dtype=bfloat16|float16|float32)",
             arg);
    return -AR_EINVAL;
  }
  snprintf(m->name, sizeof m->name, "hidden=%ld,layers=%ld,dtype=%s", m->hidden, m->layers, m->dtype);
  return 0;
}

/* The file's text: checked as every file the user names is (bench/infile.c: a regular file, not /proc or /sys,
 * no NUL in its first block, opened without blocking on a FIFO), and at most AR_CONFIG_MAX bytes of it. */
static char *read_config(const char *path, size_t *n, char *err, size_t len) {
  FILE *f = NULL;
  if (ar_infile_open(path, "--model config.json", 0, &f, err, len)) return NULL;
  char *buf = malloc(AR_CONFIG_MAX + 2);
  size_t got = buf ? fread(buf, 1, AR_CONFIG_MAX + 1, f) : 0;
  int bad = !buf || ferror(f);
  fclose(f);
  if (bad || got > AR_CONFIG_MAX) {
    snprintf(err, len, "bad --model '%s': %s (expected a config.json: a regular file of at most 1 MiB)", path,
             bad ? "cannot read it" : "larger than 1 MiB");
    free(buf);
    return NULL;
  }
  buf[got] = 0;
  *n = got;
  return buf;
}

/* What impact cannot model in a config: NULL when it can. */
static const char *unmodelled(json_t *c) {
  static const char *const moe[] = {"num_experts", "num_local_experts", "n_routed_experts", "moe_intermediate_size"};
  for (size_t i = 0; i < sizeof moe / sizeof moe[0]; i++) {
    json_t *v = json_object_get(c, moe[i]);
    if (v && !json_is_null(v) && !(json_is_integer(v) && json_integer_value(v) == 0))
      return "a mixture-of-experts model (its expert layers' communication is not two allreduces per layer)";
  }
  if (json_is_true(json_object_get(c, "is_encoder_decoder"))) return "an encoder-decoder model";
  if (json_object_get(c, "text_config") && !json_object_get(c, "hidden_size"))
    return "a multimodal config (its text model's keys are under text_config)";
  return NULL;
}

static int config_model(const char *path, struct ar_impact_model *m, char *err, size_t len) {
  size_t n = 0;
  char *txt = read_config(path, &n, err, len);
  if (!txt) return -AR_EINVAL;
  json_error_t je;
  json_t *c = json_loadb(txt, n, JSON_REJECT_DUPLICATES, &je);
  free(txt);
  if (!json_is_object(c)) {
    snprintf(err, len, "bad --model '%s': not a JSON object (line %d: %s)", path, je.line, c ? "not an object" : je.text);
    json_decref(c);
    return -AR_EINVAL;
  }
  const char *why = unmodelled(c);
  json_t *h = json_object_get(c, "hidden_size"), *l = json_object_get(c, "num_hidden_layers");
  json_t *d = json_object_get(c, "torch_dtype");
  if (!d) d = json_object_get(c, "dtype"); /* transformers >= 4.56 writes "dtype" */
  int rc = -AR_EINVAL;
  if (why)
    snprintf(err, len, "--model '%s' is %s: impact models dense decoder-only transformers only", path, why);
  else if (!json_is_integer(h) || json_integer_value(h) <= 0 || json_integer_value(h) > (1 << 24))
    snprintf(err, len, "bad --model '%s': hidden_size missing or not a positive integer", path);
  else if (!json_is_integer(l) || json_integer_value(l) <= 0 || json_integer_value(l) > (1 << 24))
    snprintf(err, len, "bad --model '%s': num_hidden_layers missing or not a positive integer", path);
  else if (!json_is_string(d))
    snprintf(err, len, "bad --model '%s': torch_dtype missing (expected bfloat16, float16 or float32)", path);
  else if (dtype_of(json_string_value(d), m))
    snprintf(err, len, "--model '%s': torch_dtype '%s' cannot be modelled (expected bfloat16, float16 or float32)",
             path, json_string_value(d));
  else {
    m->hidden = (long)json_integer_value(h);
    m->layers = (long)json_integer_value(l);
    const char *base = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
    rc = 0;
  }
  json_decref(c);
  return rc;
}

int ar_impact_model_parse(const char *arg, struct ar_impact_model *m, char *err, size_t len) {
  memset(m, 0, sizeof *m);
  if (!*arg) {
    snprintf(err, len, "empty --model (expected a config.json or hidden=N,layers=N,dtype=bfloat16|float16|float32)");
    return -AR_EINVAL;
  }
  if (strchr(arg, '=') && !strchr(arg, '/') && access(arg, F_OK)) return inline_model(arg, m, err, len);
  return config_model(arg, m, err, len);
}

long ar_impact_calls(const struct ar_impact_model *m) { return 2 * m->layers + 1; }

size_t ar_impact_bytes(const struct ar_impact_model *m, long tokens) {
  return (size_t)tokens * (size_t)m->hidden * (size_t)m->esize;
}
