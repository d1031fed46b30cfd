/* fleet_topo.c — a box whose topology differs from its group's is a finding, not a group of its own: per group
 * the most common value of each property (GPU count, each GPU's link rate, each pair's path, NUMA nodes, cores),
 * and one line per box and property that differs from it. */
#include "analysis/fleet.h"
#include "ar.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The properties of one topology summary as "name" -> "value" (strings), with a human phrase for each. */
static json_t *props(json_t *topo) {
  json_t *p = json_object(), *gpus = json_object_get(topo, "gpus"), *paths = json_object_get(topo, "paths");
  char k[64], v[64];
  snprintf(v, sizeof v, "%zu", json_array_size(gpus));
  json_object_set_new(p, "gpus", json_string(v));
  static const char *const counts[] = {"numa_nodes", "packages", "cores"};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (json_is_integer(json_object_get(topo, counts[i]))) {
      snprintf(v, sizeof v, "%lld", (long long)json_integer_value(json_object_get(topo, counts[i])));
      json_object_set_new(p, counts[i], json_string(v));
    }
  for (size_t i = 0; i < json_array_size(gpus); i++) {
    json_t *l = json_object_get(json_array_get(gpus, i), "link_gbs");
    snprintf(k, sizeof k, "link %zu", i);
    if (json_is_number(l)) snprintf(v, sizeof v, "%.2f", json_number_value(l));
    else snprintf(v, sizeof v, "unknown");
    json_object_set_new(p, k, json_string(v));
  }
  for (size_t i = 0; i < json_array_size(paths); i++)
    for (size_t j = i + 1; j < json_array_size(json_array_get(paths, i)); j++) {
      const char *c = json_string_value(json_array_get(json_array_get(paths, i), j));
      snprintf(k, sizeof k, "path %zu %zu", i, j);
      json_object_set_new(p, k, json_string(c ? c : "?"));
    }
  return p;
}

/* The line for one property that differs. */
static void phrase(const struct ar_fl_box *b, const char *key, const char *mine, const char *theirs, json_t *topo,
                   char *buf, size_t len) {
  size_t i, j;
  if (sscanf(key, "link %zu", &i) == 1) {
    const char *bus = json_string_value(json_object_get(json_array_get(json_object_get(topo, "gpus"), i), "busid"));
    snprintf(buf, len, "%s: GPU %zu (%s) has a PCIe link of %s GB/s where its group's boxes have %s: a link trained "
             "narrower or slower (x8 for x16, Gen4 for Gen5), a riser or slot to check", b->host, i, bus ? bus : "?",
             mine, theirs);
  } else if (sscanf(key, "path %zu %zu", &i, &j) == 2) {
    snprintf(buf, len, "%s: GPUs %zu and %zu connect through %s where its group's boxes connect through %s", b->host, i, j,
             mine, theirs);
  } else {
    const char *what = !strcmp(key, "gpus") ? "GPUs in its topology" : !strcmp(key, "numa_nodes") ? "NUMA nodes"
                       : !strcmp(key, "packages") ? "CPU packages" : "cores";
    snprintf(buf, len, "%s: %s %s where its group's boxes have %s", b->host, mine, what, theirs);
  }
}

/* The most common value of each property among a group's boxes (ties: the first seen). */
static json_t *modes(const struct ar_fleet *f, int g, json_t **bp) {
  json_t *count = json_object(), *mode = json_object();
  for (int b = 0; b < f->nb; b++) {
    if (f->b[b].group != g || !bp[b]) continue;
    const char *k;
    json_t *v;
    json_object_foreach(bp[b], k, v) {
      json_t *c = json_object_get(count, k);
      if (!c) json_object_set_new(count, k, c = json_object());
      json_t *n = json_object_get(c, json_string_value(v));
      json_object_set_new(c, json_string_value(v), json_integer(n ? json_integer_value(n) + 1 : 1));
      json_t *best = json_object_get(mode, k);
      long long have = best ? json_integer_value(json_object_get(c, json_string_value(best))) : 0;
      if (!best || (n ? json_integer_value(n) + 1 : 1) > have) json_object_set(mode, k, v);
    }
  }
  json_decref(count);
  return mode;
}

int ar_fleet_topo_findings(const struct ar_fleet *f, json_t *out) {
  json_t **bp = calloc((size_t)f->nb + 1, sizeof *bp);
  if (!bp) return 0;
  int n = 0;
  for (int b = 0; b < f->nb; b++) bp[b] = f->b[b].topo ? props(f->b[b].topo) : NULL;
  for (int g = 0; g < f->ng; g++) {
    int boxes = 0;
    for (int b = 0; b < f->nb; b++) boxes += f->b[b].group == g && bp[b];
    if (boxes < 3) continue; /* two boxes that differ: neither is the group's */
    json_t *mode = modes(f, g, bp);
    for (int b = 0; b < f->nb; b++) {
      if (f->b[b].group != g || !bp[b]) continue;
      const char *k;
      json_t *v;
      json_object_foreach(mode, k, v) {
        const char *mine = json_string_value(json_object_get(bp[b], k));
        if (!mine || !strcmp(mine, json_string_value(v))) continue;
        char line[600];
        phrase(&f->b[b], k, mine, json_string_value(v), f->b[b].topo, line, sizeof line);
        json_array_append_new(out, json_pack("{s:i, s:s}", "box", b, "text", line));
        n++;
      }
    }
    json_decref(mode);
  }
  for (int b = 0; b < f->nb; b++) json_decref(bp[b]);
  free(bp);
  return n;
}
