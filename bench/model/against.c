/* against.c — `arbench model --against RESULTS`: measured / predicted busbw for each GPU cell (the
 * analysis grid's cell: p50 and busbw over all its runs, as table prints them), and a one-line diagnosis
 * from what the result recorded (NCCL transport, protocol, channels) when far below. */
#include "model/model.h"
#include "analysis/analysis.h"
#include "links/links.h"
#include "links/records.h"
#include "model/linkbound.h"
#include "ar.h"
#include "backend.h"
#include "results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_FAR_BELOW 0.7 /* measured busbw under 70% of predicted is "far below" */
#define AR_AGAINST_RANKS 65

static const char *nccl_field(json_t *rec, const char *flat, const char *inner) {
  const char *s = ar_rec_str(rec, flat, "");
  return *s ? s : ar_rec_str(json_object_get(rec, "nccl"), inner, "");
}

/* Worst path class among the first n GPUs. */
static enum ar_path worst_class(const struct ar_topo *t, int n) {
  enum ar_path w = AR_PATH_X;
  for (int a = 0; a < n && a < ar_topo_ngpus(t); a++)
    for (int b = a + 1; b < n && b < ar_topo_ngpus(t); b++) {
      enum ar_path c = ar_topo_path(t, a, b, NULL, NULL);
      if (c > w) w = c;
    }
  return w;
}

void ar_model_diagnose(json_t *rec, const struct ar_topo *t, const struct ar_nccl_graph *ng, double mb, double pb,
                       char *buf, size_t len) {
  int n = (int)ar_rec_num(rec, "ranks", 0);
  const char *tr = nccl_field(rec, "nccl_transport", "transport"), *proto = nccl_field(rec, "nccl_proto", "proto");
  double ch = ar_rec_num(rec, "nccl_channels", ar_rec_num(json_object_get(rec, "nccl"), "channels", 0));
  double gpu = ar_topo_gpu_link_min_gbs(t), path = ar_topo_bottleneck_gbs(t, NULL, n);
  *buf = 0;
  if (!(pb > 0) || mb >= AR_FAR_BELOW * pb) return;
  int k = snprintf(buf, len, "busbw %#.3g GB/s vs %#.3g predicted: ", mb, pb); /* 3 digits: 8 B reads 0.000650, not 0 */
  if (k < 0 || (size_t)k >= len) return;
  if (ng && ng->shm_hops && ng->p2p_level == AR_PATH_X && (!*tr || strstr(tr, "SHM"))) /* no level gives P2P here */
    snprintf(buf + k, len - k, "NCCL runs all %d ring hops through host memory (SHM), no P2P (%s)%s", ng->ring_hops,
             ng->p2p_how, ng->p2p_by_env ? " — unset NCCL_P2P_DISABLE / NCCL_P2P_LEVEL for P2P"
             : "; the model times SHM hops from the links and a Gen5 box's SHM rate (params.c), not their latency — "
               "--calib nccl_shm_ll_gbs / nccl_shm_simple_gbs, or model --fit on this box's results");
  else if (strstr(tr, "SHM") && worst_class(t, n) <= AR_PATH_PXB) /* NCCL's default level allows P2P on these pairs */
    snprintf(buf + k, len - k, "NCCL is using SHM between %s pairs, where its default level allows P2P: NVML reports "
             "no P2P between them (nvidia-smi topo -p2p r, w) or the run disabled it — --calib "
             "'{\"params\":{\"nccl_no_p2p\":1}}' models that", ar_path_name(worst_class(t, n)));
  else if (strstr(tr, "SHM"))
    snprintf(buf + k, len - k, "NCCL is using SHM between %s pairs — try NCCL_P2P_LEVEL=SYS",
             ar_path_name(worst_class(t, n)));
  else if (!*tr && ng && ng->shm_hops) /* nothing recorded: what NCCL's own rules (paths.cc) run on this topology */
    snprintf(buf + k, len - k, "NCCL's default runs %d of %d ring hops through host memory (SHM) on this topology "
             "(P2P only up to %s) — try NCCL_P2P_LEVEL=SYS", ng->shm_hops, ng->ring_hops, ar_path_name(ng->p2p_level));
  else if (!strcmp(proto, "LL128"))
    snprintf(buf + k, len - k, "NCCL ran LL128 on PCIe (unsafe, and slow here) — unset NCCL_PROTO");
  else if (ch > 0 && ch < 4 && ar_rec_num(rec, "size", 0) >= (1 << 20))
    snprintf(buf + k, len - k, "NCCL used %.0f channel%s — try NCCL_MIN_NCHANNELS=8", ch, ch == 1 ? "" : "s");
  else if (path > 0 && gpu > 0 && path < gpu)
    snprintf(buf + k, len - k, "a link on the GPU paths runs at %.1f GB/s, below the GPUs' %.1f — run "
             "`arbench doctor` (downtrained link?)", path, gpu);
  else
    snprintf(buf + k, len - k, "nothing recorded explains it — run `arbench doctor` (ACS redirect, IOMMU, "
             "link training, P2P)");
}

