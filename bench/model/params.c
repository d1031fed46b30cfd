/* params.c — the model's default parameters, each with where it comes from, and --calib files.
 * Published sources are cited at each value; "estimate" marks a value no source gave us. */
#include "infile.h"
#include "model/model.h"
#include "ar.h"
#include <math.h>
#include <string.h>

/* Sources (transcribed by hand; numbers, not text, are taken):
 * [R6K]  voipmonitor/rtx6kpro, hardware/pcie-bandwidth.md (commit 29f3863a, 2026-05-04),
 *        https://github.com/voipmonitor/rtx6kpro/blob/master/hardware/pcie-bandwidth.md — RTX PRO 6000
 *        Blackwell boxes: P2P write bandwidth, P2P latency, NCCL busbw, custom vs NCCL table.
 * [NCCL] NVIDIA/nccl v2.28.9-1, src/graph/tuning.cc (ncclTunerConstantsDefaults, ncclTopoTuneModel) and
 *        src/graph/topo.h (link bandwidth constants), https://github.com/NVIDIA/nccl/tree/v2.28.9-1
 * [R6K-NCCL] voipmonitor/rtx6kpro, optimization/nccl-tuning.md (commit f9de90e1, 2026): Festr's dual AMD
 *        Turin box, NCCL 2.28.3 with and without the page's graph XML (tests/fixtures/model/published/).
 * [VLLM] vllm-project/vllm issue #56128 (2026-09), "concurrent store / load" table, 4x RTX PRO 6000. */
