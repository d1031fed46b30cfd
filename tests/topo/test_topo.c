/* test_topo.c — topology discovery on the project's own hwloc XML fixtures (tests/fixtures/topo):
 * GPU list and order, every path class, links, NUMA/package, binding plans, summary digest, bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ar.h"
#include "topo.h"

static char fixture_dir[1024];

static void fixture(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", fixture_dir, name); }

static struct ar_topo *load_fixture(const char *name) {
  char path[1200], err[AR_ERRLEN] = "";
  struct ar_topo *t = NULL;
  fixture(path, sizeof path, name);
  int rc = ar_topo_load(&t, path, err, sizeof err);
  if (rc) fprintf(stderr, "load %s: %s\n", path, err);
  assert_int_equal(rc, 0);
  assert_non_null(t);
  return t;
}

/* Matrix rows as "X PIX ..." strings against ar_topo_path. */
static void assert_matrix(const struct ar_topo *t, const char *const *rows) {
  int n = ar_topo_ngpus(t);
  for (int i = 0; i < n; i++) {
    char got[256] = "";
    for (int j = 0; j < n; j++) {
      if (j) strcat(got, " ");
      strcat(got, ar_path_name(ar_topo_path(t, i, j, NULL, NULL)));
    }
    assert_string_equal(got, rows[i]);
  }
}

static void assert_gpu(const struct ar_topo *t, int i, const char *busid, unsigned dev, unsigned cls, int numa,
                       int pkg, double link, const char *cpus) {
  const struct ar_gpu_info *g = ar_topo_gpu(t, i);
  assert_non_null(g);
  assert_string_equal(g->busid, busid);
  assert_int_equal(g->vendor, 0x10de);
  assert_int_equal(g->device, dev);
  assert_int_equal(g->pci_class, cls);
  assert_int_equal(g->numa, numa);
  assert_int_equal(g->package, pkg);
  assert_float_equal(g->link_gbs, link, 0.01);
  assert_int_equal(g->cuda, -1);
  assert_string_equal(g->cpuset, cpus);
}

static double path_gbs(const struct ar_topo *t, int i, int j, bool *same) {
  double bw = -1;
  ar_topo_path(t, i, j, &bw, same);
  return bw;
}

static void test_path_names(void **state) {
  (void)state;
  const char *names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int p = AR_PATH_X; p <= AR_PATH_SYS; p++) assert_string_equal(ar_path_name((enum ar_path)p), names[p]);
}

/* One switch; the GPU's audio function (10de:22e8, class 0403) and the NIC under it are not GPUs. */
static void test_pix(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("pix.xml");
  assert_int_equal(ar_topo_ngpus(t), 2);
  assert_gpu(t, 0, "0000:03:00.0", 0x2bb1, 0x0300, 0, 0, 31.51, "0-3");
  assert_gpu(t, 1, "0000:05:00.0", 0x2bb1, 0x0302, 0, 0, 31.51, "0-3");
  assert_matrix(t, (const char *const[]){"X PIX", "PIX X"});
  assert_float_equal(path_gbs(t, 0, 1, NULL), 31.51, 0.01);
  assert_int_equal(ar_topo_nnuma(t), 1);
  ar_topo_destroy(t);
}

/* Two switch levels; the L2a uplink (15.75) is on the path, the L1 uplink (7.88) above the common
 * bridge is not. */
static void test_pxb(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("pxb.xml");
  assert_int_equal(ar_topo_ngpus(t), 2);
  assert_gpu(t, 0, "0000:15:00.0", 0x2bb1, 0x0302, 0, 0, 31.51, "0-3");
  assert_gpu(t, 1, "0000:18:00.0", 0x2bb1, 0x0302, 0, 0, 31.51, "0-3");
  assert_matrix(t, (const char *const[]){"X PXB", "PXB X"});
  assert_float_equal(path_gbs(t, 0, 1, NULL), 15.75, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, NULL, 2), 15.75, 0.01);
  assert_float_equal(ar_topo_gpu_link_min_gbs(t), 31.51, 0.01);
  ar_topo_destroy(t);
}