/* NCCL's and the p2p kernels' results, by the registry's family (the ones the model has algorithms for). */
static int is_gpu_result(json_t *r) {
  unsigned flags;
  int fam = ar_backend_family(ar_rec_str(r, "backend", ""), &flags);
  return fam == AR_BE_FAM_NCCL || fam == AR_BE_FAM_P2P;
}

static void line(const char *label, json_t *r, int f, enum ar_mmethod mm, double mt, double pt, double mb, double pbw,
                 const char *diag, const struct ar_nccl_graph *ng, int json) {
  if (json) {
    json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:s}", "type", "against", "spec", label,
      "model", ar_malgo_name(f), "size", (json_int_t)ar_rec_num(r, "size", 0), "ranks", (int)ar_rec_num(r, "ranks", 0),
      "method", ar_mmethod_name(mm), "measured_us", mt, "predicted_us", pt, "measured_busbw_gbs", mb,
      "predicted_busbw_gbs", pbw, "ratio", pbw > 0 ? mb / pbw : 0, "diagnosis", diag);
    if (ng) /* NCCL's default on this topology: its transport on the ring (paths.cc) */
      json_object_set_new(o, "nccl_shm_hops", json_integer(ng->shm_hops));
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s ? s : "{}");
    free(s);
    json_decref(o);
    return;
  }
  printf("%-28s %-17s %10lld %3d %10.1f %10.1f %7.1f %7.1f %6.2f %-6s%s%s\n", label, ar_malgo_name(f),
         (long long)ar_rec_num(r, "size", 0), (int)ar_rec_num(r, "ranks", 0), mt, pt, mb, pbw, pbw > 0 ? mb / pbw : 0,
         ar_mmethod_name(mm), *diag ? "  " : "", diag);
}

static struct ar_mgraph *graph_for(struct ar_mgraph **cache, const struct ar_topo *t, const struct ar_mparams *p,
                                   int n) {
  char err[AR_ERRLEN];
  if (n < 2 || n >= AR_AGAINST_RANKS || n > ar_topo_ngpus(t)) return NULL;
  if (!cache[n] && ar_mgraph_build(&cache[n], t, n, p, err, sizeof err)) return NULL;
  return cache[n];
}

/* NCCL's result with neither its choice recorded (nccl_algo, nccl_proto) nor one forced in its variant. */
static int unforced_nccl(json_t *r) {
  const char *b = ar_rec_str(r, "backend", ""), *v = ar_rec_str(r, "variant", "");
  if (strcmp(b, "nccl") && strcmp(b, "nccl-tests")) return 0;
  return !*nccl_field(r, "nccl_algo", "algo") && !*nccl_field(r, "nccl_proto", "proto") && !strstr(v, "algo=") &&
         !strstr(v, "proto=");
}

