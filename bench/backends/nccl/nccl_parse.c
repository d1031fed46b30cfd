/* nccl_parse.c — the nccl backend's variant parser (checked against the NCCL version in use) and
 * the parser of NCCL's INFO lines (tuning decisions, channels, transports, path type). No CUDA here. */
#include "backends/nccl/nccl_parse.h"
#include "ar.h"
#include "ar_config.h"
#include "ar_tuner_decisions.h"
#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int ar_nccl_code(int major, int minor, int patch) {
  if (major <= 2 && minor <= 8) return major * 1000 + minor * 100 + patch;
  return major * 10000 + minor * 100 + patch;
}

void ar_nccl_code_str(int code, char *buf, size_t len) {
  if (code >= 10000) snprintf(buf, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
  else snprintf(buf, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
}

/* Algorithms NCCL_ALGO accepts, the first version that has each, and whether it runs allreduce. */
static const struct algo_info {
  const char *name;
  int major, minor;
  int allreduce;
  int simple_only;
} algos[] = {
  {"Tree", 2, 0, 1, 0},          {"Ring", 2, 0, 1, 0},       {"CollNetDirect", 2, 14, 1, 1},
  {"CollNetChain", 2, 14, 1, 1}, {"NVLS", 2, 17, 1, 1},      {"NVLSTree", 2, 18, 1, 1},
  {"PAT", 2, 23, 0, 0},
};
static const char *const protos[] = {"LL", "LL128", "Simple"};
#define NALGOS (sizeof algos / sizeof algos[0])

static void allowed_algos(int version, char *buf, size_t len) {
  size_t k = 0;
  *buf = 0;
  for (size_t i = 0; i < NALGOS && k < len; i++)
    if (algos[i].allreduce && version >= ar_nccl_code(2, algos[i].minor, 0))
      k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", algos[i].name);
}

/* One algorithm name: canonical spelling into out, or -AR_EINVAL. */
static int algo_one(const char *name, int version, int *simple_only, char *out, size_t olen, char *err,
                    size_t len) {
  char vs[32], allowed[160];
  ar_nccl_code_str(version, vs, sizeof vs);
  allowed_algos(version, allowed, sizeof allowed);
  for (size_t i = 0; i < NALGOS; i++) {
    if (strcasecmp(name, algos[i].name)) continue;
    if (!algos[i].allreduce) {
      snprintf(err, len, "nccl variant algo=%s: %s does not implement allreduce (allowed with NCCL %s: %s)",
               name, algos[i].name, vs, allowed);
      return -AR_EINVAL;
    }
    if (version < ar_nccl_code(2, algos[i].minor, 0)) {
      snprintf(err, len, "nccl variant algo=%s: needs NCCL >= %d.%d, this is %s (allowed: %s)", name,
               algos[i].major, algos[i].minor, vs, allowed);
      return -AR_EINVAL;
    }
    *simple_only |= algos[i].simple_only;
    snprintf(out, olen, "%s", algos[i].name);
    return 0;
  }
  snprintf(err, len, "nccl variant algo=%s: unknown algorithm (allowed with NCCL %s: %s)", name, vs, allowed);
  return -AR_EINVAL;
}

static int proto_one(const char *name, char *out, size_t olen, char *err, size_t len) {
  for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++)
    if (!strcasecmp(name, protos[i])) {
      snprintf(out, olen, "%s", protos[i]);
      return 0;
    }
  snprintf(err, len, "nccl variant proto=%s: unknown protocol (allowed: LL, LL128, Simple)", name);
  return -AR_EINVAL;
}

/* A '+'-joined list of names into a ','-joined NCCL list. kind: 'a' algorithms, 'p' protocols. */
static int name_list(const char *val, int kind, int version, int *simple_only, char *out, size_t olen,
                     char *err, size_t len) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", val);
  *out = 0;
  if (!*buf) {
    snprintf(err, len, "nccl variant %s=: empty value", kind == 'a' ? "algo" : "proto");
    return -AR_EINVAL;
  }
  char *save = NULL;
  for (char *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
    char one[32];
    int rc = kind == 'a' ? algo_one(tok, version, simple_only, one, sizeof one, err, len)
                         : proto_one(tok, one, sizeof one, err, len);
    if (rc) return rc;
    size_t k = strlen(out);
    snprintf(out + k, olen - k, "%s%s", k ? "," : "", one);
  }
  return 0;
}

