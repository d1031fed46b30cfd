/* nccltune.c — what NCCL runs by default at each size on a PCIe topology: its ring graph (channels x bandwidth,
 * as search.cc finds it), its tuning model's time per (algorithm, protocol) and the pick, and its channel count.
 *
 * Read from NVIDIA/nccl at v2.29.2-1 (the held-out tables' tag; v2.28.3-1 differs on PCIe only where noted: its
 * sm100 speed list lacks 45 GB/s, and it has no 24th tree-correction entry):
 *  - src/graph/topo.cc: a PCIe link is width x speed / 80 GB/s (Gen5 x16 = 48), the inter-CPU link
 *    ncclTopoGetInterCpuBw (AMD_BW 16; Intel by model: SKL 10, SRP 22, ERP 40, older 6; others LOC_BW).
 *  - src/graph/paths.cc: ncclTopoCheckP2p: "By default don't use P2P across CPU Host Bridges and further apart"
 *    (p2pLevel PATH_PXB; AMD CPUs with at most 2 GPUs: PATH_SYS; NCCL_P2P_LEVEL overrides): a pair beyond it is
 *    diverted through the CPU (addInterStep) and runs the SHM transport, through host memory; a pair whose NVML P2P
 *    status is not OK has no P2P at any level (--calib nccl_no_p2p).
 *  - src/transport/shm.cc: the SHM buffer in host memory on the receiver's side (NCCL_SHM_LOCALITY 2), stored into by
 *    the sender's kernel and loaded by the receiver's (NCCL_SHM_USE_CUDA_MEMCPY 0): ar_mgraph_ring_host_gbs.
 *  - src/graph/search.cc: ncclTopoCompute tries the speeds of sm100/sm90/intra SpeedArrayIntra from the
 *    highest the paths allow, keeps the most channels x speed, steps down while the next speed is > 0.49 of
 *    the best; no ring at any speed: "simple order" at 0.1 GB/s, 1 channel. followPath: a PHB path through an
 *    Intel CPU takes INTEL_P2P_OVERHEAD (x6/5, topo.h) of each PCI link's bandwidth. ncclTopoDupChannels doubles the
 *    channels (halving the bandwidth) when bwIntra >= 25. connect.cc: comm->nChannels = 2 x the graph's.
 *  - src/graph/tuning.cc: ncclTopoTuneModel (latencies base + 2(n-1) x PCI hwLat, bandwidths and their
 *    factors, then bus to algorithm bandwidth: ring x n / 2(n-1), tree x 0.5; LL128 enabled only where typeIntra <= PATH_NVB, so never on PCIe), ncclTopoGetAlgoTime (tree
 *    correction factors).
 *  - src/enqueue.cc: topoGetAlgoInfo (the least time wins; channels reduced while nBytes < nc x nt x
 *    threshold), comm.h thread thresholds, device.h thread counts.
 * The GPU's compute capability is not in an hwloc topology: ar_nccl_cc reads it from the PCI device id where
 * the id is known, else assumes Blackwell (named by ar_model_assumptions). */
#include "model/model.h"
#include "ar.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PCI device ids of GPUs whose compute capability we know (x10), for NCCL's per-architecture constants. */
static const struct { unsigned id; int cc; const char *name; } known_gpus[] = {
  {0x2bb1, 120, "RTX PRO 6000 Blackwell Workstation"}, {0x2bb4, 120, "RTX PRO 6000 Blackwell Max-Q"},
  {0x2bb5, 120, "RTX PRO 6000 Blackwell Server"},      {0x26b9, 89, "L40S"},
  {0x26b5, 89, "L40"},                                  {0x2331, 90, "H100 PCIe"},
  {0x2321, 90, "H100 NVL"},                             {0x20b5, 80, "A100 PCIe 80GB"},
  {0x20f1, 80, "A100 PCIe 40GB"},                       {0x1eb8, 75, "T4"},
  {0x1e04, 75, "GeForce RTX 2080 Ti"},                  {0x1e07, 75, "GeForce RTX 2080 Ti Rev. A"},
};

