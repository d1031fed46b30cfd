/* by.c — `--by stack` (or a point key) for compare and table: split results into groups (the sweep's
 * stack axis, else the run's stack name; or a point value), the key dropped so the groups' records match. */
#include "analysis/analysis.h"
#include "ar.h"
#include "results.h"
#include <stdlib.h>
#include <string.h>

/* The group of rec: its point's stack (sweep --stacks), else its run's stack; or point[key]. */
static int group_of(json_t *rec, json_t *runs, const char *key, char *buf, size_t len) {
  json_t *v = json_object_get(json_object_get(rec, "point"), key);
  if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
  else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
  else if (!strcmp(key, "stack")) snprintf(buf, len, "%s", ar_rec_stack(runs, rec));
  else return -1;
  return 0;
}

/* A copy of run with stack.name = group (so labels and compare's stack lists name the group). */
static json_t *run_as(json_t *run, const char *group) {
  json_t *r = run ? json_copy(run) : json_object();
  json_t *st = json_object_get(r, "stack");
  st = json_is_object(st) ? json_copy(st) : json_object();
  json_object_set_new(st, "name", json_string(group));
  json_object_set_new(r, "stack", st);
  return r;
}

int ar_by_split(struct ar_by *b, json_t *results, json_t *runs, const char *key, char *err, size_t len) {
  memset(b, 0, sizeof *b);
  b->results = json_array();
  b->runs = json_object();
  b->groups = json_array();
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) {
    char g[128], rid[300];
    if (group_of(r, runs, key, g, sizeof g)) {
      b->without++;
      continue;
    }
    json_t *c = json_copy(r), *pt = json_object_get(r, "point");
    if (json_is_object(pt)) {
      pt = json_copy(pt);
      json_object_del(pt, key);
      if (json_object_size(pt)) json_object_set_new(c, "point", pt);
      else {
        json_decref(pt);
        json_object_del(c, "point");
      }
    }
    snprintf(rid, sizeof rid, "%s@%s", ar_rec_str(r, "run_id", ""), g);
    json_object_set_new(c, "run_id", json_string(rid));
    json_object_set_new(c, "_by", json_string(g));
    if (!json_object_get(b->runs, rid))
      json_object_set_new(b->runs, rid, run_as(json_object_get(runs, ar_rec_str(r, "run_id", "")), g));
    int seen = 0;
    size_t k;
    json_t *v;
    json_array_foreach(b->groups, k, v) seen |= !strcmp(json_string_value(v), g);
    if (!seen) json_array_append_new(b->groups, json_string(g));
    json_array_append_new(b->results, c);
  }
  if (!json_array_size(b->groups) && json_array_size(results)) {
    snprintf(err, len, "--by %s: no result record has a point value '%s' (point keys are sweep axes, e.g. np, nccl, stack)",
             key, key);
    ar_by_free(b);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_by_index(const struct ar_by *b, const char *group) {
  size_t k;
  json_t *v;
  json_array_foreach(b->groups, k, v) if (!strcmp(json_string_value(v), group)) return (int)k;
  return -1;
}

void ar_by_list(const struct ar_by *b, char *buf, size_t len) {
  size_t k, used = 0;
  json_t *v;
  buf[0] = 0;
  json_array_foreach(b->groups, k, v) {
    if (used >= len) break;
    used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", json_string_value(v));
  }
}

void ar_by_free(struct ar_by *b) {
  json_decref(b->results);
  json_decref(b->runs);
  json_decref(b->groups);
  memset(b, 0, sizeof *b);
}