void ar_mparams_default(struct ar_mparams *p) {
  memset(p, 0, sizeof *p);
  /* [R6K] "P2P Bandwidth Measurements": Gen5 x16 P2P writes ~53-56 GB/s of 63.0 (typical 54 -> 0.86). */
  p->eff_gen5 = 0.86;
  /* estimate: no published Gen4 P2P table found; between Gen3's and Gen5's ratios. */
  p->eff_gen4 = 0.83;
  /* [NCCL] topo.h PCI_BW 12.0 GB/s for "PCI Gen3 x16" (of 15.75): 0.76. */
  p->eff_gen3 = 0.76;
  /* [NCCL] topo.h SKL_QPI_BW 10.0: NCCL's P2P bandwidth through an Intel (Skylake and later) UPI link. */
  p->socket_gbs_intel = 10.0;
  /* [R6K] cross-NUMA P2P writes on dual AMD Turin ~50-51 GB/s (NCCL's own AMD_BW of 16 is the value the
   * page's "graph XML fix" corrects upward). Genoa measured ~39: pass --calib to use it. */
  p->socket_gbs_amd = 50.0;
  p->socket_gbs_other = 10.0; /* estimate: NCCL's Intel value, the more pessimistic one */
  /* [VLLM] every rank driving all peers: loads 20.60 GB/s vs stores 25.40 GB/s -> 0.81. */
  p->read_eff = 0.81;
  /* [R6K] "P2P Latency Measurements": switches (luke) 0.44-0.52 us, same-NUMA root ports 0.36-0.38,
   * cross-NUMA (Turin) 0.44. NODE (between host bridges of one socket) and PXB: estimates. */
  p->hop_us[AR_PATH_X] = 0;
  p->hop_us[AR_PATH_PIX] = 0.45;
  p->hop_us[AR_PATH_PXB] = 0.50;
  p->hop_us[AR_PATH_PHB] = 0.37;
  p->hop_us[AR_PATH_NODE] = 0.45;
  p->hop_us[AR_PATH_SYS] = 0.60; /* estimate: 0.44 measured on Turin; Intel UPI assumed slower */
  /* [R6K] "Custom Allreduce vs NCCL": custom one-shot 7.5 us at 256 B on 8 GPUs, less its two flag
   * hops (2 x 0.45). */
  p->custom_fixed_us = 6.6;
  /* [R6K] NCCL 24.1-24.6 us from 256 B to 64 KiB on 8 GPUs, less NCCL's own ring LL latency for 8 ranks
   * ([NCCL] 6.6 + 14 x 1.0 = 20.6 us): the fixed cost NCCL's tuning model leaves out under nccl-tests' back-to-back
   * launches, ~3.7 us. Used by ring Simple and the trees; ring LL has its own fit (ring_ll_fixed_us below). */
  p->nccl_launch_us = 3.7;
  /* [NCCL] tuning.cc baseLatencies (Ring, Tree) x (LL, Simple) and PCI hwLatencies. */
  p->nccl_base_us[0][0] = 6.6; p->nccl_base_us[0][1] = 8.4;
  p->nccl_base_us[1][0] = 6.8; p->nccl_base_us[1][1] = 8.4;
  p->nccl_hw_us[0][0] = 1.0;   p->nccl_hw_us[0][1] = 5.7;
  p->nccl_hw_us[1][0] = 1.0;   p->nccl_hw_us[1][1] = 4.0;
  /* [R6K] "NCCL AllReduce Bus Bandwidth": 41.1 GB/s busbw (luke, switches, MIN_NCHANNELS=8) over the
   * 54 GB/s a link gives (63.02 x 0.86): 0.76. Calibrated on that one row; the other rows validate. */
  p->nccl_simple_eff = 0.76;
  /* [R6K-NCCL] "Effect of NCCL Graph XML", without XML (NCCL's default: Ring Simple, 2 channels) 48.16 us at
   * 32 KiB on 8 GPUs: (48.16 - 3.7 launch - 8.4 base) / 14 steps = 2.58 us a step; NCCL's own estimate (5.7)
   * is what its tuning compares, not what Simple takes. Fitted on that row. */
  p->ring_simple_step_us = 2.6;
  /* [R6K] ring LL's time of an empty call on the two GPU counts the sources publish, both nccl-tests (loop timing:
   * back-to-back launches): luke's 8 GPUs 24.6/24.1/24.2 us at 256 B/1 KiB/8 KiB (mean 24.3, 14 steps) and the
   * ESC8000A's 4 GPUs 13.5/13.2/13.9 at 1/4/8 KiB (optimization/pcie-oneshot-allreduce.md, mean 13.53, 6 steps):
   * (24.3 - 13.53) / 8 = 1.35 us a step, 13.53 - 6 x 1.35 = 5.45 fixed. Fitted on those rows (NCCL's own estimate,
   * 6.6 + 1.0 a step, is what its tuning compares; launch + that gave 16.3 us on 4 GPUs). */
  p->ring_ll_fixed_us = 5.45;
  p->ring_ll_step_us = 1.35;
  /* estimate: a call timed alone (--timing iter without graphs: each call waited for) pays its host launch and the
   * wait, which back-to-back launches (nccl-tests, --timing loop) and graph replays hide under the previous call;
   * no published table measures one box both ways (docs/impact.md: "a few us per call"). Named when used. */
  p->iter_launch_us = 3.0;
  /* [R6K-NCCL] "Impact of Channel Count": default (2 channels) 22.2 GB/s busbw at 32 MiB on dual Turin: 11.1
   * per channel. Fitted on that row. */
  p->nccl_chan_gbs = 11.1;
  /* [R6K] optimization/pcie-oneshot-allreduce.md "Raw AllReduce Latency", NCCL column, on the ASUS ESC8000A-E13P whose
   * layout its hardware/asus-esc8000a-e13p-broadcom-switches.md publishes (nvidia-smi topo: GPU0-1 PIX, GPU0-2 NODE,
   * dual AMD; tests/fixtures/model/esc8000a-e13p.xml), 4 GPUs, default NCCL (the page adds NCCL_P2P_LEVEL=SYS only as
   * a variant): NCCL's own rule (paths.cc, below) runs 2 of the ring's 4 hops through host memory there. Ring LL,
   * 128/256/512 KiB at 24.7/40.9/71.7 us: least squares of (t - ring_ll_fixed_us 5.45) on the bytes, 16.91 us per
   * 128 KiB = 11.6 GB/s busbw; ring Simple at 1 MiB 85.2 us: (85.2 - 3.7 - 8.4) us for 1 MiB = 21.5 GB/s busbw.
   * Fitted on those rows (4 GPUs, 4 channels, Gen5): the most a ring with an SHM hop carries, for NCCL's default. */
  p->nccl_shm_ll_gbs = 11.6;
  p->nccl_shm_simple_gbs = 21.5;
  /* nccl_p2p_level 0: NCCL's own rule decides the transport of each ring hop ([NCCL] v2.29.2-1 paths.cc
   * ncclTopoCheckP2p: P2P up to PXB, on AMD CPUs with at most 2 GPUs up to SYS; nccltune.c), unless a result's run
   * environment set NCCL_P2P_LEVEL or NCCL_P2P_DISABLE (--against) or --calib sets it. A ring with an SHM hop runs no
   * faster than nccl_shm_*_gbs (above), nor than the links its hops through host memory cross carry them ([NCCL] shm.cc:
   * the buffer on the receiver's side, NCCL_SHM_LOCALITY 2; stores up, loads down at read_eff: model.c
   * ar_mgraph_ring_host_gbs); the level is named as assumed (assume.c).
   * nccl_no_p2p -1: NVML's P2P status between the GPUs not stated, supported assumed and named ([NCCL] v2.29.2-1
   * paths.cc ncclTopoCheckP2p turns P2P off on a pair whose NVML P2P read or write status is not OK, whatever the
   * level); --calib 1 where nvidia-smi topo -p2p r or w shows NS, 0 where both show OK. */
  /* [NCCL] tuning.cc: ring LL busBw * 0.5; tree busBw * 0.85 (tree pattern); tree LL * 1/3.8. */
  p->nccl_ll_factor = 0.5;
  p->nccl_tree_factor = 0.85;
  p->nccl_tree_ll_factor = 1.0 / 3.8;
  p->nccl_no_p2p = -1; /* not stated: NVML's P2P status is read at init, not in a topology (assume.c names it) */
}