int ar_nccl_cc(const struct ar_topo *t, const struct ar_mparams *p, const char **how) {
  if (p->gpu_cc > 0) {
    if (how) *how = "--calib";
    return (int)p->gpu_cc;
  }
  unsigned dev = ar_topo_ngpus(t) > 0 ? ar_topo_gpu(t, 0)->device : 0;
  for (size_t i = 0; i < sizeof known_gpus / sizeof known_gpus[0]; i++)
    if (known_gpus[i].id == dev) {
      if (how) *how = known_gpus[i].name;
      return known_gpus[i].cc;
    }
  if (how) *how = NULL; /* not known: assumed */
  return 120;
}

/* NCCL's bandwidth (GB/s) of the link between two sockets; *how says what decided it. */
double ar_nccl_socket_gbs(const struct ar_topo *t, const struct ar_mparams *p, const char **how) {
  const char *v = ar_topo_cpu_vendor(t);
  if (p->nccl_socket_gbs > 0) {
    *how = "--calib";
    return p->nccl_socket_gbs;
  }
  if (!strcmp(v, "AuthenticAMD")) {
    *how = "AMD_BW";
    return 16.0;
  }
  if (!strcmp(v, "GenuineIntel")) {
    int model = ar_topo_cpu_model(t);
    /* topo.cc: family 6 model >= 0xCF Emerald Rapids, >= 0x8F Sapphire Rapids, >= 0x55 Skylake, else older */
    *how = model >= 0xCF ? "ERP_QPI_BW" : model >= 0x8F ? "SRP_QPI_BW" : model >= 0x55 ? "SKL_QPI_BW"
         : model > 0 ? "BDW_QPI_BW" : "SKL_QPI_BW (CPU model not in the topology)";
    return model >= 0xCF ? 40.0 : model >= 0x8F ? 22.0 : model >= 0x55 || model <= 0 ? 10.0 : 6.0;
  }
  *how = "SKL_QPI_BW (CPU vendor not in the topology)";
  return 10.0;
}

/* search.cc v2.29.2-1 sm100SpeedArrayIntra (v2.28.3-1's lacks 45.0: it differs where a ring carries 45 to 48 GB/s) */
static const float speeds_sm100[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 45.0f, 40.0f, 30.0f, 24.0f, 20.0f, 19.0f, 18.0f};
static const float speeds_sm90[] = {60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f, 15.0f, 12.0f, 11.0f, 6.0f, 3.0f};
static const float speeds_intra[] = {40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f, 7.0f, 6.0f,
                                     5.0f,  4.0f,  3.0f};
#define AR_NCCL_MAXCH 16 /* MAXCHANNELS / 2: the search's maxChannels */

/* NCCL's P2P level (paths.cc ncclTopoCheckP2p) in arbench's path classes: NCCL's PATH_PHB (through a CPU) is
 * arbench's PHB and NODE. NCCL_P2P_LEVEL's numbers (levelsOldToNew): 1 PIX, 2 PXB, 3 PHB, 4 and 5 SYS. */
int ar_nccl_p2p_env(json_t *env) {
  /* paths.cc ncclGetLevel: NCCL_P2P_DISABLE=1 (strtol) is LOC; else NCCL_P2P_LEVEL a name of topoPathTypeStr up to
   * SYS, or a digit-led legacy number (levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS). Names below PIX
   * (LOC, NVL, NVB, C2C) allow no P2P over PCIe; P2C and PXN sit between PXB and PHB: PXB's on PCIe. */
  static const struct { const char *name; enum ar_path c; } names[] = {
    {"LOC", AR_PATH_X}, {"NVL", AR_PATH_X}, {"NVB", AR_PATH_X}, {"C2C", AR_PATH_X}, {"PIX", AR_PATH_PIX},
    {"PXB", AR_PATH_PXB}, {"P2C", AR_PATH_PXB}, {"PXN", AR_PATH_PXB}, {"PHB", AR_PATH_NODE}, {"SYS", AR_PATH_SYS}};
  static const enum ar_path old[] = {AR_PATH_X, AR_PATH_PIX, AR_PATH_PXB, AR_PATH_NODE, AR_PATH_SYS};
  const char *dis = json_string_value(json_object_get(env, "NCCL_P2P_DISABLE"));
  if (dis && strtol(dis, NULL, 0) == 1) return 1 + AR_PATH_X;
  const char *v = json_string_value(json_object_get(env, "NCCL_P2P_LEVEL"));
  if (!v) return 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(v, names[i].name)) return 1 + (int)names[i].c;
  if (*v >= '0' && *v <= '9') {
    long l = strtol(v, NULL, 0);
    return 1 + (int)old[l > 4 ? 4 : l < 0 ? 0 : l];
  }
  return 0;
}

