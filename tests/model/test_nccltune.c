/* test_nccltune.c — NCCL's default choice (bench/model/nccltune.c) on the synthetic boxes, against values
 * worked by hand from NCCL v2.29.2-1's search.cc, paths.cc, tuning.cc and enqueue.cc (each derivation at its assert). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ar.h"
#include "model/model.h"
#include "topo.h"

struct box {
  struct ar_topo *t;
  struct ar_mgraph *g;
  struct ar_mparams p;
  struct ar_nccl_graph ng;
};

static void box_open(struct box *b, const char *name, const char *calib) {
  char path[1200], err[AR_ERRLEN] = "";
  snprintf(path, sizeof path, "%s/tests/fixtures/model/%s", getenv("ARBENCH_SRC"), name);
  ar_mparams_default(&b->p);
  if (calib) assert_int_equal(ar_mparams_load(&b->p, calib, err, sizeof err), 0);
  assert_int_equal(ar_topo_load(&b->t, path, err, sizeof err), 0);
  assert_int_equal(ar_mgraph_build(&b->g, b->t, ar_topo_ngpus(b->t), &b->p, err, sizeof err), 0);
  ar_nccl_graph(b->g, b->t, &b->p, &b->ng);
}

static void box_close(struct box *b) {
  ar_mgraph_free(b->g);
  ar_topo_destroy(b->t);
}

static struct ar_nccl_choice pick(struct box *b, double bytes) {
  struct ar_nccl_choice c;
  ar_nccl_choose(&b->ng, &b->p, 8, bytes, &c);
  return c;
}

/* Two Gen5 switches, one socket, RTX PRO 6000 (PCI id 2bb5: cc 12.0, NCCL's sm100 speeds 90..18). A Gen5 x16
 * link is 16 x 240 / 80 = 48 GB/s to NCCL: 45 gives 1 channel (45), 40 one, 30 one (30), 24 two (48, the best), 20 two
 * (40), 19 and 18 two. 24 < 25: no duplication. comm->nChannels = 2 x 2. */
static void switch_graph(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "sw2-8g-gen5.xml", NULL);
  assert_int_equal(b.ng.cc, 120);
  assert_int_equal(b.ng.fallback, 0);
  assert_int_equal(b.ng.channels, 2);
  assert_float_equal(b.ng.bw_intra, 24.0, 1e-9);
  assert_int_equal(b.ng.comm_channels, 4);
  assert_float_equal(b.ng.socket_gbs, 0.0, 0);
  box_close(&b);
}

/* NCCL's estimates on that graph, 8 ranks, busBw 2 x 24 = 48, then algorithm bandwidth (ring x 8 / 14, tree x 0.5):
 * Ring LL: 6.6 + 14 x 1.0 us, min(282, 48 x 0.5) x 8/14 = 13.714 GB/s; Ring Simple: 8.4 + 14 x 5.7 us, 27.429;
 * Tree Simple: 8.4 + 14 x 4.0, min(48 x 0.92, 2 x 70) x 0.5 x correction (0.5 at 1 MiB); Tree LL: 44.16/3.8 x 0.5.
 * 1 MiB: Ring LL 20.6 + 76.459 = 97.059 beats Ring Simple 126.43 and Tree Simple 159.4 (LL128 off on PCIe);
 * 2 MiB: Ring Simple 88.2 + 76.459 = 164.659 beats Ring LL 173.517. Channels: LL 512 threads x threshold 8 x 8
 * ranks: one channel per 32 KiB (64 KiB: 2, 4 KiB: 1, >= 128 KiB: 4); Simple 512 x 64 (48 > PCI_BW 12). */
static void switch_choices(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "sw2-8g-gen5.xml", NULL);
  struct ar_nccl_choice c = pick(&b, 1048576);
  assert_int_equal(c.family, AR_M_RING_LL);
  assert_float_equal(c.nccl_us, 20.6 + 1048576 / (24000.0 * 8 / 14), 1e-3);
  assert_int_equal(c.channels, 4);
  c = pick(&b, 2097152);
  assert_int_equal(c.family, AR_M_RING_SIMPLE);
  assert_float_equal(c.nccl_us, 88.2 + 2097152 / (48000.0 * 8 / 14), 1e-3);
  assert_int_equal(c.channels, 4);
  c = pick(&b, 65536);
  assert_int_equal(c.family, AR_M_RING_LL);
  assert_int_equal(c.channels, 2);
  c = pick(&b, 4096);
  assert_int_equal(c.family, AR_M_RING_LL);
  assert_float_equal(c.nccl_us, 20.6 + 4096 / (24000.0 * 8 / 14), 1e-4);
  assert_int_equal(c.channels, 1);
  box_close(&b);
}

/* Two Intel sockets, model not in the XML: NCCL's SKL_QPI_BW 10 GB/s on the ring, below the least sm100
 * speed (18): no ring at any speed, NCCL's fallback order at 0.1 GB/s, 1 channel (comm 2): rtx6kpro's
 * nccl-tuning.md reports the same on dual Turin ("0.1 GB/s, 2 channels, SIMPLE"). Ring LL (20.6 us + B / 28.57 B/us:
 * 0.1 GB/s x 0.5 x 8/14) loses to Ring Simple (88.2 + B / 57.14) from 3.86 KB on: 2 KiB LL, 4 KiB
 * Simple, 16 KiB Simple x1 (256 threads under PCI_BW: 16 KiB per channel). */