static const char *const knob_names[] = {"eff_gen5", "eff_gen4", "eff_gen3", "socket_gbs", "read_eff",
                                         "custom_fixed_us", "nccl_launch_us", "nccl_simple_eff", "gpu_cc",
                                         "nccl_socket_gbs", "ring_simple_step_us", "nccl_chan_gbs",
                                         "ring_ll_fixed_us", "ring_ll_step_us", "iter_launch_us", "nccl_p2p_level",
                                         "nccl_shm_ll_gbs", "nccl_shm_simple_gbs", "nccl_no_p2p"};

static double *knob(struct ar_mparams *p, int i) {
  double *k[] = {&p->eff_gen5, &p->eff_gen4, &p->eff_gen3, &p->socket_gbs, &p->read_eff,
                 &p->custom_fixed_us, &p->nccl_launch_us, &p->nccl_simple_eff, &p->gpu_cc,
                  &p->nccl_socket_gbs, &p->ring_simple_step_us, &p->nccl_chan_gbs,
                 &p->ring_ll_fixed_us, &p->ring_ll_step_us, &p->iter_launch_us, &p->nccl_p2p_level,
                 &p->nccl_shm_ll_gbs, &p->nccl_shm_simple_gbs, &p->nccl_no_p2p};
  return k[i];
}
#define AR_NKNOBS (int)(sizeof knob_names / sizeof knob_names[0])

static int load_params(struct ar_mparams *p, json_t *params, const char *path, char *err, size_t len) {
  const char *k;
  json_t *v;
  json_object_foreach(params, k, v) {
    int i = 0;
    while (i < AR_NKNOBS && strcmp(knob_names[i], k)) i++;
    int flag = i < AR_NKNOBS && !strcmp(knob_names[i], "nccl_no_p2p"); /* a yes/no: 0 or 1 */
    if (flag && json_is_number(v) && (json_number_value(v) == 0 || json_number_value(v) == 1)) {
      *knob(p, i) = json_number_value(v);
      continue;
    }
    if (flag) {
      snprintf(err, len, "%s: params.nccl_no_p2p: 1 (NVML reports no P2P between the GPUs) or 0 (it reports P2P), "
               "not %s", path, json_is_number(v) ? "another number" : "a non-number");
      return -AR_EINVAL;
    }
    if (i == AR_NKNOBS || !json_is_number(v) || json_number_value(v) <= 0) {
      snprintf(err, len, "%s: params.%s: not a known positive parameter (known: eff_gen5, eff_gen4, "
               "eff_gen3, socket_gbs, read_eff, custom_fixed_us, nccl_launch_us, nccl_simple_eff, gpu_cc, "
               "nccl_socket_gbs, ring_simple_step_us, nccl_chan_gbs, ring_ll_fixed_us, ring_ll_step_us, "
               "iter_launch_us, nccl_p2p_level, nccl_shm_ll_gbs, nccl_shm_simple_gbs, nccl_no_p2p)", path, k);
      return -AR_EINVAL;
    }
    *knob(p, i) = json_number_value(v);
  }
  return 0;
}