static enum ar_path p2p_level(const struct ar_topo *t, const struct ar_mparams *p, int n, const char **how) {
  if (p->nccl_no_p2p > 0) { /* paths.cc ncclTopoCheckP2p: NVML's read and write P2P status must both be OK, whatever
                             * the level allows, else p2p = 0 (on PCIe NCCL_IGNORE_DISABLED_P2P=1 only quiets the
                             * message; 2, for NCCL's own tests, skips the check) */
    *how = "--calib nccl_no_p2p: NVML reports P2P not supported (nvidia-smi topo -p2p r/w: NS)";
    return AR_PATH_X;
  }
  if (p->nccl_p2p_env > 0) {
    *how = "the run's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE";
    return (enum ar_path)(p->nccl_p2p_env - 1);
  }
  if (p->nccl_p2p_level > 0) {
    int l = (int)p->nccl_p2p_level;
    *how = "--calib nccl_p2p_level (NCCL_P2P_LEVEL)";
    return l <= 1 ? AR_PATH_PIX : l == 2 ? AR_PATH_PXB : l == 3 ? AR_PATH_NODE : AR_PATH_SYS;
  }
  if (!strcmp(ar_topo_cpu_vendor(t), "AuthenticAMD") && n <= 2) {
    *how = "paths.cc: P2P between pairs of GPUs on AMD CPUs (2 GPUs)";
    return AR_PATH_SYS;
  }
  *how = "paths.cc: NCCL's default, no P2P through a CPU host bridge (PXB)";
  return AR_PATH_PXB;
}

/* The ring's hops (GPU i to i+1) NCCL runs through host memory. */
static void ring_transport(const struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p,
                           struct ar_nccl_graph *out) {
  int n = ar_mgraph_n(g);
  out->p2p_level = p2p_level(t, p, n, &out->p2p_how);
  out->p2p_by_env = p->nccl_no_p2p <= 0 && p->nccl_p2p_env > 0; /* p2p_level's order: NVML's status first */
  out->ring_hops = n;
  for (int r = 0; r < n; r++) {
    enum ar_path c = ar_mgraph_class(g, r, (r + 1) % n);
    if (c > out->p2p_level) out->shm_hops++;
  }
}

void ar_nccl_graph(const struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p,
                   struct ar_nccl_graph *out) {
  const char *how = NULL;
  int cc = ar_nccl_cc(t, p, &how), n = ar_mgraph_n(g);
  const float *sp = cc >= 100 ? speeds_sm100 : cc >= 90 ? speeds_sm90 : speeds_intra;
  int ns = cc >= 100 ? 12 : cc >= 90 ? 11 : 13;
  /* NCCL's PCIe bandwidth: width x GT/s x 10 / 80 per lane-Gbps, i.e. 48 of hwloc's 63.015 GB/s for Gen5. */
  double gpu = ar_topo_gpu_link_min_gbs(t) * 48.0 / 63.015384, path = ar_topo_bottleneck_gbs(t, NULL, n) * 48.0 / 63.015384;
  memset(out, 0, sizeof *out);
  ring_transport(g, t, p, out);
  if (out->shm_hops) out->shm_link_gbs = ar_mgraph_ring_host_gbs(g, p, out->p2p_level);
  out->cc = cc;
  out->socket_gbs = 0;
  if (ar_mgraph_islands(g, NULL) > 1) /* a ring over both sockets crosses the socket link */
    out->socket_gbs = ar_nccl_socket_gbs(t, p, &how);
  /* what one channel may carry: each hop takes its speed off every link of its path (twice off a switch's uplink when
   * both hops of a ring through host memory cross it), x6/5 through an Intel root complex (topo.h INTEL_P2P_OVERHEAD) */
  double ring = ar_mgraph_ring_nccl_gbs(g, out->p2p_level, !strcmp(ar_topo_cpu_vendor(t), "GenuineIntel"),
                                        out->socket_gbs > 0 ? out->socket_gbs : INFINITY, &out->intel_phb);
  if (!(ring > 0) || !isfinite(ring)) ring = 0;
  int i = 0;
  while (i < ns - 1 && sp[i] > fmin(gpu, path > 0 ? path : gpu)) i++; /* maxBw: the best GPU-to-GPU path */
  double best = 0, bspeed = 0;
  int bch = 0;
  for (; i < ns; i++) {
    int k = (int)floor(ring / sp[i] + 1e-9);
    if (k > AR_NCCL_MAXCH) k = AR_NCCL_MAXCH;
    if (k >= 1 && k * sp[i] > best + 1e-9) {
      best = k * sp[i];
      bspeed = sp[i];
      bch = k;
    }
    if (i + 1 < ns && bch && !(sp[i + 1] / bspeed > 0.49)) break;
  }
  if (!bch) { /* no ring at any speed: NCCL falls back to the simple order */
    out->fallback = 1;
    out->channels = 1;
    out->bw_intra = 0.1;
  } else {
    out->channels = bch;
    out->bw_intra = bspeed;
    if (bspeed >= 25.0 && !(cc > 80 && bspeed < 50.0 && bch > 4)) { /* ncclTopoDupChannels */
      int dup = bch * 2 > AR_NCCL_MAXCH ? AR_NCCL_MAXCH : bch * 2;
      out->bw_intra = bspeed / ((dup + bch - 1) / bch);
      out->channels = dup;
    }
  }
  out->comm_channels = 2 * out->channels > 32 ? 32 : 2 * out->channels;
}

