/* test_topo_shared.c — topology discovery on real machines' hwloc XML in $ARBENCH_SHARED/topologies
 * (SOURCES.md there says where each comes from): full path matrix, GPU list, NUMA, links, per file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar.h"
#include "topo.h"

#define MAXG 16

/* Expected values, read off each file's structure (lstopo-no-graphics --of console, the pci_link_speed
 * attributes, the cpusets of the objects the host bridges hang from). Every GPU in one of these boxes
 * has the same vendor:device and class, and every GPU-GPU path the same narrowest link. */
struct expect {
  const char *file;
  int ngpus, nnuma, npackages;
  const char *pci_id;
  unsigned cls;
  double gpu_link, path_gbs;
  const char *bus[MAXG];
  int numa[MAXG], pkg[MAXG];
  const char *cpus[MAXG];
  const char *rows[MAXG];
};

/* NVIDIA DGX-2H: 16 V100 behind two levels of PLX switches, 2 GPUs per leaf switch, 4 per host bridge,
 * 2 host bridges per socket. The expected matrix is the PCIe-only view (what `nvidia-smi topo -mp`
 * prints): `nvidia-smi topo -m` on a DGX-2 shows NV6 for every GPU pair because the NVSwitch fabric
 * connects them all, which no PCIe topology can show. The PCIe classes and the GPU order are checked
 * against the DGX-2 `nvidia-smi topo -m` published in NVIDIA/nccl-tests issue #78 ("NCCL alltoall tests
 * failing at 256 GPUs", https://github.com/NVIDIA/nccl-tests/issues/78) in test_dgx2_published below. */
static const struct expect dgx2 = {
    "nvidia-dgx2h-16xV100-plx-gen3-2s-xeon8174.xml", 16, 2, 2, "10de:1db8", 0x0302, 15.75, 15.75,
    {"0000:34:00.0", "0000:36:00.0", "0000:39:00.0", "0000:3b:00.0", "0000:57:00.0", "0000:59:00.0",
     "0000:5c:00.0", "0000:5e:00.0", "0000:b7:00.0", "0000:b9:00.0", "0000:bc:00.0", "0000:be:00.0",
     "0000:e0:00.0", "0000:e2:00.0", "0000:e5:00.0", "0000:e7:00.0"},
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
    /* the file keeps 2 PUs per package (a trimmed hwloc test file) */
    {"0-1", "0-1", "0-1", "0-1", "0-1", "0-1", "0-1", "0-1", "24-25", "24-25", "24-25", "24-25", "24-25",
     "24-25", "24-25", "24-25"},
    {"X PIX PXB PXB NODE NODE NODE NODE SYS SYS SYS SYS SYS SYS SYS SYS",
     "PIX X PXB PXB NODE NODE NODE NODE SYS SYS SYS SYS SYS SYS SYS SYS",
     "PXB PXB X PIX NODE NODE NODE NODE SYS SYS SYS SYS SYS SYS SYS SYS",
     "PXB PXB PIX X NODE NODE NODE NODE SYS SYS SYS SYS SYS SYS SYS SYS",
     "NODE NODE NODE NODE X PIX PXB PXB SYS SYS SYS SYS SYS SYS SYS SYS",
     "NODE NODE NODE NODE PIX X PXB PXB SYS SYS SYS SYS SYS SYS SYS SYS",
     "NODE NODE NODE NODE PXB PXB X PIX SYS SYS SYS SYS SYS SYS SYS SYS",
     "NODE NODE NODE NODE PXB PXB PIX X SYS SYS SYS SYS SYS SYS SYS SYS",
     "SYS SYS SYS SYS SYS SYS SYS SYS X PIX PXB PXB NODE NODE NODE NODE",
     "SYS SYS SYS SYS SYS SYS SYS SYS PIX X PXB PXB NODE NODE NODE NODE",
     "SYS SYS SYS SYS SYS SYS SYS SYS PXB PXB X PIX NODE NODE NODE NODE",
     "SYS SYS SYS SYS SYS SYS SYS SYS PXB PXB PIX X NODE NODE NODE NODE",
     "SYS SYS SYS SYS SYS SYS SYS SYS NODE NODE NODE NODE X PIX PXB PXB",
     "SYS SYS SYS SYS SYS SYS SYS SYS NODE NODE NODE NODE PIX X PXB PXB",
     "SYS SYS SYS SYS SYS SYS SYS SYS NODE NODE NODE NODE PXB PXB X PIX",
     "SYS SYS SYS SYS SYS SYS SYS SYS NODE NODE NODE NODE PXB PXB PIX X"}};

