/* knownbad.c — doctor's known-bad check: the NCCL version and GPUs (a --results run record's, else --nccl-version or
 * the NCCL this build loads with CUDA's or the PCI ids' GPU names) against bench/knownbad.c's table, one finding each. */
#include "doctor/doctor.h"
#include "device/gpu.h"
#include "knownbad.h"
#include <stdio.h>
#include <string.h>

#define G "known-bad stacks"
#define MAXG 64

/* GPU names: CUDA's when live and it has devices, else the names of the PCI device ids. Count. */
static int gpu_names(const struct ar_doc *d, const struct ar_doc_gpu *g, int n, json_t *keep, const char **names) {
  int m = 0;
  if (d->live) {
    json_t *a = ar_gpu_describe(), *x;
    size_t i;
    json_array_foreach(a, i, x) if (m < MAXG && json_string_value(json_object_get(x, "name")))
        names[m++] = json_string_value(json_object_get(x, "name"));
    json_array_append_new(keep, a);
    if (m) return m;
  }
  for (int i = 0; i < n && m < MAXG; i++) {
    const char *nm = ar_doc_name_of_device(g[i].device);
    char id[32];
    snprintf(id, sizeof id, "10de:%04x", g[i].device);
    json_array_append_new(keep, json_string(nm ? nm : id));
    names[m++] = json_string_value(json_array_get(keep, json_array_size(keep) - 1));
  }
  return m;
}

/* "2 RTX PRO 6000 Blackwell Server GPUs", "8 GPUs, the first X", "no GPU found". */
static void describe(const char **names, int ng, char *buf, size_t len) {
  int same = 1;
  for (int i = 1; i < ng; i++) same &= !strcmp(names[i], names[0]);
  if (!ng) snprintf(buf, len, "no GPU found");
  else snprintf(buf, len, "%d %s%s%s", ng, same ? names[0] : "GPUs, the first ", same ? "" : names[0],
                ng > 1 && same ? " GPUs" : ng == 1 ? " GPU" : "");
}

/* The entries a --results run record matches (its own stack and GPUs, as run and import match them). */
static int from_record(json_t *rec, const struct ar_knownbad **hit, int max, const char **nccl, char *gpus, size_t len) {
  json_t *copy = json_deep_copy(rec), *x;
  const char *names[MAXG];
  int ng = 0, k = 0;
  size_t i;
  ar_knownbad_record(copy, NULL, 0);
  json_array_foreach(json_object_get(copy, "known_bad"), i, x) if (k < max && ar_knownbad_find(json_string_value(x)))
      hit[k++] = ar_knownbad_find(json_string_value(x));
  json_array_foreach(json_object_get(rec, "gpus"), i, x) if (ng < MAXG && json_string_value(json_object_get(x, "name")))
      names[ng++] = json_string_value(json_object_get(x, "name"));
  describe(names, ng, gpus, len); /* as recorded: one per rank in an import */
  *nccl = json_string_value(json_object_get(json_object_get(rec, "stack"), "nccl_loaded"));
  json_decref(copy);
  return k;
}

void ar_doctor_knownbad(struct ar_doc *d, const struct ar_doc_gpu *g, int n, json_t *rec, const char *nccl,
                        const char *from) {
  json_t *keep = json_array();
  const char *names[MAXG];
  const struct ar_knownbad *hit[16];
  char gpus[200];
  int k;
  size_t total;
  ar_knownbad_table(&total);
  if (rec) {
    k = from_record(rec, hit, 16, &nccl, gpus, sizeof gpus);
    from = "the last run record of --results";
  } else {
    int ng = gpu_names(d, g, n, keep, names);
    if (!nccl && d->live) { /* the NCCL this binary loads (null in a build without NCCL) */
      json_t *st = ar_stack_describe();
      json_array_append_new(keep, st);
      nccl = json_string_value(json_object_get(st, "nccl_loaded"));
      from = "loaded by this binary";
    }
    k = ar_knownbad_match(nccl ? "nccl" : NULL, nccl, names, ng, hit, 16);
    describe(names, ng, gpus, sizeof gpus);
  }
  if (!nccl)
    ar_doc_add(d, G, "NCCL", AR_D_SKIP, "give the NCCL you run: --nccl-version 2.26.2 (or 2.26.2+cuda12.8, or its "
               "NCCL_VERSION_CODE 22602)", "NCCL version unknown (%s): only the table's GPU and driver entries checked",
               rec ? "the --results run record names none" : d->live ? "this build has no NCCL" : "a fixture root");
  for (int i = 0; i < k; i++) {
    char scope[256];
    ar_knownbad_scope(hit[i], scope, sizeof scope);
    ar_doc_add(d, G, "known-bad", hit[i]->severity == AR_KB_SLOW ? AR_D_INFO : AR_D_WARN, hit[i]->todo,
               "%s: %s%s%s%s matches %s (%s): %s%s%s%s; source %s", hit[i]->id, hit[i]->library ? "NCCL " : "",
               hit[i]->library ? nccl : "", hit[i]->library ? " with " : "", gpus, scope,
               ar_knownbad_severity_name(hit[i]->severity), hit[i]->symptom, *hit[i]->condition ? " [reported with: " : "",
               hit[i]->condition, *hit[i]->condition ? "]" : "", hit[i]->source);
  }
  if (!k)
    ar_doc_add(d, G, "known-bad", AR_D_OK, "", "none of the %zu known-bad entries matches %s%s%s%s%s%s%s", total,
               nccl ? "NCCL " : "", nccl ? nccl : "", nccl && from ? " (" : "", nccl && from ? from : "",
               nccl && from ? ")" : "", nccl ? " with " : "", gpus);
  json_decref(keep);
}