static void socket_fallback(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "ds-8g-gen5.xml", NULL);
  assert_float_equal(b.ng.socket_gbs, 10.0, 0);
  assert_int_equal(b.ng.fallback, 1);
  assert_int_equal(b.ng.channels, 1);
  assert_float_equal(b.ng.bw_intra, 0.1, 1e-12);
  assert_int_equal(b.ng.comm_channels, 2);
  assert_int_equal(pick(&b, 2048).family, AR_M_RING_LL);
  assert_int_equal(pick(&b, 4096).family, AR_M_RING_SIMPLE);
  struct ar_nccl_choice c = pick(&b, 16384);
  assert_int_equal(c.family, AR_M_RING_SIMPLE);
  assert_int_equal(c.channels, 1);
  box_close(&b);
}

/* --calib's nccl_socket_gbs 40 (Emerald Rapids' ERP_QPI_BW): 40 gives 1 channel, 30 and 24 one, 20 two (40,
 * not better), 19 / 40 <= 0.49 stops; 40 >= 25: duplicated to 2 x 20. gpu_cc 90: Hopper's sm90 speeds. */
static void calib_overrides(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "ds-8g-gen5.xml", "{\"params\":{\"nccl_socket_gbs\":40}}");
  assert_int_equal(b.ng.fallback, 0);
  assert_int_equal(b.ng.channels, 2);
  assert_float_equal(b.ng.bw_intra, 20.0, 1e-9);
  assert_int_equal(b.ng.comm_channels, 4);
  box_close(&b);
  /* sm90 speeds 60..3 on 10 GB/s: 6 gives 1 channel, 3 three (9, the best; 3 / 6 = 0.5 > 0.49 reached it) */
  box_open(&b, "ds-8g-gen5.xml", "{\"params\":{\"gpu_cc\":90}}");
  assert_int_equal(b.ng.cc, 90);
  assert_int_equal(b.ng.channels, 3);
  assert_float_equal(b.ng.bw_intra, 3.0, 1e-9);
  box_close(&b);
}

/* v2.29.2-1's sm100SpeedArrayIntra adds 45: a socket link NCCL sees at 46 GB/s carries one ring at 45 (45; 40, 30 and
 * 24 one each, 20 two: 40, not better), 45 >= 25 duplicates it to 2 x 22.5. (v2.28.3-1, without 45: 1 x 40, 2 x 20.) */
static void speed_45(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "rtx6kpro-turin-2s.xml", "{\"params\":{\"nccl_socket_gbs\":46}}");
  assert_int_equal(b.ng.fallback, 0);
  assert_int_equal(b.ng.channels, 2);
  assert_float_equal(b.ng.bw_intra, 22.5, 1e-9);
  assert_int_equal(b.ng.comm_channels, 4);
  box_close(&b);
}

/* paths.cc ncclTopoCheckP2p (v2.29.2-1): P2P only up to PXB by default; a hop through a CPU host bridge (PHB, NODE)
 * or between sockets (SYS) runs through host memory (SHM). The guessed aiconfigurator box's ring 0..7 has hops PIX
 * 0-1, NODE 1-2, PIX 2-3, SYS 3-4, PIX 4-5, NODE 5-6, PIX 6-7, SYS 7-0: 4 of 8 through host memory; NCCL_P2P_LEVEL=PHB
 * (3) leaves the 2 SYS hops, SYS (4) none, PIX (1) the same 4 (its PIX hops are P2P). */
static void transport(void **state) {
  (void)state;
  static const struct { const char *calib; int shm; enum ar_path level; } rows[] = {
    {NULL, 4, AR_PATH_PXB}, {"{\"params\":{\"nccl_p2p_level\":3}}", 2, AR_PATH_NODE},
    {"{\"params\":{\"nccl_p2p_level\":4}}", 0, AR_PATH_SYS}, {"{\"params\":{\"nccl_p2p_level\":1}}", 4, AR_PATH_PIX}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    struct box b;
    box_open(&b, "aic-rtx-pro-server-guess.xml", rows[i].calib);
    assert_int_equal(b.ng.ring_hops, 8);
    assert_int_equal(b.ng.shm_hops, rows[i].shm);
    assert_int_equal(b.ng.p2p_level, rows[i].level);
    assert_int_equal(b.ng.intel_phb, 0);
    box_close(&b);
  }
}

/* search.cc followPath: a PHB path through an Intel CPU takes INTEL_P2P_OVERHEAD (topo.h: x6/5) of each PCI link. The
 * Intel two-socket box with its socket link at 48 to NCCL: the ring's PCI links carry 48 / 1.2 = 40: 45 none, 40 one
 * ring (40), 30 and 24 one, 20 two (40, not better), 19 / 40 <= 0.49 stops; duplicated to 2 x 20 (without the
 * overhead: 2 x 24, as on AMD). */
static void intel_overhead(void **state) {
  (void)state;
  struct box b;
  box_open(&b, "ds-8g-gen5.xml", "{\"params\":{\"nccl_socket_gbs\":48}}");
  assert_int_equal(b.ng.intel_phb, 1);
  assert_int_equal(b.ng.channels, 2);
  assert_float_equal(b.ng.bw_intra, 20.0, 1e-9);
  box_close(&b);
  box_open(&b, "rtx6kpro-turin-2s.xml", "{\"params\":{\"nccl_socket_gbs\":48}}");
  assert_int_equal(b.ng.intel_phb, 0);
  assert_int_equal(b.ng.channels, 2);
  assert_float_equal(b.ng.bw_intra, 24.0, 1e-9);
  box_close(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(switch_graph), cmocka_unit_test(switch_choices),
                                     cmocka_unit_test(socket_fallback), cmocka_unit_test(calib_overrides),
                                     cmocka_unit_test(speed_45), cmocka_unit_test(transport),
                                     cmocka_unit_test(intel_overhead)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