static int int_value(const char *key, const char *val, int lo, int hi, int *out, char *err, size_t len) {
  char *end;
  long v = strtol(val, &end, 10);
  if (!*val || *end || v < lo || v > hi) {
    snprintf(err, len, "nccl variant %s=%s: expected an integer %d..%d", key, val, lo, hi);
    return -AR_EINVAL;
  }
  *out = (int)v;
  return 0;
}

int ar_nccl_tuner_lib(char *out, size_t olen, char *err, size_t len) {
  const char *env = getenv("ARBENCH_TUNER_PLUGIN");
  if (env && *env) { /* named by the user: that one or an error, never another */
    if (!access(env, R_OK)) return snprintf(out, olen, "%s", env), 0;
    snprintf(err, len, "nccl variant tuner=: ARBENCH_TUNER_PLUGIN=%s: no such readable file (allowed: the path of "
             "libarbench-tuner.so)", env);
    return -AR_EINVAL;
  }
  const char *const tries[] = {AR_TUNER_LIB_BUILD, AR_TUNER_LIB_INSTALLED};
  for (int i = 0; i < 2; i++)
    if (!access(tries[i], R_OK)) return snprintf(out, olen, "%s", tries[i]), 0;
  snprintf(err, len, "nccl variant tuner=: libarbench-tuner.so is neither at %s nor at %s (set ARBENCH_TUNER_PLUGIN)",
           AR_TUNER_LIB_BUILD, AR_TUNER_LIB_INSTALLED);
  return -AR_EINVAL;
}

/* tuner=FILE: the file must be a decisions file the plugin loads (tuner/ar_tuner_decisions.c). */
static int tuner_value(const char *val, struct ar_nccl_variant *v, char *err, size_t len) {
  char abs[PATH_MAX], why[400];
  struct ar_tuner_decisions d;
  if (!*val) {
    snprintf(err, len, "nccl variant tuner=: expected a file (the tuner.json of arbench tune -o DIR)");
    return -AR_EINVAL;
  }
  if (!realpath(val, abs)) {
    snprintf(err, len, "nccl variant tuner=%s: %s (expected the tuner.json of arbench tune -o DIR)", val,
             strerror(errno));
    return -AR_EINVAL;
  }
  if (strlen(abs) >= sizeof v->tuner || strchr(abs, ',')) {
    snprintf(err, len, "nccl variant tuner=%s: the absolute path is longer than %zu characters or has a comma", val,
             sizeof v->tuner - 1);
    return -AR_EINVAL;
  }
  if (ar_tuner_load(abs, &d, why, sizeof why)) {
    snprintf(err, len, "nccl variant tuner=%s: %s", val, why);
    return -AR_EINVAL;
  }
  ar_tuner_free(&d);
  snprintf(v->tuner, sizeof v->tuner, "%s", abs);
  return ar_nccl_tuner_lib(v->tuner_lib, sizeof v->tuner_lib, err, len);
}

static int one_key(const char *key, const char *val, int version, struct ar_nccl_variant *v,
                   int *simple_only, char *err, size_t len) {
  if (!strcmp(key, "algo"))
    return name_list(val, 'a', version, simple_only, v->algo, sizeof v->algo, err, len);
  if (!strcmp(key, "proto")) return name_list(val, 'p', version, simple_only, v->proto, sizeof v->proto, err, len);
  if (!strcmp(key, "ctas")) return int_value(key, val, 1, 64, &v->ctas, err, len);
  if (!strcmp(key, "reg")) return int_value(key, val, 0, 1, &v->reg, err, len);
  if (!strcmp(key, "symm")) {
    int rc = int_value(key, val, 0, 1, &v->symm, err, len);
    if (!rc && v->symm && version < ar_nccl_code(2, 27, 0)) {
      char vs[32];
      ar_nccl_code_str(version, vs, sizeof vs);
      snprintf(err, len, "nccl variant symm=1: symmetric windows need NCCL >= 2.27, this is %s", vs);
      return -AR_EINVAL;
    }
    return rc;
  }
  if (!strcmp(key, "tuner")) return tuner_value(val, v, err, len);
  snprintf(err, len, "nccl variant: unknown key '%s' (known: algo, proto, ctas, reg, symm, tuner)", key);
  return -AR_EINVAL;
}