/* Two root ports of one host bridge; root ports report 2.00 GB/s while the GPUs report 15.75. */
static void test_phb(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("phb.xml");
  assert_int_equal(ar_topo_ngpus(t), 2);
  assert_gpu(t, 0, "0000:18:00.0", 0x1eb8, 0x0302, 0, 0, 15.75, "0-3");
  assert_gpu(t, 1, "0000:19:00.0", 0x1eb8, 0x0302, 0, 0, 15.75, "0-3");
  assert_matrix(t, (const char *const[]){"X PHB", "PHB X"});
  assert_float_equal(path_gbs(t, 0, 1, NULL), 2.00, 0.01);
  assert_float_equal(path_gbs(t, 0, 0, NULL), 15.75, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, NULL, 2), 2.00, 0.01);
  assert_float_equal(ar_topo_gpu_link_min_gbs(t), 15.75, 0.01);
  ar_topo_destroy(t);
}

/* Two host bridges, one NUMA node; the ASPEED BMC VGA (1a03:2000, class 0300) and an NVSwitch
 * function (10de:1af1, class 0680) are not GPUs. */
static void test_node(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("node.xml");
  assert_int_equal(ar_topo_ngpus(t), 2);
  assert_gpu(t, 0, "0000:41:00.0", 0x2bb1, 0x0302, 0, 0, 63.02, "0-3");
  assert_gpu(t, 1, "0000:61:00.0", 0x2bb1, 0x0302, 0, 0, 63.02, "0-3");
  assert_matrix(t, (const char *const[]){"X NODE", "NODE X"});
  assert_float_equal(path_gbs(t, 0, 1, NULL), 63.02, 0.01);
  ar_topo_destroy(t);
}

/* Package 0 split into two NUMA nodes (SNC2), package 1 one node in PCI domain 0001 (sorted after
 * domain 0000 although its bus number is lower). */
static void test_sys(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("sys.xml");
  assert_int_equal(ar_topo_ngpus(t), 3);
  assert_gpu(t, 0, "0000:31:00.0", 0x20b5, 0x0302, 0, 0, 31.51, "0-1");
  assert_gpu(t, 1, "0000:51:00.0", 0x20b5, 0x0302, 1, 0, 31.51, "2-3");
  assert_gpu(t, 2, "0001:11:00.0", 0x20b5, 0x0302, 2, 1, 31.51, "4-7");
  assert_matrix(t, (const char *const[]){"X SYS SYS", "SYS X SYS", "SYS SYS X"});
  bool same = false;
  assert_float_equal(path_gbs(t, 0, 1, &same), 31.51, 0.01);
  assert_true(same);
  path_gbs(t, 0, 2, &same);
  assert_false(same);
  path_gbs(t, 1, 2, &same);
  assert_false(same);
  assert_int_equal(ar_topo_nnuma(t), 3);
  ar_topo_destroy(t);
}

static const char *const two_socket_matrix[] = {
    "X PIX NODE NODE SYS SYS SYS SYS", "PIX X NODE NODE SYS SYS SYS SYS", "NODE NODE X PIX SYS SYS SYS SYS",
    "NODE NODE PIX X SYS SYS SYS SYS", "SYS SYS SYS SYS X PIX PXB PXB",   "SYS SYS SYS SYS PIX X PXB PXB",
    "SYS SYS SYS SYS PXB PXB X PIX",   "SYS SYS SYS SYS PXB PXB PIX X"};

/* Two sockets, 8 GPUs: PIX, NODE, PXB and SYS in one box; written out of bus order in the file. */
static void test_two_socket(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("2s8g.xml");
  const char *bus[] = {"0000:18:00.0", "0000:19:00.0", "0000:3b:00.0", "0000:3c:00.0",
                       "0000:86:00.0", "0000:87:00.0", "0000:93:00.0", "0000:94:00.0"};
  assert_int_equal(ar_topo_ngpus(t), 8);
  for (int i = 0; i < 8; i++)
    assert_gpu(t, i, bus[i], 0x2bb1, i == 2 || i == 3 ? 0x0300 : 0x0302, i < 4 ? 0 : 1, i < 4 ? 0 : 1, 63.02,
               i < 4 ? "0-3,8-11" : "4-7,12-15");
  assert_matrix(t, two_socket_matrix);
  /* GPU2/3 sit behind a Gen4 uplink: 31.51 to anyone outside their switch, 63.02 between them. */
  assert_float_equal(path_gbs(t, 2, 3, NULL), 63.02, 0.01);
  assert_float_equal(path_gbs(t, 0, 2, NULL), 31.51, 0.01);
  assert_float_equal(path_gbs(t, 3, 7, NULL), 31.51, 0.01);
  assert_float_equal(path_gbs(t, 0, 7, NULL), 63.02, 0.01);
  assert_float_equal(path_gbs(t, 4, 6, NULL), 63.02, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, (const int[]){0, 1}, 2), 63.02, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, (const int[]){0, 2}, 2), 31.51, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, (const int[]){4, 5, 6, 7}, 4), 63.02, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, NULL, 8), 31.51, 0.01);
  assert_float_equal(ar_topo_bottleneck_gbs(t, (const int[]){5}, 1), 63.02, 0.01);
  assert_int_equal(ar_topo_nnuma(t), 2);
  ar_topo_destroy(t);
}

