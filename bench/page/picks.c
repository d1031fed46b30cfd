/* picks.c — the one place the page reads `table --format json`'s decision per size (the pick, its
 * verdict, lead, margin and runs needed): every section that shows a pick asks here. */
#include "page/page.h"
#include <math.h>
#include <string.h>

json_t *ar_page_cell(json_t *grid, size_t s, int c) {
  json_t *sizes = json_object_get(grid, "sizes"), *cell;
  json_int_t size = json_integer_value(json_array_get(sizes, s));
  size_t i;
  if (s >= json_array_size(sizes) || c < 0) return NULL;
  json_array_foreach(json_object_get(grid, "cells"), i, cell)
    if (json_integer_value(json_object_get(cell, "size")) == size && json_integer_value(json_object_get(cell, "config")) == c)
      return cell;
  return NULL;
}

static double number(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The decision of size index s when table gives decisions ("decisions": one object per size that had a
 * column in play, with its "size"); *given = whether the grid has decisions at all. */
static json_t *decision(json_t *grid, size_t s, int *given) {
  json_t *ds = json_object_get(grid, "decisions"), *d;
  json_int_t size = json_integer_value(json_array_get(json_object_get(grid, "sizes"), s));
  size_t i;
  *given = json_is_array(ds);
  json_array_foreach(ds, i, d) if (json_integer_value(json_object_get(d, "size")) == size) return d;
  return NULL;
}

/* A table that marks its choice in the cells only: "best" the choice, "tie" a size decided within the noise. */
static void from_cells(json_t *grid, size_t s, struct ar_pick *out) {
  json_int_t size = json_integer_value(json_array_get(json_object_get(grid, "sizes"), s));
  json_t *cell;
  size_t i;
  json_array_foreach(json_object_get(grid, "cells"), i, cell) {
    if (json_integer_value(json_object_get(cell, "size")) != size || !json_is_true(json_object_get(cell, "best")))
      continue;
    out->config = (int)json_integer_value(json_object_get(cell, "config"));
    out->cell = cell;
    out->verdict = json_is_true(json_object_get(cell, "tie")) ? "tie" : "clear";
    return;
  }
}

void ar_page_pick(json_t *grid, size_t s, struct ar_pick *out) {
  int given;
  json_t *d = decision(grid, s, &given), *rn;
  memset(out, 0, sizeof *out);
  out->config = -1;
  out->margin = out->lead = out->bound_pct = NAN;
  out->runs_needed = -1;
  if (!given) {
    from_cells(grid, s, out);
    return;
  }
  if (!d) return; /* no column in play at this size */
  out->config = json_is_integer(json_object_get(d, "pick")) ? (int)json_integer_value(json_object_get(d, "pick")) : -1;
  out->verdict = json_string_value(json_object_get(d, "verdict"));
  out->margin = number(d, "margin");
  out->lead = number(d, "lead");
  rn = json_object_get(d, "runs_needed");
  out->runs_needed = json_is_integer(rn) ? (int)json_integer_value(rn) : -1;
  out->launches = !strcmp(ar_pj_str(d, "runs_needed_unit"), "launches");
  out->one_launch = json_is_true(json_object_get(d, "one_launch"));
  out->equivalent = json_object_get(d, "equivalent");
  out->cell = ar_page_cell(grid, s, out->config);
  out->has_bound = json_object_get(d, "bound_pct") != NULL;
  out->bound_pct = number(d, "bound_pct");
  out->bound_vs = json_string_value(json_object_get(d, "bound_vs"));
}