static int load_families(struct ar_mparams *p, json_t *fam, const char *path, char *err, size_t len) {
  const char *k;
  json_t *v;
  json_object_foreach(fam, k, v) {
    int a = ar_malgo_parse(k);
    json_t *f = json_object_get(v, "fixed_us"), *b = json_object_get(v, "us_per_byte"),
           *r = json_object_get(v, "ranks");
    if (a < 0 || !json_is_number(f) || !json_is_number(b) || !json_is_integer(r) || json_number_value(f) < 0 ||
        json_number_value(b) < 0 || json_integer_value(r) < 2) {
      snprintf(err, len, "%s: families.%s: need a known algorithm with fixed_us >= 0, us_per_byte >= 0 "
               "and ranks >= 2", path, k);
      return -AR_EINVAL;
    }
    p->fit[a].set = 1;
    p->fit[a].ranks = (int)json_integer_value(r);
    p->fit[a].fixed_us = json_number_value(f);
    p->fit[a].us_per_byte = json_number_value(b);
  }
  return 0;
}

int ar_mparams_load(struct ar_mparams *p, const char *path, char *err, size_t len) {
  json_error_t je;
  json_t *root = NULL;
  if (*path == '{') root = json_loads(path, 0, &je); /* inline, or a file */
  else if (ar_infile_json(path, "--calib file", 0, &root, &je, err, len)) return -AR_EINVAL;
  if (!root || !json_is_object(root)) {
    snprintf(err, len, "--calib %s: not a JSON object (%s)", path, root ? "wrong type" : je.text);
    json_decref(root);
    return -AR_EINVAL;
  }
  json_t *params = json_object_get(root, "params"), *fam = json_object_get(root, "families");
  int rc = 0;
  if (!params && !fam) {
    snprintf(err, len, "--calib %s: has neither \"params\" nor \"families\" (write one with arbench model --fit)",
             path);
    rc = -AR_EINVAL;
  }
  if (!rc && params) rc = json_is_object(params) ? load_params(p, params, path, err, len) : -AR_EINVAL;
  if (!rc && fam) rc = json_is_object(fam) ? load_families(p, fam, path, err, len) : -AR_EINVAL;
  if (!rc && !params && !json_object_size(fam) && json_object_get(root, "links")) {
    snprintf(err, len, "--calib %s: holds link parameters only (from link records): the allreduce model has nothing "
             "to apply; arbench links --calib reads them", path);
    rc = -AR_EINVAL;
  }
  if (rc && !*err) snprintf(err, len, "--calib %s: \"params\" and \"families\" must be objects", path);
  json_decref(root);
  return rc;
}

json_t *ar_mparams_json(const struct ar_mparams *p) {
  json_t *o = json_object();
  struct ar_mparams c = *p;
  for (int i = 0; i < AR_NKNOBS; i++) json_object_set_new(o, knob_names[i], json_real(*knob(&c, i)));
  json_t *fam = json_object();
  for (int a = 0; a < AR_M_NALGO; a++)
    if (p->fit[a].set)
      json_object_set_new(fam, ar_malgo_name(a), json_pack("{s:i,s:f,s:f}", "ranks", p->fit[a].ranks,
                          "fixed_us", p->fit[a].fixed_us, "us_per_byte", p->fit[a].us_per_byte));
  json_object_set_new(o, "families", fam);
  return o;
}