void ar_nccl_transport_words(const struct ar_nccl_graph *ng, char *buf, size_t len) {
  if (ng->shm_hops && ng->p2p_level == AR_PATH_X)
    snprintf(buf, len, "all %d ring hops through host memory (SHM), no P2P (%s)", ng->ring_hops, ng->p2p_how);
  else if (!ng->shm_hops)
    snprintf(buf, len, "P2P on all %d ring hops (P2P up to %s: %s)", ng->ring_hops, ar_path_name(ng->p2p_level),
             ng->p2p_how);
  else
    snprintf(buf, len, "%d of %d ring hops through host memory (SHM), P2P only up to %s (%s)", ng->shm_hops,
             ng->ring_hops, ar_path_name(ng->p2p_level), ng->p2p_how);
}

/* tuning.cc's tree correction factors, [LL, LL128, Simple][log2(bytes / 64)], 64 B to 256 MiB. */
static const float tree_corr[3][23] = {
  {1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .7f, .7f, .7f, .7f, .6f, .5f, .4f, .4f, .5f, .6f, .7f, .8f, .9f, 1.0f, 1.0f, 1.0f, 1.0f},
  {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .8f, .8f, .7f, .6f, .6f, .6f, .6f, .6f, .6f, .8f, .9f, .9f, .9f, .9f, 1.0f, 1.0f},
  {.9f, .9f, .9f, .9f, .9f, .9f, .9f, .8f, .7f, .6f, .6f, .5f, .5f, .5f, .5f, .6f, .7f, .8f, .7f, .7f, .8f, .9f, .9f}};

static int log2i(double x) {
  int l = -1;
  for (unsigned long long v = (unsigned long long)x; v; v >>= 1) l++;
  return l;
}

/* NCCL's own estimate (us) of algorithm tree (0 ring, 1 tree) with protocol ll (1 LL, 0 Simple). */
static double nccl_estimate(const struct ar_nccl_graph *ng, const struct ar_mparams *p, int n, int tree, int ll,
                            double bytes) {
  int ci = ng->cc >= 100 ? 3 : ng->cc >= 90 ? 2 : ng->cc >= 80 ? 1 : 0;
  static const double ll_max[4] = {39.0, 87.7, 141.0, 282.0};   /* llMaxBws[cc][N1] */
  static const double tree_max[4] = {26.5, 24.0, 38.7, 70.0};   /* perChMaxTreeBws[cc][N1] */
  double bw = ng->channels * ng->bw_intra;
  if (!tree && ll) bw = fmin(ll_max[ci], bw * 0.5);
  if (tree) bw = fmin(bw * 0.92, ng->channels * tree_max[ci]);
  if (tree && ll) bw = fmin(bw / 3.8, ll_max[ci]);
  bw *= tree ? 0.5 : (double)n / (2.0 * (n - 1)); /* "Convert bus BW to algorithm BW" */
  double lat = p->nccl_base_us[tree][!ll] + 2.0 * (n - 1) * p->nccl_hw_us[tree][!ll];
  int ls = log2i(bytes / 64);
  if (tree && ls >= 0 && ls < 23) bw *= tree_corr[ll ? 0 : 2][ls];
  return lat + bytes / (1000.0 * bw);
}

