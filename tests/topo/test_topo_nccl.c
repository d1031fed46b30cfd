/* test_topo_nccl.c — topo/topo_nccl.c: NCCL topology dumps read like hwloc files. Without arguments: our
 * fixtures (switch levels, NUMA nodes, link speeds, bad files); with "shared": the real dumps in
 * $ARBENCH_SHARED/topologies/nccl (skipped with the reason when absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ar.h"
#include "topo_int.h"

#define MAXG 8

struct expect {
  const char *file;
  int ngpus, nnuma;
  const char *bus[MAXG], *pci_id[MAXG];
  unsigned cls[MAXG];
  int numa[MAXG];
  const char *cpus[MAXG];
  double link[MAXG];
  const char *rows[MAXG];
  const char *gbs[MAXG]; /* narrowest link per pair, "%.2f" joined by spaces; NULL: not checked */
};

static char dir[1200];

static void check(const struct expect *e) {
  char path[1400], err[AR_ERRLEN] = "";
  struct ar_topo *t = NULL;
  snprintf(path, sizeof path, "%s/%s", dir, e->file);
  if (ar_topo_load(&t, path, err, sizeof err)) fail_msg("%s: %s", path, err);
  assert_int_equal(ar_topo_ngpus(t), e->ngpus);
  assert_int_equal(ar_topo_nnuma(t), e->nnuma);
  json_t *s = ar_topo_summary(t);
  assert_int_equal(json_integer_value(json_object_get(s, "packages")), 0); /* NCCL records none */
  json_decref(s);
  for (int i = 0; i < e->ngpus; i++) {
    const struct ar_gpu_info *g = ar_topo_gpu(t, i);
    char id[16], row[256] = "", gbs[256] = "";
    snprintf(id, sizeof id, "%04x:%04x", g->vendor, g->device);
    assert_string_equal(g->busid, e->bus[i]);
    assert_string_equal(id, e->pci_id[i]);
    assert_int_equal(g->pci_class, e->cls[i]);
    assert_int_equal(g->numa, e->numa[i]);
    assert_int_equal(g->package, -1);
    assert_string_equal(g->cpuset, e->cpus[i]);
    assert_float_equal(g->link_gbs, e->link[i], 0.01);
    for (int j = 0; j < e->ngpus; j++) {
      double bw = -1;
      enum ar_path p = ar_topo_path(t, i, j, &bw, NULL);
      size_t k = strlen(row), m = strlen(gbs);
      snprintf(row + k, sizeof row - k, "%s%s", j ? " " : "", ar_path_name(p));
      snprintf(gbs + m, sizeof gbs - m, "%s%.2f", j ? " " : "", bw);
    }
    if (strcmp(row, e->rows[i])) fail_msg("%s GPU%d: paths '%s', want '%s'", e->file, i, row, e->rows[i]);
    if (e->gbs[i] && strcmp(gbs, e->gbs[i])) fail_msg("%s GPU%d: links '%s', want '%s'", e->file, i, gbs, e->gbs[i]);
  }
  ar_topo_destroy(t);
}

/* Our fixture: a Gen5 switch with two GPUs (PIX), a switch below a switch (PXB), a GPU on its own root port
 * (PHB to the others of NUMA node 0), a Gen4 x8 GPU on node 1 (SYS, 15.75 GB/s), a NIC that is no GPU. */
static const struct expect sw = {
    "nccl-switch.xml", 6, 2,
    {"0000:11:00.0", "0000:12:00.0", "0000:22:00.0", "0000:23:00.0", "0000:30:00.0", "0000:c1:00.0"},
    {"10de:2bb1", "10de:2bb1", "10de:2bb1", "10de:2bb1", "10de:2bb1", "10de:2bb1"},
    {0x0300, 0x0300, 0x0302, 0x0302, 0x0302, 0x0302},
    {0, 0, 0, 0, 0, 1},
    {"0-3", "0-3", "0-3", "0-3", "0-3", "4-7"},
    {63.02, 63.02, 63.02, 63.02, 63.02, 15.75},
    {"X PIX PHB PHB PHB SYS", "PIX X PHB PHB PHB SYS", "PHB PHB X PXB PHB SYS", "PHB PHB PXB X PHB SYS",
     "PHB PHB PHB PHB X SYS", "SYS SYS SYS SYS SYS X"},
    {"63.02 63.02 31.51 63.02 63.02 15.75", "63.02 63.02 31.51 63.02 63.02 15.75",
     "31.51 31.51 63.02 31.51 31.51 15.75", "63.02 63.02 31.51 63.02 63.02 15.75",
     "63.02 63.02 31.51 63.02 63.02 15.75", "15.75 15.75 15.75 15.75 15.75 15.75"},
};
static const struct expect one = {
    "nccl-format.xml", 1, 1, {"0000:18:00.0"}, {"10de:2bb1"}, {0x0302}, {0}, {"0-3"}, {63.02}, {"X"}, {"63.02"},
};

static void test_fixtures(void **st) {
  (void)st;
  check(&sw);
  check(&one);
}

