/* test_picks.c — bench/page/picks.c and the answer it feeds: the pick of each size from both forms of
 * `table --format json` (cells marked best/tie; per-size decisions with verdict, lead, runs needed), the cell
 * of (size, configuration) whatever the cells' order, and the decision table's columns for each form; the bound
 * on the pick, the serving settings as tables, a comparison without a match left out, tune's tables stacking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "page/page.h"

static json_t *cell(long long size, int c, double p50, int best, int tie) {
  return json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:b, s:b}", "size", (json_int_t)size, "config",
                   c, "p50_us", p50, "p10_us", p50 * 0.9, "p90_us", p50 * 1.1, "min_us", p50 * 0.8, "max_us", p50 * 1.2,
                   "busbw_gbs", 8.0 / p50, "runs", 3, "samples", 60, "wrong", 0, "best", best, "tie", tie);
}

/* 2 configurations, sizes 8, 64, 512; the cells in an order unlike the sizes' (the page must match both keys). */
static json_t *grid(void) {
  json_t *cells = json_array();
  json_array_append_new(cells, cell(512, 1, 30.0, 1, 0));
  json_array_append_new(cells, cell(64, 1, 6.0, 0, 1));
  json_array_append_new(cells, cell(8, 0, 2.0, 0, 0));
  json_array_append_new(cells, cell(64, 0, 5.0, 1, 1));
  json_array_append_new(cells, cell(8, 1, 1.0, 1, 0));
  json_array_append_new(cells, cell(512, 0, 40.0, 0, 0));
  return json_pack("{s:s, s:i, s:s, s:s, s:s, s:[{s:s}, {s:s}], s:[i, i, i], s:o, s:s}", "dtype", "float", "ranks", 4,
                   "placement", "out", "op", "sum", "method", "buffers hot", "configs", "label", "mpi", "label",
                   "shm-oneshot", "sizes", 8, 64, 512, "cells", cells, "correction", "Holm");
}

static void test_cells_form(void **st) {
  (void)st;
  json_t *g = grid();
  struct ar_pick k;
  ar_page_pick(g, 0, &k);
  assert_int_equal(k.config, 1);
  assert_string_equal(k.verdict, "clear");
  assert_true(json_real_value(json_object_get(k.cell, "p50_us")) == 1.0);
  ar_page_pick(g, 1, &k);
  assert_int_equal(k.config, 0);
  assert_string_equal(k.verdict, "tie");
  assert_true(json_real_value(json_object_get(k.cell, "p50_us")) == 5.0);
  assert_true(isnan(k.lead) && isnan(k.margin) && k.runs_needed == -1);
  ar_page_pick(g, 2, &k);
  assert_int_equal(k.config, 1);
  assert_true(json_real_value(json_object_get(k.cell, "p50_us")) == 30.0);
  assert_true(json_real_value(json_object_get(ar_page_cell(g, 2, 0), "p50_us")) == 40.0);
  assert_null(ar_page_cell(g, 3, 0));
  assert_null(ar_page_cell(g, 0, 2));
  json_decref(g);
}

/* Issue 34's form: one decision per size that had a column in play (512 has none here). */
static json_t *decided(void) {
  json_t *g = grid();
  json_object_set_new(g, "decisions",
                      json_pack("[{s:I, s:i, s:s, s:f, s:f, s:i, s:[i]}, {s:I, s:i, s:s, s:f, s:n, s:i, s:[i, i]}]",
                                "size", (json_int_t)8, "pick", 1, "verdict", "clear", "margin", 0.05, "lead", 1.0,
                                "runs_needed", 0, "equivalent", 1, "size", (json_int_t)64, "pick", 1, "verdict",
                                "undecided", "margin", 0.05, "lead", "runs_needed", 7, "equivalent", 0, 1));
  return g;
}

static void test_decisions_form(void **st) {
  (void)st;
  json_t *g = decided();
  struct ar_pick k;
  ar_page_pick(g, 1, &k); /* the decision, not the cells' best (config 0) */
  assert_int_equal(k.config, 1);
  assert_string_equal(k.verdict, "undecided");
  assert_int_equal(k.runs_needed, 7);
  assert_true(isnan(k.lead));
  assert_true(k.margin == 0.05);
  assert_int_equal(json_array_size(k.equivalent), 2);
  assert_true(json_real_value(json_object_get(k.cell, "p50_us")) == 6.0);
  ar_page_pick(g, 0, &k);
  assert_true(k.config == 1 && k.lead == 1.0 && k.runs_needed == 0);
  assert_string_equal(k.verdict, "clear");
  ar_page_pick(g, 2, &k);
  assert_int_equal(k.config, -1);
  assert_null(k.cell);
  json_decref(g);
}