static const struct expect boxes[] = {
    /* AWS g4dn.metal: T4s on root ports, two root ports per host bridge, two host bridges per socket;
     * the root ports report 2.00 GB/s (idle link) while the GPUs report 15.75. */
    {"aws-g4dn-metal-8xT4-rootports-gen3-2s-xeon8259cl.xml", 8, 2, 2, "10de:1eb8", 0x0302, 15.75, 2.00,
     {"0000:18:00.0", "0000:19:00.0", "0000:35:00.0", "0000:36:00.0", "0000:e7:00.0", "0000:e8:00.0",
      "0000:f4:00.0", "0000:f5:00.0"},
     {0, 0, 0, 0, 1, 1, 1, 1},
     {0, 0, 0, 0, 1, 1, 1, 1},
     {"0-23,48-71", "0-23,48-71", "0-23,48-71", "0-23,48-71", "24-47,72-95", "24-47,72-95", "24-47,72-95",
      "24-47,72-95"},
     {"X PHB NODE NODE SYS SYS SYS SYS", "PHB X NODE NODE SYS SYS SYS SYS", "NODE NODE X PHB SYS SYS SYS SYS",
      "NODE NODE PHB X SYS SYS SYS SYS", "SYS SYS SYS SYS X PHB NODE NODE", "SYS SYS SYS SYS PHB X NODE NODE",
      "SYS SYS SYS SYS NODE NODE X PHB", "SYS SYS SYS SYS NODE NODE PHB X"}},
    /* Threadripper workstation, hwloc 1.x XML: one GTX 1070 (VGA class); the AMD Vega is not NVIDIA. */
    {"boxx-threadripper2990wx-gtx1070-plus-amd-vega-1s.v1.xml", 1, 2, 1, "10de:1b81", 0x0300, 15.75, 15.75,
     {"0000:08:00.0"}, {0}, {0}, {"0-7,32-39"}, {"X"}},
    /* Dell XE8640, SNC4: each H100 behind its own Gen5 switch in its own NUMA node; all SYS. */
    {"dell-xe8640-4xH100sxm-bcm-gen5-2s-xeon8480-snc4.xml", 4, 8, 2, "10de:2330", 0x0302, 63.02, 63.02,
     {"0000:4e:00.0", "0000:5f:00.0", "0000:cb:00.0", "0000:db:00.0"},
     {3, 1, 7, 5},
     {0, 0, 1, 1},
     {"42-55,154-167", "14-27,126-139", "98-111,210-223", "70-83,182-195"},
     {"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"}},
    /* JURECA-DC GPU node, NPS4: one A100 per Gen4 switch per NUMA node. */
    {"jureca-dc-gpu-4xA100sxm-bcm-gen4-2s-epyc7742-nps4.xml", 4, 8, 2, "10de:20b0", 0x0302, 31.51, 31.51,
     {"0000:03:00.0", "0000:44:00.0", "0000:84:00.0", "0000:c4:00.0"},
     {3, 1, 7, 5},
     {0, 0, 1, 1},
     {"48-63,176-191", "16-31,144-159", "112-127,240-255", "80-95,208-223"},
     {"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"}},
    /* JUWELS Booster, NPS4: same PCIe layout as JURECA-DC, 24-core EPYCs. */
    {"juwels-booster-4xA100sxm-bcm-gen4-2s-epyc7402-nps4.xml", 4, 8, 2, "10de:20b0", 0x0302, 31.51, 31.51,
     {"0000:03:00.0", "0000:44:00.0", "0000:84:00.0", "0000:c4:00.0"},
     {3, 1, 7, 5},
     {0, 0, 1, 1},
     {"18-23,66-71", "6-11,54-59", "42-47,90-95", "30-35,78-83"},
     {"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"}},
    /* JUWELS Cluster GPU node, hwloc 1.x XML: two V100 per PLX switch, one switch per socket. */
    {"juwels-cluster-gpu-4xV100sxm2-plx8764-gen3-2s-xeon6148.v1.xml", 4, 2, 2, "10de:1db1", 0x0302, 15.75,
     15.75,
     {"0000:5d:00.0", "0000:5e:00.0", "0000:88:00.0", "0000:89:00.0"},
     {0, 0, 1, 1},
     {0, 0, 1, 1},
     {"0-19,40-59", "0-19,40-59", "20-39,60-79", "20-39,60-79"},
     {"X PIX SYS SYS", "PIX X SYS SYS", "SYS SYS X PIX", "SYS SYS PIX X"}},
    /* LLNL Lassen, POWER9: PCI domains 0004 and 0035, NUMA/package 0 and 8; the switch downstream ports
     * report 1.97 GB/s while the GPUs report 15.75. */
    {"llnl-lassen-4xV100sxm2-plx-2s-power9.xml", 4, 2, 2, "10de:1db1", 0x0302, 15.75, 1.97,
     {"0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0"},
     {0, 0, 8, 8},
     {0, 0, 8, 8},
     {"8-87", "8-87", "96-175", "96-175"},
     {"X PIX SYS SYS", "PIX X SYS SYS", "SYS SYS X PIX", "SYS SYS PIX X"}},
    /* LLNL pascal: two P100 on one PLX switch on socket 0. */
    {"llnl-pascal-2xP100pcie-plx-gen3-2s-xeon.xml", 2, 2, 2, "10de:15f8", 0x0302, 15.75, 15.75,
     {"0000:04:00.0", "0000:07:00.0"},
     {0, 0},
     {0, 0},
     {"0-17,36-53", "0-17,36-53"},
     {"X PIX", "PIX X"}},
    /* MeluXina GPU node, NPS4, hwloc 1.x XML. */
    {"meluxina-gpu-4xA100sxm-bcm-gen4-2s-epyc7452-nps4.v1.xml", 4, 8, 2, "10de:20b0", 0x0302, 31.51, 31.51,
     {"0000:03:00.0", "0000:44:00.0", "0000:84:00.0", "0000:c3:00.0"},
     {3, 1, 7, 5},
     {0, 0, 1, 1},
     {"24-31,88-95", "8-15,72-79", "56-63,120-127", "40-47,104-111"},
     {"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"}},
};