/* hwloc's GB/s per link: 8b/10b to 5 GT/s, 128b/130b to 32 GT/s, 242/256 at 64; unknown is 0, never a guess. */
static void test_link_gbs(void **st) {
  (void)st;
  assert_float_equal(ar_topo_nccl_link_gbs("2.5 GT/s PCIe", "1"), 0.25, 1e-9);
  assert_float_equal(ar_topo_nccl_link_gbs("5.0 GT/s PCIe", "16"), 8.0, 1e-9);
  assert_float_equal(ar_topo_nccl_link_gbs("8.0 GT/s PCIe", "16"), 15.7538, 1e-3);
  assert_float_equal(ar_topo_nccl_link_gbs("16.0 GT/s PCIe", "8"), 15.7538, 1e-3);
  assert_float_equal(ar_topo_nccl_link_gbs("32.0 GT/s PCIe", "16"), 63.0154, 1e-3);
  assert_float_equal(ar_topo_nccl_link_gbs("64.0 GT/s PCIe", "16"), 121.0, 1e-9);
  assert_float_equal(ar_topo_nccl_link_gbs("", "0"), 0, 0);
  assert_float_equal(ar_topo_nccl_link_gbs("16.0 GT/s PCIe", "0"), 0, 0);
  assert_float_equal(ar_topo_nccl_link_gbs(NULL, "16"), 0, 0);
}

static void bad(const char *xml, const char *needle) {
  char path[] = "/tmp/arbench-nccl-topo-XXXXXX", err[AR_ERRLEN] = "";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
  close(fd);
  struct ar_topo *t = (struct ar_topo *)&err;
  int rc = ar_topo_load(&t, path, err, sizeof err);
  unlink(path);
  if (rc != -AR_EINVAL || t || !strstr(err, needle) || strchr(err, '\n'))
    fail_msg("'%s': rc %d, message '%s', want '%s'", xml, rc, err, needle);
}

/* The dump is parsed from the text read once (issue 50 item 1), never by name again: a path that does not exist
 * converts from its text; bytes past the length given (what a growing file gained after it was read) are not
 * parsed; a text cut short is an error naming the path. */
static void test_from_text(void **st) {
  (void)st;
  char path[1400], err[AR_ERRLEN] = "", *xml = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/nccl-switch.xml", dir);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *text = calloc(1, 1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 64, f);
  fclose(f);
  assert_true(n > 100);
  memcpy(text + n, "<grown-after-the-read", 21); /* past n: never parsed */
  assert_int_equal(ar_topo_nccl_to_hwloc("/nonexistent/dump.xml", text, n, &xml, &len, err, sizeof err), 0);
  assert_non_null(strstr(xml, "<info name=\"Backend\" value=\"NCCL topology dump\"/>"));
  assert_int_equal(strlen(xml), len);
  free(xml);
  xml = NULL;
  assert_int_equal(ar_topo_nccl_to_hwloc("/nonexistent/dump.xml", text, n / 2, &xml, &len, err, sizeof err),
                   -AR_EINVAL);
  assert_string_equal(err, "'/nonexistent/dump.xml' is not a well-formed NCCL topology file (malformed XML or no "
                           "<system> root)");
  assert_null(xml);
  free(text);
}

static void test_bad_dumps(void **st) {
  (void)st;
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"f\">", "not a well-formed NCCL topology file");
  bad("<system version=\"1\"></system>", "no <cpu> node under <system>");
  bad("<system version=\"1\"><cpu numaid=\"0\"/></system>", "<cpu> 0 has no valid affinity (''");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"zz\"/></system>", "<cpu> 0 has no valid affinity ('zz'");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"0\"/></system>", "no valid affinity ('0'");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"3\"/><cpu numaid=\"1\" affinity=\"6\"/></system>",
      "<cpu> 1 shares CPUs with another <cpu>");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"3\"/><cpu numaid=\"0\" affinity=\"c\"/></system>",
      "<cpu> 1 has no valid, distinct numaid ('0')");
  bad("<system version=\"1\"><cpu numaid=\"x\" affinity=\"3\"/></system>", "no valid, distinct numaid ('x')");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"3\"><pci class=\"0x030200\"/></cpu></system>",
      "a <pci> node without a valid busid ('')");
  bad("<system version=\"1\"><cpu numaid=\"0\" affinity=\"3\"><pci busid=\"zz\" class=\"0x030200\"/></cpu></system>",
      "without a valid busid ('zz')");
  /* affinity words beyond the first 32 bits land where they belong */
  char path[] = "/tmp/arbench-nccl-topo-XXXXXX", err[AR_ERRLEN];
  const char *xml = "<system version=\"1\"><cpu numaid=\"1\" affinity=\"00000001,80000000\"><pci busid=\"0000:01:00.0\" "
                    "class=\"0x030200\" link_speed=\"\" link_width=\"0\"><gpu dev=\"0\"/></pci></cpu></system>";
  int fd = mkstemp(path);
  assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
  close(fd);
  struct ar_topo *t = NULL;
  assert_int_equal(ar_topo_load(&t, path, err, sizeof err), 0);
  unlink(path);
  assert_int_equal(ar_topo_ngpus(t), 1);
  assert_string_equal(ar_topo_gpu(t, 0)->cpuset, "31-32");
  assert_int_equal(ar_topo_gpu(t, 0)->numa, 1);
  assert_int_equal(ar_topo_gpu(t, 0)->vendor, 0x10de); /* left out: NCCL lists NVIDIA GPUs only */
  assert_float_equal(ar_topo_gpu(t, 0)->link_gbs, 0, 0);
  ar_topo_destroy(t);
}