/* One measured cell: its family (from the latest record: what NCCL chose at that size) and graph. */
static int cell_covered(const struct ar_grid *g, int s, int c, struct ar_mgraph **cache, const struct ar_topo *t,
                        const struct ar_mparams *p, json_t *runs, int *f, struct ar_mgraph **mg, double *dflt_us,
                        struct ar_nccl_graph *ngo, int *is_dflt) {
  json_t *r = ar_grid_at(g, s, c);
  *dflt_us = NAN;
  *is_dflt = 0;
  ngo->ring_hops = 0; /* 0: no graph for the diagnosis */
  if (!r || g->predicted[c] || !is_gpu_result(r)) return 0;
  *f = ar_model_family_of(r);
  *mg = *f >= 0 ? graph_for(cache, t, p, ar_rec_ranks(r)) : NULL;
  if (*mg && ar_malgo_is_nccl(*f)) {
    struct ar_nccl_graph ng;
    struct ar_nccl_choice ch;
    struct ar_mparams q = *p; /* the P2P level the run's environment set, if any */
    q.nccl_p2p_env = ar_nccl_p2p_env(json_object_get(json_object_get(runs, ar_rec_str(r, "run_id", "")), "env"));
    ar_nccl_graph(*mg, t, &q, &ng);
    if (unforced_nccl(r)) { /* nothing recorded what NCCL ran: what it runs by default on this topology */
      *dflt_us = ar_nccl_default_time(*mg, &q, &ng, (double)g->size[s], &ch);
      *f = ch.family;
      *ngo = ng;
      *is_dflt = 1;
    } else { /* a recorded or forced family: with no P2P at any level its hops run through host memory all the same */
      *dflt_us = ar_nccl_family_time(*mg, &q, &ng, (enum ar_malgo)*f, (double)g->size[s]);
      if (ng.p2p_level == AR_PATH_X) *ngo = ng; /* for the diagnosis only: no level gives P2P here */
    }
  }
  return *mg != NULL;
}

