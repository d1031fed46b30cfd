/* picks.c — the one place the page reads `table --format json`'s decision per size (the pick, its
 * verdict, margin and runs needed): every section that shows a pick asks here. */
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

/* The decision of size s when table gives one per size ("decisions": [{pick, verdict, margin, runs_needed,
 * equivalent}], in the order of "sizes"); NULL for a table that marks the choice in its cells only. */
static json_t *decision(json_t *grid, size_t s) {
  json_t *d = json_array_get(json_object_get(grid, "decisions"), s);
  return json_is_object(d) ? d : NULL;
}

void ar_page_pick(json_t *grid, size_t s, struct ar_pick *out) {
  json_t *d = decision(grid, s), *cell;
  size_t i;
  memset(out, 0, sizeof *out);
  out->config = -1;
  out->margin = NAN;
  out->runs_needed = -1;
  if (d) {
    json_t *pick = json_object_get(d, "pick"), *m = json_object_get(d, "margin"), *rn = json_object_get(d, "runs_needed");
    out->config = json_is_integer(pick) ? (int)json_integer_value(pick) : -1;
    out->verdict = json_string_value(json_object_get(d, "verdict"));
    out->margin = json_is_number(m) ? json_number_value(m) : NAN;
    out->runs_needed = json_is_integer(rn) ? (int)json_integer_value(rn) : -1;
    out->equivalent = json_object_get(d, "equivalent");
    out->cell = ar_page_cell(grid, s, out->config);
    return;
  }
  /* table's cells: "best" marks the choice, "tie" a size whose choice was kept within the noise */
  json_int_t size = json_integer_value(json_array_get(json_object_get(grid, "sizes"), s));
  json_array_foreach(json_object_get(grid, "cells"), i, cell) {
    if (json_integer_value(json_object_get(cell, "size")) != size || !json_is_true(json_object_get(cell, "best")))
      continue;
    out->config = (int)json_integer_value(json_object_get(cell, "config"));
    out->cell = cell;
    out->verdict = json_is_true(json_object_get(cell, "tie")) ? "tie" : "clear";
    return;
  }
}