/* The real dumps (../shared/topologies/nccl/SOURCES.md), expectations read off each file: the <cpu> nodes'
 * affinity and numaid, the <pci> nesting, link_speed x link_width. */
static const struct expect shared[] = {
    {"azure-nc-a100-v4-4xA100pcie-4numa.nccl-topo.xml", 4, 4,
     {"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0004:00:00.0"},
     {"10de:20b5", "10de:20b5", "10de:20b5", "10de:20b5"}, {0x0302, 0x0302, 0x0302, 0x0302}, {0, 1, 2, 3},
     {"0-23", "24-47", "48-71", "72-95"}, {0, 0, 0, 0}, /* link_speed="" link_width="0": unknown */
     {"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"},
     {"0.00 0.00 0.00 0.00", "0.00 0.00 0.00 0.00", "0.00 0.00 0.00 0.00", "0.00 0.00 0.00 0.00"}},
    {"azure-nd-h100-v5-8xH100-gen5.nccl-topo.xml", 8, 2,
     {"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0008:00:00.0", "0009:00:00.0", "000a:00:00.0",
      "000b:00:00.0", "000c:00:00.0"},
     /* no vendor or device attributes on the GPUs */
     {"10de:0000", "10de:0000", "10de:0000", "10de:0000", "10de:0000", "10de:0000", "10de:0000", "10de:0000"},
     {0x0302, 0x0302, 0x0302, 0x0302, 0x0302, 0x0302, 0x0302, 0x0302}, {0, 0, 0, 0, 1, 1, 1, 1},
     {"0-47", "0-47", "0-47", "0-47", "48-95", "48-95", "48-95", "48-95"},
     {63.02, 63.02, 63.02, 63.02, 63.02, 63.02, 63.02, 63.02},
     {"X PHB PHB PHB SYS SYS SYS SYS", "PHB X PHB PHB SYS SYS SYS SYS", "PHB PHB X PHB SYS SYS SYS SYS",
      "PHB PHB PHB X SYS SYS SYS SYS", "SYS SYS SYS SYS X PHB PHB PHB", "SYS SYS SYS SYS PHB X PHB PHB",
      "SYS SYS SYS SYS PHB PHB X PHB", "SYS SYS SYS SYS PHB PHB PHB X"},
     {NULL}},
    {"nccl-issue2397-2xA100pcie-2s-icelake.nccl-topo.xml", 2, 2, {"0000:69:00.0", "0000:b1:00.0"},
     {"10de:20b5", "10de:20b5"}, {0x0302, 0x0302}, {0, 1}, {"0-27,56-83", "28-55,84-111"}, {31.51, 31.51},
     {"X SYS", "SYS X"}, {"31.51 31.51", "31.51 31.51"}},
};

static void test_shared(void **st) {
  const struct expect *e = *st;
  check(e);
}

/* Every dump in the directory has an expectation here. */
static void test_shared_covered(void **st) {
  (void)st;
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    size_t len = strlen(de->d_name), k;
    if (len < 5 || strcmp(de->d_name + len - 4, ".xml")) continue;
    for (k = 0; k < sizeof shared / sizeof shared[0] && strcmp(shared[k].file, de->d_name); k++) {}
    if (k == sizeof shared / sizeof shared[0]) fail_msg("%s/%s has no expectation in test_topo_nccl.c", dir, de->d_name);
    n++;
  }
  closedir(d);
  assert_int_equal(n, (int)(sizeof shared / sizeof shared[0]));
}

int main(int argc, char **argv) {
  unsetenv("HWLOC_XMLFILE");
  if (argc > 1 && !strcmp(argv[1], "shared")) {
    const char *sh = getenv("ARBENCH_SHARED");
    snprintf(dir, sizeof dir, "%s/topologies/nccl", sh ? sh : "");
    DIR *d = sh && *sh ? opendir(dir) : NULL;
    if (!d) {
      printf("skipped: no NCCL topology dumps (ARBENCH_SHARED=%s, need %s)\n", sh ? sh : "(unset)", dir);
      return 77;
    }
    closedir(d);
    struct CMUnitTest tests[sizeof shared / sizeof shared[0] + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_shared_covered);
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
      tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_shared, (void *)&shared[i]);
      tests[n++].name = shared[i].file;
    }
    return _cmocka_run_group_tests("topo-nccl-shared", tests, n, NULL, NULL);
  }
  const char *src = getenv("ARBENCH_SRC");
  snprintf(dir, sizeof dir, "%s/tests/fixtures/topo", src ? src : ".");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fixtures),
    cmocka_unit_test(test_link_gbs),
    cmocka_unit_test(test_bad_dumps),
    cmocka_unit_test(test_from_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