static void test_busid_lookup(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("2s8g.xml");
  assert_int_equal(ar_topo_gpu_of_busid(t, "0000:93:00.0"), 6);
  assert_int_equal(ar_topo_gpu_of_busid(t, "93:00.0"), 6);
  assert_int_equal(ar_topo_gpu_of_busid(t, "00000000:93:00.0"), 6); /* NVML's 8-digit domain */
  assert_int_equal(ar_topo_gpu_of_busid(t, "0000:3B:00.0"), 2);     /* CUDA prints upper case */
  assert_int_equal(ar_topo_gpu_of_busid(t, "0000:1c:00.0"), -1);    /* the NIC */
  assert_int_equal(ar_topo_gpu_of_busid(t, "0000:3b:00.1"), -1);    /* GPU audio function */
  assert_int_equal(ar_topo_gpu_of_busid(t, "0001:18:00.0"), -1);
  assert_int_equal(ar_topo_gpu_of_busid(t, "nonsense"), -1);
  assert_int_equal(ar_topo_gpu_of_cuda(t, 0), -1); /* XML topology: not this machine's devices */
  assert_int_equal(ar_topo_map_cuda(t), 0);
  ar_topo_destroy(t);
}

static void assert_plan(const struct ar_topo *t, int gpu, int lr, int ln, const char *cpus, int numa) {
  char got[256] = "";
  int nm = -7;
  assert_int_equal(ar_topo_bind_plan(t, gpu, lr, ln, got, sizeof got, &nm), 0);
  assert_string_equal(got, cpus);
  assert_int_equal(nm, numa);
}

/* Cores 0-3 (PUs n, n+8) on NUMA 0, cores 4-7 on NUMA 1. */
static void test_bind_plan(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("2s8g.xml");
  assert_plan(t, 5, 0, 1, "4-7,12-15", 1);
  assert_plan(t, 0, 3, 8, "0-3,8-11", 0);
  const char *four[] = {"0-1,8-9", "2-3,10-11", "4-5,12-13", "6-7,14-15"};
  for (int r = 0; r < 4; r++) assert_plan(t, -1, r, 4, four[r], r < 2 ? 0 : 1);
  assert_plan(t, -1, 0, 1, "0-3,8-11", 0);
  assert_plan(t, -1, 0, 3, "0-1,8-9", 0);
  assert_plan(t, -1, 1, 3, "2-3,10-11", 0);
  assert_plan(t, -1, 2, 3, "4-7,12-15", 1);
  /* 16 ranks on 8 cores: two per core, NUMA-balanced. */
  assert_plan(t, -1, 0, 16, "0,8", 0);
  assert_plan(t, -1, 4, 16, "0,8", 0);
  assert_plan(t, -1, 5, 16, "1,9", 0);
  assert_plan(t, -1, 15, 16, "7,15", 1);
  char buf[64];
  assert_int_equal(ar_topo_bind_plan(t, 8, 0, 1, buf, sizeof buf, NULL), -AR_EINVAL);
  assert_int_equal(ar_topo_bind_plan(t, -1, 0, 0, buf, sizeof buf, NULL), -AR_EINVAL);
  assert_int_equal(ar_topo_bind_plan(t, -1, 2, 2, buf, sizeof buf, NULL), -AR_EINVAL);
  /* An XML topology is not this machine: refuse to bind, say why. */
  char desc[512] = "";
  assert_int_equal(ar_topo_bind(t, 0, 0, 1, desc, sizeof desc), -AR_EINVAL);
  assert_non_null(strstr(desc, "not this machine"));
  assert_int_equal(ar_topo_numa_of_self(t), -1);
  ar_topo_destroy(t);
}

static const char *summary_digest(const char *path_or_null, const char *name) {
  static char digest[64];
  char path[1200], err[AR_ERRLEN];
  struct ar_topo *t = NULL;
  if (name) fixture(path, sizeof path, name);
  assert_int_equal(ar_topo_load(&t, name ? path : path_or_null, err, sizeof err), 0);
  json_t *s = ar_topo_summary(t);
  snprintf(digest, sizeof digest, "%s", json_string_value(json_object_get(s, "digest")));
  json_decref(s);
  ar_topo_destroy(t);
  return digest;
}