/* The answer section of a page holding one grid: its text. */
static char *answer(json_t *g) {
  struct ar_page p = {0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  p.table = json_pack("{s:[O]}", "grids", g);
  struct ar_render r = {f, &p, 0, json_array()};
  ar_page_answer(&r);
  json_decref(r.left_out);
  fclose(f);
  json_decref(p.table);
  return buf;
}

static void test_answer_rows(void **st) {
  (void)st;
  json_t *g = grid(), *d = decided();
  char *a = answer(g), *b = answer(d);
  assert_non_null(strstr(a, "<tr data-size=\"64\"><td class=\"size\" data-h=\"size\">64</td><td class=\"l label pick\" "
                            "data-h=\"pick\" data-config=\"0\">"));
  assert_non_null(strstr(a, "data-p50=\"5\" title=\"3 runs (60 samples); p10-p90 4.50-5.50 us"));
  assert_null(strstr(a, "to decide"));
  assert_non_null(strstr(b, ">to decide</th>"));
  assert_non_null(strstr(b, "<td data-h=\"lead\">+100.0%</td><td data-h=\"to decide\">-</td></tr>")); /* 8: decided */
  assert_non_null(strstr(b, "? undecided</td><td data-h=\"runs\">3</td><td data-h=\"lead\">-</td><td class=\"l\" "
                            "data-h=\"to decide\">7 runs a side</td>")); /* 64: 7 runs would decide */
  assert_non_null(strstr(b, "<tr data-size=\"512\"><td class=\"size\" data-h=\"size\">512</td><td class=\"l\" colspan=\"4\" "
                            "data-h=\"pick\">nothing eligible"));
  assert_null(strstr(b, "can be slower by")); /* a table without bounds (before issue 46): no bound column */
  assert_non_null(strstr(a, "Crossovers:</strong> shm-oneshot \u2192 mpi between 8 and 64; mpi \u2192 shm-oneshot between 64 and 512"));
  assert_non_null(strstr(b, "Crossovers:</strong> none (shm-oneshot is picked at every size)"));
  free(a);
  free(b);
  json_decref(g);
  json_decref(d);
}

/* Issue 46: what would decide is read in table's unit (runs_needed_unit, one_launch), and never above the cap of a
 * printed "repeat N" (50): launches a side between launches, "one launch a side", "over 50 ... the bound stands". */
static void test_to_decide_unit(void **st) {
  (void)st;
  json_t *d = decided(), *u = json_array_get(json_object_get(d, "decisions"), 1);
  struct ar_pick k;
  json_object_set_new(u, "runs_needed_unit", json_string("launches"));
  json_object_set_new(u, "one_launch", json_false());
  ar_page_pick(d, 1, &k);
  assert_true(k.launches && !k.one_launch && k.runs_needed == 7);
  char *a = answer(d);
  assert_non_null(strstr(a, "data-h=\"to decide\">7 launches a side</td>"));
  assert_null(strstr(a, "7 runs"));
  free(a);
  json_object_set_new(u, "one_launch", json_true());
  a = answer(d);
  assert_non_null(strstr(a, "data-h=\"to decide\">one launch a side: record 3+ launches of each</td>"));
  free(a);
  json_object_set_new(u, "one_launch", json_false());
  json_object_set_new(u, "runs_needed", json_integer(163));
  a = answer(d);
  assert_non_null(strstr(a, "data-h=\"to decide\">over 50 launches a side: the bound stands</td>"));
  assert_null(strstr(a, "163"));
  free(a);
  json_object_set_new(u, "runs_needed_unit", json_string("runs"));
  a = answer(d);
  assert_non_null(strstr(a, "data-h=\"to decide\">over 50 runs a side: the bound stands</td>"));
  free(a);
  json_decref(d);
}

/* Issue 46's bound on the pick (bound_pct, bound_vs): shown per size, "unknown" when null, the column only when
 * table gives it; read by picks.c. */
static void test_bound(void **st) {
  (void)st;
  json_t *d = decided(), *ds = json_object_get(d, "decisions");
  json_object_set_new(json_array_get(ds, 0), "bound_pct", json_real(3.25));
  json_object_set_new(json_array_get(ds, 0), "bound_vs", json_string("mpi"));
  json_object_set_new(json_array_get(ds, 1), "bound_pct", json_null());
  struct ar_pick k;
  ar_page_pick(d, 0, &k);
  assert_true(k.has_bound && k.bound_pct == 3.25);
  assert_string_equal(k.bound_vs, "mpi");
  ar_page_pick(d, 1, &k);
  assert_true(k.has_bound && isnan(k.bound_pct) && !k.bound_vs);
  char *b = answer(d);
  assert_non_null(strstr(b, "<th class=\"l\" title=\"how much slower than the best alternative the pick can be"));
  assert_non_null(strstr(b, "<td class=\"l bound\" data-h=\"can be slower by\">\u2264 3.2% than mpi</td>"));
  assert_non_null(strstr(b, "<td class=\"l bound\" data-h=\"can be slower by\">unknown</td>"));
  free(b);
  /* a negative bound: the pick is faster than every alternative by at least that much, and says so */
  json_object_set_new(json_array_get(ds, 1), "bound_pct", json_real(-12.5));
  json_object_set_new(json_array_get(ds, 1), "bound_vs", json_string("shm-staged"));
  b = answer(d);
  assert_non_null(strstr(b, "<td class=\"l bound\" data-h=\"can be slower by\">none: \u2265 12.5% faster than shm-staged</td>"));
  free(b);
  json_decref(d);
}

static char *serving(const char *json) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ar_page_serving(f, json);
  fclose(f);
  return buf;
}