int ar_nccl_variant_parse(const char *text, int version, struct ar_nccl_variant *v, char *err,
                          size_t len) {
  memset(v, 0, sizeof *v);
  char buf[256];
  if (strlen(text) >= sizeof buf) {
    snprintf(err, len, "nccl variant '%.60s...': too long", text);
    return -AR_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", text);
  int simple_only = 0;
  char *save = NULL;
  for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) {
      snprintf(err, len, "nccl variant '%s': expected key=value (keys: algo, proto, ctas, reg, symm, tuner)", kv);
      return -AR_EINVAL;
    }
    *eq = 0;
    int rc = one_key(kv, eq + 1, version, v, &simple_only, err, len);
    if (rc) return rc;
  }
  if (simple_only && *v->proto && strcmp(v->proto, "Simple")) {
    snprintf(err, len, "nccl variant algo=%s,proto=%s: CollNet and NVLS algorithms run only with proto=Simple",
             v->algo, v->proto);
    return -AR_EINVAL;
  }
  return 0;
}

void ar_nccl_log_init(struct ar_nccl_log *log) { memset(log, 0, sizeof *log); }

/* "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}" */
static void tuned_line(struct ar_nccl_log *log, const char *s) {
  unsigned long long bytes;
  char algo[24], proto[8];
  int lo, hi;
  if (sscanf(s, "AllReduce: %llu Bytes -> Algo %23s proto %7s channel{Lo..Hi}={%d..%d}", &bytes, algo, proto,
             &lo, &hi) != 5)
    return;
  if (log->ntuned >= AR_NCCL_MAX_TUNED) return;
  struct ar_nccl_tuned *t = &log->tuned[log->ntuned++];
  memset(t, 0, sizeof *t);
  t->dtype = -1;
  t->bytes = bytes;
  snprintf(t->algo, sizeof t->algo, "%s", algo);
  snprintf(t->proto, sizeof t->proto, "%s", proto);
  t->channels = hi - lo + 1;
}

/* 2.28: "AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R nchannels 4 nthreads 512 nWorks 1" */
static void symmetric_line(struct ar_nccl_log *log, const char *s) {
  unsigned long long bytes;
  char kernel[48];
  int nch;
  if (sscanf(s, "AllReduce [Symmetric]: %llu Bytes -> Kernel %47s nchannels %d", &bytes, kernel, &nch) != 3) return;
  if (log->ntuned >= AR_NCCL_MAX_TUNED) return;
  struct ar_nccl_tuned *t = &log->tuned[log->ntuned++];
  memset(t, 0, sizeof *t);
  t->dtype = -1;
  t->bytes = bytes;
  t->symmetric = 1;
  snprintf(t->algo, sizeof t->algo, "SYMMETRIC");
  snprintf(t->kernel, sizeof t->kernel, "%s", kernel);
  t->channels = nch;
}

/* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "... via SHM/direct/direct", "... via NET/IB/0" */
static void transport_line(struct ar_nccl_log *log, const char *via) {
  char detail[64];
  if (sscanf(via, "via %63s", detail) != 1) return;
  if (!strncmp(detail, "P2P", 3)) log->transports |= AR_NCCL_T_P2P;
  else if (!strncmp(detail, "SHM", 3)) log->transports |= AR_NCCL_T_SHM;
  else if (!strncmp(detail, "NET", 3)) log->transports |= AR_NCCL_T_NET;
  else return;
  if (!*log->transport) snprintf(log->transport, sizeof log->transport, "%s", detail);
}

/* The plugin's own lines ("arbench tuner: ...", tuner/ar_tuner_plugin.c) and NCCL's "TUNER/Plugin:". */
static void tuner_line(struct ar_nccl_tuner_log *t, const char *s) {
  const char *p;
  int r, n;
  if ((p = strstr(s, " ranges for ")) && sscanf(p, " ranges for %d ranks", &r) == 1 && p > s) {
    const char *q = p;
    while (q > s && q[-1] >= '0' && q[-1] <= '9') q--;
    t->ran = 1;
    snprintf(t->match, sizeof t->match, "exact");
    t->group_nranks = r;
    t->ranges = atoi(q);
  } else if ((p = strstr(s, "using those of the nearest, ")) && sscanf(p, "using those of the nearest, %d ranks (%d",
                                                                         &r, &n) == 2) {
    t->ran = 1;
    snprintf(t->match, sizeof t->match, "nearest");
    t->group_nranks = r;
    t->ranges = n;
  } else if (strstr(s, " has no decisions for ")) {
    t->ran = 1;
    snprintf(t->match, sizeof t->match, "none");
  } else if (!strncmp(s, "allreduce ", 10) && strstr(s, " is unavailable on this communicator")) {
    t->unavailable++;
  } else if (!strncmp(s, "allreduce ", 10)) {
    if (t->applied < AR_NCCL_TUNER_LINES) snprintf(t->lines[t->applied], sizeof t->lines[0], "%s", s + 10);
    t->applied++;
  }
}