static void test_summary(void **state) {
  (void)state;
  struct ar_topo *t = load_fixture("2s8g.xml");
  json_t *s = ar_topo_summary(t);
  assert_true(json_is_object(s));
  assert_int_equal(json_integer_value(json_object_get(s, "numa_nodes")), 2);
  assert_int_equal(json_integer_value(json_object_get(s, "packages")), 2);
  assert_int_equal(json_integer_value(json_object_get(s, "cores")), 8);
  assert_int_equal(json_integer_value(json_object_get(s, "pus")), 16);
  json_t *gpus = json_object_get(s, "gpus");
  assert_int_equal(json_array_size(gpus), 8);
  json_t *g6 = json_array_get(gpus, 6);
  assert_string_equal(json_string_value(json_object_get(g6, "busid")), "0000:93:00.0");
  assert_string_equal(json_string_value(json_object_get(g6, "pci_id")), "10de:2bb1");
  assert_int_equal(json_integer_value(json_object_get(g6, "numa")), 1);
  assert_float_equal(json_real_value(json_object_get(g6, "link_gbs")), 63.02, 1e-9);
  assert_true(json_is_null(json_object_get(g6, "cuda")));
  json_t *paths = json_object_get(s, "paths");
  for (int i = 0; i < 8; i++) {
    char row[256] = "";
    for (int j = 0; j < 8; j++) {
      if (j) strcat(row, " ");
      strcat(row, json_string_value(json_array_get(json_array_get(paths, (size_t)i), (size_t)j)));
    }
    assert_string_equal(row, two_socket_matrix[i]);
  }
  assert_float_equal(json_real_value(json_object_get(s, "bottleneck_gbs")), 31.51, 1e-9);
  assert_float_equal(json_real_value(json_object_get(s, "gpu_link_min_gbs")), 63.02, 1e-9);
  assert_true(json_is_true(json_array_get(json_array_get(json_object_get(s, "same_package"), 0), 3)));
  assert_true(json_is_false(json_array_get(json_array_get(json_object_get(s, "same_package"), 0), 4)));
  assert_non_null(strstr(json_string_value(json_object_get(s, "source")), "2s8g.xml"));
  const char *d = json_string_value(json_object_get(s, "digest"));
  assert_int_equal(strlen(d), strlen("fnv1a64:") + 16);
  assert_int_equal(strncmp(d, "fnv1a64:", 8), 0);
  /* Same box, same digest (whatever the file is called); another box, another digest. */
  char d1[64];
  snprintf(d1, sizeof d1, "%s", d);
  assert_string_equal(summary_digest(NULL, "2s8g.xml"), d1);
  char copy[] = "/tmp/arbench-topo-copy-XXXXXX";
  int fd = mkstemp(copy);
  assert_true(fd >= 0);
  close(fd);
  char src[1200], cmd[2600];
  fixture(src, sizeof src, "2s8g.xml");
  snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", src, copy);
  assert_int_equal(system(cmd), 0);
  assert_string_equal(summary_digest(copy, NULL), d1);
  unlink(copy);
  assert_string_not_equal(summary_digest(NULL, "pix.xml"), d1);
  char d2[64];
  snprintf(d2, sizeof d2, "%s", summary_digest(NULL, "sys.xml"));
  assert_string_not_equal(summary_digest(NULL, "pxb.xml"), d2);
  json_decref(s);
  ar_topo_destroy(t);
}

static void assert_load_fails(const char *path, const char *expect) {
  char err[AR_ERRLEN] = "";
  struct ar_topo *t = (struct ar_topo *)&err; /* must be reset to NULL */
  assert_int_equal(ar_topo_load(&t, path, err, sizeof err), -AR_EINVAL);
  assert_null(t);
  assert_null(strchr(err, '\n'));
  if (!strstr(err, expect)) fail_msg("message '%s' lacks '%s'", err, expect);
}