static char topo_dir[1024];

static const struct expect *expectation(const char *file) {
  if (!strcmp(file, dgx2.file)) return &dgx2;
  for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++)
    if (!strcmp(file, boxes[i].file)) return &boxes[i];
  return NULL;
}

static struct ar_topo *load(const char *file) {
  char path[1400], err[AR_ERRLEN] = "";
  struct ar_topo *t = NULL;
  snprintf(path, sizeof path, "%s/%s", topo_dir, file);
  int rc = ar_topo_load(&t, path, err, sizeof err);
  if (rc) fail_msg("%s: %s", path, err);
  return t;
}

static void check_box(void **state) {
  const struct expect *e = *state;
  struct ar_topo *t = load(e->file);
  assert_int_equal(ar_topo_ngpus(t), e->ngpus);
  assert_int_equal(ar_topo_nnuma(t), e->nnuma);
  json_t *s = ar_topo_summary(t);
  assert_int_equal(json_integer_value(json_object_get(s, "packages")), e->npackages);
  for (int i = 0; i < e->ngpus; i++) {
    const struct ar_gpu_info *g = ar_topo_gpu(t, i);
    char id[16];
    snprintf(id, sizeof id, "%04x:%04x", g->vendor, g->device);
    assert_string_equal(g->busid, e->bus[i]);
    assert_string_equal(id, e->pci_id);
    assert_int_equal(g->pci_class, e->cls);
    assert_int_equal(g->numa, e->numa[i]);
    assert_int_equal(g->package, e->pkg[i]);
    assert_string_equal(g->cpuset, e->cpus[i]);
    assert_float_equal(g->link_gbs, e->gpu_link, 0.01);
    char row[256] = "";
    for (int j = 0; j < e->ngpus; j++) {
      double bw = -1;
      bool same = false;
      enum ar_path p = ar_topo_path(t, i, j, &bw, &same);
      if (j) strcat(row, " ");
      strcat(row, ar_path_name(p));
      assert_float_equal(bw, i == j ? e->gpu_link : e->path_gbs, 0.01);
      assert_int_equal(same, e->pkg[i] == e->pkg[j]);
    }
    if (strcmp(row, e->rows[i])) fail_msg("%s GPU%d: got '%s', want '%s'", e->file, i, row, e->rows[i]);
  }
  double bn = e->ngpus > 1 ? e->path_gbs : e->gpu_link;
  assert_float_equal(ar_topo_bottleneck_gbs(t, NULL, e->ngpus), bn, 0.01);
  assert_float_equal(ar_topo_gpu_link_min_gbs(t), e->gpu_link, 0.01);
  json_decref(s);
  ar_topo_destroy(t);
}

