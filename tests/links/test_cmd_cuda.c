/* test_cmd_cuda.c — bench/links/cmd_cuda.c: where a GPU pair's link records stand in the topology (bus ids,
 * path class, bottleneck link, per-link score), on a real hwloc topology (DGX-2H, 16 V100 behind PLX switches,
 * ../shared/topologies; skipped when absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "links/cmd_cuda.h"
#include "topo.h"

#define XML "topologies/nvidia-dgx2h-16xV100-plx-gen3-2s-xeon8174.xml"

static struct ar_topo *topo;

static json_t *where(const char *s, const char *d, double gbs) {
  json_t *r = json_object();
  ar_links_gpu_where(r, topo, s, d, gbs);
  return r;
}

static double num(json_t *r, const char *k) {
  json_t *v = json_object_get(r, k);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static void pair(const char *s, const char *d, const char *path) {
  json_t *r = where(s, d, 12.6);
  assert_string_equal(json_string_value(json_object_get(r, "path")), path);
  assert_string_equal(json_string_value(json_object_get(r, "src_id")), s);
  assert_string_equal(json_string_value(json_object_get(r, "dst_id")), d);
  double bn = num(r, "bottleneck_gbs");
  assert_true(fabs(bn - 15.754) < 0.01); /* PCIe Gen3 x16: 8 GT/s x 16 x 128/130 / 8 */
  assert_true(fabs(num(r, "score") - 12.6 / bn) < 1e-12);
  json_decref(r);
}

static void test_paths(void **st) {
  (void)st;
  pair("0000:34:00.0", "0000:36:00.0", "PIX");  /* GPU0-GPU1: one switch */
  pair("0000:34:00.0", "0000:39:00.0", "PXB");  /* GPU0-GPU2: two switch levels */
  pair("0000:34:00.0", "0000:57:00.0", "NODE"); /* GPU0-GPU4: two host bridges of one NUMA node */
  pair("0000:b7:00.0", "0000:34:00.0", "SYS");  /* GPU8-GPU0: across the sockets */
  pair("34:00.0", "0000:36:00.0", "PIX");       /* a bus id without domain */
}

static void test_unknown(void **st) {
  (void)st;
  json_t *r = where("0000:34:00.0", "0000:34:00.0", 30.0); /* two ranks on one GPU */
  assert_string_equal(json_string_value(json_object_get(r, "path")), "X");
  assert_true(json_is_null(json_object_get(r, "bottleneck_gbs")));
  assert_true(json_is_null(json_object_get(r, "score")));
  json_decref(r);
  r = where("0000:34:00.0", "0000:ff:00.0", 30.0); /* not in the topology */
  assert_string_equal(json_string_value(json_object_get(r, "path")), "?");
  assert_true(json_is_null(json_object_get(r, "bottleneck_gbs")));
  assert_true(json_is_null(json_object_get(r, "score")));
  json_decref(r);
  r = where("", NULL, 30.0);
  assert_string_equal(json_string_value(json_object_get(r, "src_id")), "?");
  assert_string_equal(json_string_value(json_object_get(r, "dst_id")), "?");
  assert_string_equal(json_string_value(json_object_get(r, "path")), "?");
  json_decref(r);
  r = where("0000:34:00.0", "0000:36:00.0", NAN); /* latency records: no GB/s, no score */
  assert_string_equal(json_string_value(json_object_get(r, "path")), "PIX");
  assert_true(json_is_null(json_object_get(r, "score")));
  json_decref(r);
}

int main(void) {
  const char *sh = getenv("ARBENCH_SHARED");
  char path[4096], err[256];
  snprintf(path, sizeof path, "%s/" XML, sh ? sh : "");
  if (!sh || access(path, R_OK)) {
    printf("skipped: no %s (ARBENCH_SHARED=%s)\n", XML, sh ? sh : "(unset)");
    return 77;
  }
  if (ar_topo_load(&topo, path, err, sizeof err)) {
    printf("cannot load %s: %s\n", path, err);
    return 1;
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_paths), cmocka_unit_test(test_unknown)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  ar_topo_destroy(topo);
  return rc;
}