static void test_bad_files(void **state) {
  (void)state;
  char path[1200];
  assert_load_fails("/nonexistent/arbench.xml", "/nonexistent/arbench.xml");
  assert_load_fails("/nonexistent/arbench.xml", "No such file");
  fixture(path, sizeof path, "nccl-format.xml"); /* an NCCL topology dump loads (test_topo_nccl.c) */
  struct ar_topo *nt = NULL;
  char nerr[AR_ERRLEN] = "";
  assert_int_equal(ar_topo_load(&nt, path, nerr, sizeof nerr), 0);
  assert_int_equal(ar_topo_ngpus(nt), 1);
  ar_topo_destroy(nt);
  assert_load_fails(fixture_dir, "is a directory, not a topology XML");
  char trunc[] = "/tmp/arbench-topo-trunc-XXXXXX";
  int fd = mkstemp(trunc);
  assert_true(fd >= 0);
  close(fd);
  char src[1200], cmd[2600];
  fixture(src, sizeof src, "pix.xml");
  snprintf(cmd, sizeof cmd, "head -c 1500 '%s' > '%s'", src, trunc);
  assert_int_equal(system(cmd), 0);
  assert_load_fails(trunc, "malformed or truncated");
  snprintf(cmd, sizeof cmd, "echo 'not xml at all' > '%s'", trunc);
  assert_int_equal(system(cmd), 0);
  assert_load_fails(trunc, "not an hwloc XML topology");
  unlink(trunc);
  /* HWLOC_XMLFILE is honoured when no file is given, and named in the error. */
  setenv("HWLOC_XMLFILE", "/nonexistent/env.xml", 1);
  assert_load_fails(NULL, "HWLOC_XMLFILE");
  fixture(path, sizeof path, "sys.xml");
  setenv("HWLOC_XMLFILE", path, 1);
  struct ar_topo *t = NULL;
  char err[AR_ERRLEN];
  assert_int_equal(ar_topo_load(&t, NULL, err, sizeof err), 0);
  assert_int_equal(ar_topo_ngpus(t), 3);
  assert_string_equal(ar_topo_source(t), path);
  ar_topo_destroy(t);
  unsetenv("HWLOC_XMLFILE");
}

/* This machine: loads, lists the NUMA layout, binds to a NUMA-balanced share and reports it. */
static void test_live(void **state) {
  (void)state;
  struct ar_topo *t = NULL;
  char err[AR_ERRLEN] = "", desc[512] = "", plan[256] = "";
  assert_int_equal(ar_topo_load(&t, NULL, err, sizeof err), 0);
  assert_string_equal(ar_topo_source(t), "live");
  assert_true(ar_topo_nnuma(t) >= 1);
  int numa = -2;
  assert_int_equal(ar_topo_bind_plan(t, -1, 0, 1, plan, sizeof plan, &numa), 0);
  assert_int_equal(ar_topo_bind(t, -1, 0, 1, desc, sizeof desc), 0);
  char want[300];
  snprintf(want, sizeof want, "-> PUs %s (NUMA %d", plan, numa);
  if (!strstr(desc, want)) fail_msg("binding '%s' lacks '%s'", desc, want);
  assert_int_equal(ar_topo_numa_of_self(t), numa);
  /* CUDA devices map to GPUs by bus id (none here; on a GPU machine each mapping must round-trip). */
  int mapped = ar_topo_map_cuda(t);
  assert_true(mapped >= 0 && mapped <= ar_topo_ngpus(t));
  for (int i = 0; i < ar_topo_ngpus(t); i++) {
    const struct ar_gpu_info *g = ar_topo_gpu(t, i);
    if (g->cuda >= 0) assert_int_equal(ar_topo_gpu_of_cuda(t, g->cuda), i);
    assert_int_equal(ar_topo_gpu_of_busid(t, g->busid), i);
  }
  json_t *s = ar_topo_summary(t);
  assert_string_equal(json_string_value(json_object_get(s, "source")), "live");
  assert_int_equal(json_integer_value(json_object_get(s, "numa_nodes")), ar_topo_nnuma(t));
  json_decref(s);
  ar_topo_destroy(t);
}

int main(void) {
  const char *src = getenv("ARBENCH_SRC");
  snprintf(fixture_dir, sizeof fixture_dir, "%s/tests/fixtures/topo", src ? src : ".");
  unsetenv("HWLOC_XMLFILE");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_path_names), cmocka_unit_test(test_pix),        cmocka_unit_test(test_pxb),
      cmocka_unit_test(test_phb),        cmocka_unit_test(test_node),       cmocka_unit_test(test_sys),
      cmocka_unit_test(test_two_socket), cmocka_unit_test(test_busid_lookup), cmocka_unit_test(test_bind_plan),
      cmocka_unit_test(test_summary),    cmocka_unit_test(test_bad_files),  cmocka_unit_test(test_live),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