static void info_line(struct ar_nccl_log *log, const char *s) {
  const char *p;
  int a, b, c;
  char t1[8], t2[8];
  if (!strncmp(s, "arbench tuner: ", 15)) tuner_line(&log->tuner, s + 15);
  else if ((p = strstr(s, "TUNER/Plugin: Using arbench (v")) && isdigit((unsigned char)p[30]))
    snprintf(log->tuner.abi, sizeof log->tuner.abi, "v%d", atoi(p + 30));
  else if (strstr(s, "TUNER/Plugin: Using tuner plugin arbench")) /* 2.22: v3 is looked up first */
    snprintf(log->tuner.abi, sizeof log->tuner.abi, "v3");
  else if (!strncmp(s, "AllReduce: ", 11)) tuned_line(log, s);
  else if (!strncmp(s, "AllReduce [Symmetric]: ", 23)) symmetric_line(log, s);
  else if (!strncmp(s, "Channel ", 8) && (p = strstr(s, " via "))) transport_line(log, p + 1);
  else if (sscanf(s, "%d coll channels, %d collnet channels, %d nvls channels", &a, &b, &c) == 3)
    log->coll_channels = a;
  else if (!*log->path_intra && sscanf(s, "Pattern %d, crossNic %d, nChannels %d, bw %*f/%*f, type %7[^/]/%7[^,]",
                                       &a, &b, &c, t1, t2) == 5)
    snprintf(log->path_intra, sizeof log->path_intra, "%s", t1);
  else if (!strncmp(s, "NCCL_ALGO set by environment to ", 32))
    snprintf(log->env_algo, sizeof log->env_algo, "%s", s + 32);
  else if (!strncmp(s, "NCCL_PROTO set by environment to ", 33))
    snprintf(log->env_proto, sizeof log->env_proto, "%s", s + 33);
  else if (strstr(s, "Init COMPLETE") && (p = strstr(s, " nranks ")) && sscanf(p, " nranks %d", &a) == 1) {
    log->init_complete = 1;
    log->nranks = a;
  }
}

void ar_nccl_log_line(struct ar_nccl_log *log, const char *line) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", line);
  buf[strcspn(buf, "\r\n")] = 0;
  const char *p = strstr(buf, "NCCL INFO ");
  if (p) {
    info_line(log, p + 10);
    return;
  }
  if ((p = strstr(buf, "NCCL WARN "))) {
    if (!strncmp(p + 10, "arbench tuner: ", 15)) {
      log->tuner.ran = 1;
      snprintf(log->tuner.error, sizeof log->tuner.error, "%s", p + 25);
    }
    if (!log->warnings++) snprintf(log->first_warning, sizeof log->first_warning, "%s", p + 10);
    return;
  }
  if (!strstr(buf, "NCCL ")) info_line(log, buf); /* bare message without a prefix */
}

int ar_nccl_log_file(struct ar_nccl_log *log, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    ar_nccl_log_line(log, line);
    while (n == sizeof line - 1 && line[n - 1] != '\n' && fgets(line, sizeof line, f)) n = strlen(line);
  }
  fclose(f);
  return 0;
}

void ar_nccl_log_key(struct ar_nccl_log *log, const struct ar_nccl_call *calls, int ncalls) {
  int j = 0;
  for (int i = 0; i < log->ntuned; i++) {
    int k = j;
    while (k < ncalls && calls[k].bytes != log->tuned[i].bytes) k++; /* calls without a line */
    if (k == ncalls) continue; /* a line no call explains: leave it unkeyed */
    log->tuned[i].dtype = calls[k].dtype;
    j = k + 1;
  }
}

const struct ar_nccl_tuned *ar_nccl_log_find(const struct ar_nccl_log *log, uint64_t bytes, int dtype) {
  for (int i = log->ntuned - 1; i >= 0; i--)
    if (log->tuned[i].bytes == bytes && log->tuned[i].dtype == dtype) return &log->tuned[i];
  return NULL;
}