/* The DGX-2's published `nvidia-smi topo -m` (nccl-tests issue #78) lists, for GPU0..GPU4 in bus order,
 * these PCIe classes to its ten mlx5 NICs (its GPU-GPU cells are NV6, the NVSwitch fabric). Two GPUs
 * share a switch when both are PIX to one NIC, share a switch tree when both are at most PXB to one
 * NIC, and share a NUMA node when both are at most NODE to one NIC; derive GPU-GPU classes that way
 * and compare with the matrix computed from the hwloc XML. */
static void test_dgx2_published(void **state) {
  (void)state;
  static const char *const nic_rows[5][10] = {
      {"PIX", "PXB", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
      {"PIX", "PXB", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
      {"PXB", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
      {"PXB", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
      {"NODE", "NODE", "PIX", "PXB", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"}};
  static const char *const order[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};
  struct ar_topo *t = load(dgx2.file);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      int best = 5; /* SYS unless a NIC proves closer */
      for (int k = 0; k < 10; k++) {
        int ci = 0, cj = 0;
        while (strcmp(order[ci], nic_rows[i][k])) ci++;
        while (strcmp(order[cj], nic_rows[j][k])) cj++;
        int c = ci > cj ? ci : cj;
        if (c < best) best = c;
      }
      const char *want = i == j ? "X" : order[best];
      assert_string_equal(ar_path_name(ar_topo_path(t, i, j, NULL, NULL)), want);
    }
  ar_topo_destroy(t);
}

/* Every hwloc XML in the directory has an expectation here, and every expectation a file. */
static void test_all_files_covered(void **state) {
  (void)state;
  DIR *d = opendir(topo_dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".xml")) continue;
    if (!expectation(de->d_name)) fail_msg("%s/%s has no expected matrix in test_topo_shared.c", topo_dir, de->d_name);
    n++;
  }
  closedir(d);
  assert_int_equal(n, (int)(sizeof boxes / sizeof boxes[0]) + 1);
}

int main(void) {
  const char *shared = getenv("ARBENCH_SHARED");
  snprintf(topo_dir, sizeof topo_dir, "%s/topologies", shared ? shared : "");
  DIR *d = shared && *shared ? opendir(topo_dir) : NULL;
  if (!d) {
    printf("skipped: no shared topologies (ARBENCH_SHARED=%s, need %s)\n", shared ? shared : "(unset)", topo_dir);
    return 77;
  }
  closedir(d);
  unsetenv("HWLOC_XMLFILE");
  struct CMUnitTest tests[sizeof boxes / sizeof boxes[0] + 3];
  size_t n = 0;
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_all_files_covered);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(check_box, (void *)&dgx2);
  tests[n - 1].name = dgx2.file;
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_dgx2_published);
  for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
    tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(check_box, (void *)&boxes[i]);
    tests[n++].name = boxes[i].file;
  }
  return _cmocka_run_group_tests("topo-shared", tests, n, NULL, NULL);
}