static int compare_all(const struct ar_grid *gr, int ng, const struct ar_topo *t, const struct ar_mparams *p,
                       json_t *runs, int json, int *skipped) {
  struct ar_mgraph *cache[AR_AGAINST_RANKS] = {0}, *mg;
  int done = 0, head = 0, iter = 0, f;
  double dflt;
  struct ar_nccl_graph dg;
  int env_level = 0, is_dflt;
  for (int k = 0; k < ng; k++)
    for (int c = 0; c < gr[k].ncfg; c++)
      for (int s = 0; s < gr[k].nsize; s++)
        if (cell_covered(&gr[k], s, c, cache, t, p, runs, &f, &mg, &dflt, &dg, &is_dflt)) {
          if (!head && is_dflt) /* the first NCCL default's run environment: its P2P level is no assumption */
            env_level = ar_nccl_p2p_env(json_object_get(json_object_get(runs, ar_rec_str(ar_grid_at(&gr[k], s, c),
                                                                                          "run_id", "")), "env"));
          head = 1;
          iter |= ar_model_method_us(p, ar_grid_at(&gr[k], s, c)) > 0;
        }
  for (int n = AR_AGAINST_RANKS - 1; head && n >= 2; n--) /* what the topology did not give, for the most ranks */
    if (cache[n]) {
      struct ar_massume as[AR_MAX_ASSUME];
      struct ar_mparams q = *p;
      q.nccl_p2p_env = env_level;
      int na = ar_model_assumptions(t, cache[n], &q, as);
      if (iter) na = ar_model_assume_method(p, as, na);
      if (json) {
        json_t *o = json_pack("{s:s,s:i,s:o}", "type", "assumed", "ranks", n, "assumptions",
                              ar_model_assumptions_json(as, na));
        char *js = json_dumps(o, JSON_COMPACT);
        puts(js ? js : "{}");
        free(js);
        json_decref(o);
      } else
        ar_model_print_assumed(as, na);
      break;
    }
  if (!json && head)
    printf("%-28s %-17s %10s %3s %10s %10s %7s %7s %6s %-6s\n", "result", "model", "bytes", "np", "meas us",
           "pred us", "meas bw", "pred bw", "ratio", "method");
  for (int k = 0; k < ng; k++)
    for (int c = 0; c < gr[k].ncfg; c++)
      for (int s = 0; s < gr[k].nsize; s++) {
        struct ar_cell_stats st;
        json_t *r = ar_grid_at(&gr[k], s, c);
        if (!r || gr[k].predicted[c]) continue;
        if (!cell_covered(&gr[k], s, c, cache, t, p, runs, &f, &mg, &dflt, &dg, &is_dflt) ||
            ar_grid_stats(&gr[k], s, c, &st) || !(st.p50 > 0)) {
          (*skipped)++;
          continue;
        }
        /* the measuring method the record states: a call timed alone adds its launch (method.c) */
        enum ar_mmethod mm = ar_model_method_of(r);
        double size = (double)gr[k].size[s], pt = isnan(dflt) ? ar_model_time(mg, p, f, size, NULL, NULL) : dflt;
        pt += ar_model_method_us(p, r);
        double pbw = ar_model_busbw(size, pt, ar_rec_ranks(r));
        char diag[512];
        const struct ar_nccl_graph *dgp = dg.ring_hops ? &dg : NULL;
        ar_model_diagnose(r, t, dgp, st.busbw, pbw, diag, sizeof diag);
        line(gr[k].cfg[c], r, f, mm, st.p50, pt, st.busbw, pbw, diag, is_dflt ? dgp : NULL, json);
        done++;
      }
  for (int n = 0; n < AR_AGAINST_RANKS; n++) ar_mgraph_free(cache[n]);
  return done;
}

int ar_model_against(const struct ar_mparams *p, const struct ar_topo *t, int nfiles, char **files, int json,
                     char *err, size_t len) {
  struct ar_ana a;
  struct ar_grid *gr = NULL;
  int ng = 0, skipped = 0, rc = ar_ana_load(&a, nfiles, files, err, len);
  if (rc) {
    ar_ana_free(&a);
    return rc < 0 ? rc : -AR_EINVAL;
  }
  if (ar_grids_build(a.results, a.runs, &gr, &ng)) {
    ar_grids_free(gr, ng);
    ar_ana_free(&a);
    snprintf(err, len, "--against: out of memory");
    return -AR_ERUNTIME;
  }
  int nl = ar_links_count(a.notes), ldone = 0;
  if (nl && !(rc = ar_links_check(a.notes, err, len))) { /* the links part first: its bad input prints nothing */
    json_t *tables = ar_links_tables_json(a.notes);
    rc = ldone = ar_link_against(&a, tables, json, err, len);
    json_decref(tables);
  }
  if (rc < 0) {
    ar_grids_free(gr, ng);
    ar_ana_free(&a);
    return rc;
  }
  if (ldone && !json) printf("\n");
  int done = compare_all(gr, ng, t, p, a.runs, json, &skipped);
  ar_grids_free(gr, ng);
  ar_ana_free(&a);
  if (skipped && done)
    fprintf(stderr, "arbench model: note: %d cell%s not compared (host backend, no model family, or more "
            "ranks than the topology's %d GPUs)\n", skipped, skipped == 1 ? "" : "s", ar_topo_ngpus(t));
  if (!done && ldone) return 0;
  if (!done) {
    snprintf(err, len, "--against: no GPU result in %s%s that the model covers (nccl, nccl-tests, p2p-*; ranks "
             "<= %d GPUs)", files[0], nfiles > 1 ? " ..." : "", ar_topo_ngpus(t));
    return -AR_EINVAL;
  }
  return 0;
}