void ar_nccl_ctas(int ctas, const char *user_min, const char *user_max, int *min, int *max) {
  *min = *max = 0;
  if (ctas > 0) {
    *min = *max = ctas;
    return;
  }
  /* As NCCL reads the variables (ncclLoadParam: strtoll base 0; values <= 0 leave the config alone; above
   * MAXCHANNELS, 64, capped; src/misc/param.cc, src/init.cc:1661-1681, 1760-1773 at v2.28.9-1). */
  const char *u[2] = {user_min, user_max};
  int *out[2] = {min, max};
  for (int i = 0; i < 2; i++) {
    errno = 0;
    long long v = u[i] && *u[i] ? strtoll(u[i], NULL, 0) : 0;
    if (!errno && v > 0) *out[i] = v > 64 ? 64 : (int)v;
  }
  /* ncclConfig_t is checked harder than the variables: minCTAs > maxCTAs is refused, and an unset maxCTAs is
   * INT_MIN there (init.cc:1865-1872), so a minimum alone needs NCCL's default maximum beside it; where the variables
   * gave minimum > maximum NCCL sets both to the maximum (init.cc:1770-1773). */
  if (*min && !*max) *max = 64;
  if (*min > *max && *max) *min = *max;
}

void ar_nccl_debug_path(const char *pattern, const char *host, int pid, char *out, size_t len) {
  size_t k = 0;
  if (!len) return;
  for (const char *p = pattern; *p && k + 1 < len; p++) {
    if (*p != '%' || !p[1]) {
      out[k++] = *p;
      continue;
    }
    p++;
    if (*p == 'h') k += (size_t)snprintf(out + k, len - k, "%s", host);
    else if (*p == 'p') k += (size_t)snprintf(out + k, len - k, "%d", pid);
    else if (*p == '%') out[k++] = '%';
    else k += (size_t)snprintf(out + k, len - k, "%%%c", *p);
    if (k >= len) k = len - 1;
  }
  out[k] = 0;
}

const char *ar_nccl_transport_name(int bits) {
  static const char *const names[8] = {"none", "P2P", "SHM", "P2P+SHM", "NET", "P2P+NET", "SHM+NET", "P2P+SHM+NET"};
  return names[bits & 7];
}

int ar_nccl_ll128_unsafe(const struct ar_nccl_log *log, int nranks) {
  if (nranks < 2) return 0;
  const char *t = log->path_intra;
  return strcmp(t, "NVL") && strcmp(t, "NVB") && strcmp(t, "C2C") && strcmp(t, "LOC");
}

json_t *ar_nccl_tuner_json(const struct ar_nccl_tuner_log *t, const char *file, const char *lib, const char *env_plugin) {
  int has_file = file && *file, from_env = !has_file && env_plugin && *env_plugin;
  if (!has_file && !t->ran) return NULL;
  const char *plugin = has_file ? lib : from_env ? env_plugin : NULL;
  json_t *j = json_pack("{s:o, s:o, s:b, s:o}", "file", has_file ? json_string(file) : json_null(), "plugin",
                        plugin && *plugin ? json_string(plugin) : json_null(), "ran", t->ran, "abi",
                        *t->abi ? json_string(t->abi) : json_null());
  if (!j) return NULL;
  if (*t->match) json_object_set_new(j, "match", json_string(t->match));
  if (*t->match && strcmp(t->match, "none")) {
    json_object_set_new(j, "group_nranks", json_integer(t->group_nranks));
    json_object_set_new(j, "ranges", json_integer(t->ranges));
  }
  json_t *lines = json_array();
  for (int i = 0; i < t->applied && i < AR_NCCL_TUNER_LINES; i++) json_array_append_new(lines, json_string(t->lines[i]));
  json_object_set_new(j, "applied_ranges", json_integer(t->applied));
  json_object_set_new(j, "applied", lines);
  json_object_set_new(j, "unavailable_ranges", json_integer(t->unavailable));
  if (*t->error) json_object_set_new(j, "error", json_string(t->error));
  const char *note = NULL;
  if (has_file && !t->ran)
    note = "the tuner plugin did not run: NCCL loads it once per process and keeps a failed load (an earlier nccl "
           "variant without tuner= in this run), so run nccl:tuner= in its own arbench run";
  else if (has_file && *t->error) note = "the decisions file did not load: NCCL tuned on its own";
  else if (from_env && *t->error)
    note = "no tuner= here: this environment's NCCL_TUNER_PLUGIN loaded the tuner plugin, whose decisions file did not "
           "load: NCCL tuned on its own";
  else if (from_env)
    note = "no tuner= here: this environment's NCCL_TUNER_PLUGIN loaded the tuner plugin, so NCCL ran its choices, "
           "not its own tuning";
  else if (!has_file) note = "no tuner= here, but an earlier nccl:tuner= communicator of this process still holds the "
                             "plugin, so NCCL used it here too: run default and tuned nccl in separate arbench runs";
  if (note) json_object_set_new(j, "note", json_string(note));
  return j;
}