/* serving.json as a table per engine, a row per group; none: one line saying why (tune's "none"). */
static void test_serving(void **st) {
  (void)st;
  char *a = serving("{\"engines\": {\"vllm\": [{\"ranks\": 8, \"dtype\": \"bfloat16\", \"placement\": \"out\", "
                    "\"nodes\": 1, \"custom_allreduce\": true, \"custom_max_bytes\": 524288, \"custom_max_tokens\": 64, "
                    "\"engine_custom_max_bytes\": 262144, \"flags\": [\"--x\"], \"env\": {\"NCCL_TUNER_PLUGIN\": \"DIR/t.so\"}, "
                    "\"needs_patch\": [{\"what\": \"cap 512K\"}], \"engine_runs\": \"custom up to 256K\"}], \"sglang\": []}, "
                    "\"engine_sources\": {\"vllm\": \"main abc\"}}");
  assert_non_null(strstr(a, "<caption>vllm (main abc)</caption>"));
  assert_null(strstr(a, "sglang")); /* an engine without a group: no empty table */
  assert_non_null(strstr(a, "data-h=\"group\">TP 8, bfloat16, out-of-place</td><td class=\"l\" data-h=\"custom allreduce\">on</td>"));
  assert_non_null(strstr(a, ">512K (524288 B); 64 tokens<br>engine's kernels: 256K (262144 B)</td>"));
  assert_non_null(strstr(a, "data-h=\"flags\"><code>--x</code></td>"));
  assert_non_null(strstr(a, "data-h=\"env\"><code>NCCL_TUNER_PLUGIN=DIR/t.so</code></td>"));
  assert_non_null(strstr(a, "data-h=\"needs a patch\">cap 512K</td>"));
  assert_null(strstr(a, "No serving settings"));
  char *b = serving("{\"engines\": {\"vllm\": [], \"sglang\": []}, \"none\": \"no GPU results: host backends only\"}");
  assert_non_null(strstr(b, "<p class=\"none\">No serving settings: no GPU results: host backends only.</p>"));
  assert_null(strstr(b, "<table"));
  free(a);
  free(b);
}

/* A comparison without a match is not shown (no "Every match (0)"); when none has one the section is left out,
 * and why is recorded for the page's summary. */
static void test_compare_left_out(void **st) {
  (void)st;
  struct ar_page p = {0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  p.plots = json_object();
  p.compare_how = "stacks";
  p.compare = json_pack("{s:[{s:{s:s}, s:{s:s}, s:[], s:[], s:[{}], s:[{}, {}]}]}", "comparisons", "a", "file", "a100", "b",
                        "file", "h100x16", "matches", "summary", "only_a", "only_b");
  struct ar_render r = {f, &p, 0, json_array()};
  ar_page_evidence(&r);
  fclose(f);
  assert_null(strstr(buf, "Every match"));
  assert_null(strstr(buf, "id=\"compare\""));
  assert_int_equal(json_array_size(r.left_out), 1);
  assert_string_equal(json_string_value(json_object_get(json_array_get(r.left_out, 0), "id")), "compare");
  assert_non_null(strstr(json_string_value(json_object_get(json_array_get(r.left_out, 0), "why")),
                         "h100x16 against a100: no configuration measured in both"));
  json_decref(r.left_out);
  json_decref(p.compare);
  json_decref(p.plots);
  free(buf);
}

/* tune's markdown tables: every body cell names its column (a phone stacks the rows). */
static void test_markdown_cells(void **st) {
  (void)st;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ar_html_markdown(f, "| sizes | pick |\n|---|---|\n| 8 .. 64 | mpi |\n");
  fclose(f);
  assert_non_null(strstr(buf, "<table class=\"md stack\">"));
  assert_non_null(strstr(buf, "<tr><td data-h=\"sizes\">8 .. 64</td><td data-h=\"pick\">mpi</td></tr>"));
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cells_form), cmocka_unit_test(test_decisions_form),
                                     cmocka_unit_test(test_answer_rows), cmocka_unit_test(test_bound), cmocka_unit_test(test_to_decide_unit),
                                     cmocka_unit_test(test_serving), cmocka_unit_test(test_compare_left_out),
                                     cmocka_unit_test(test_markdown_cells)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