void ar_nccl_choose(const struct ar_nccl_graph *ng, const struct ar_mparams *p, int n, double bytes,
                    struct ar_nccl_choice *c) {
  static const enum ar_malgo fam[2][2] = {{AR_M_RING_SIMPLE, AR_M_RING_LL}, {AR_M_TREE_SIMPLE, AR_M_TREE_LL}};
  double best = INFINITY;
  int bt = 0, bl = 0;
  for (int a = 1; a >= 0; a--) /* NCCL's order: Tree (0) before Ring (1), LL before Simple; strict < keeps the first */
    for (int ll = 1; ll >= 0; ll--) {
      double t = nccl_estimate(ng, p, n, a, ll, bytes);
      if (t < best) {
        best = t;
        bt = a;
        bl = ll;
      }
    }
  int nt = bl ? 512 : bt ? 512 : (ng->bw_intra * ng->channels <= 12.0 ? 256 : 512); /* maxThreads */
  double thr = bl ? 8.0 * (bt ? 1 : n) : 64.0;                                       /* threadThresholds */
  int nc = ng->comm_channels;
  while (bytes < (double)nc * nt * thr && nc >= 2) nc--;
  c->family = fam[bt][bl];
  c->channels = nc;
  c->nccl_us = best;
}

double ar_nccl_shm_floor(const struct ar_mparams *p, const struct ar_nccl_graph *ng, int n, enum ar_malgo a) {
  if (!ng || !ng->shm_hops || !ar_malgo_is_nccl(a)) return 0;
  int ll = a == AR_M_RING_LL || a == AR_M_TREE_LL;
  double bus = 2.0 * (n - 1) / n, cap = bus / ((ll ? p->nccl_shm_ll_gbs : p->nccl_shm_simple_gbs) * 1e3);
  if (ng->shm_link_gbs > 0 && isfinite(ng->shm_link_gbs))
    cap = fmax(cap, bus / (ng->shm_link_gbs * ar_model_nccl_eff(p, a) * 1e3));
  return cap;
}

double ar_nccl_family_floor(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                            enum ar_malgo a) {
  int n = ar_mgraph_n(g), fitted = p->fit[a].set && p->fit[a].ranks == n; /* a fit measured whatever transport ran */
  if (fitted || !ng || ng->p2p_level != AR_PATH_X) return 0;
  return ar_nccl_shm_floor(p, ng, n, a);
}

double ar_nccl_family_time(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                           enum ar_malgo a, double bytes) {
  return ar_model_time_capped(g, p, a, bytes, ar_nccl_family_floor(g, p, ng, a));
}

double ar_nccl_default_time(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                            double bytes, struct ar_nccl_choice *c) {
  int n = ar_mgraph_n(g);
  ar_nccl_choose(ng, p, n, bytes, c);
  /* us per byte of the chosen channels at nccl_chan_gbs busbw each, and no faster than the ring's hops through host
   * memory allow (ar_nccl_shm_floor) */
  double cap = 2.0 * (n - 1) / n / (c->channels * p->nccl_chan_gbs * 1e3);
  return ar_model_time_capped(g, p, c->family, bytes, fmax(cap, ar_nccl_shm_floor(p, ng, n, c->family)));
}

size_t ar_model_crossover_default(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                                  const size_t *sizes, int nsizes, int custom_mask) {
  struct ar_nccl_choice c;
  for (int s = 0; s < nsizes; s++) {
    double best = INFINITY, bytes = (double)sizes[s];
    for (int a = 0; a < AR_M_NALGO; a++)
      if (custom_mask & 1 << a) best = fmin(best, ar_model_time(g, p, a, bytes, NULL, NULL));
    if (ar_nccl_default_time(g, p, ng, bytes, &c) < best) return sizes[s];
  }
  return 0;
}
