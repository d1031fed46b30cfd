/* cmd.c — `arbench links`: start-up shared with `run` (options agreed, topology, binding, run record), the
 * smoke test, every (method, direction, pattern, size) measured into `link` records, then the report. */
#include "commands.h"
#include "device/gpu.h"
#include "run/engine.h"
#include "links/cmd_cuda.h"
#include "links/cuda_plan.h"
#include "links/measure.h"
#include "links/measure_cuda.h"
#include "links/watch.h"
#include "run/launch.h"
#include "run/orphan.h"
#include "run/pernode.h"
#include "model/linkfit.h"
#include "run/provenance.h"
#include "run/runenv.h"
#include "stats.h"
#include "topo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SMOKE_BYTES 4096

/* Where a rank is: its host and the NUMA node it is bound to. */
struct where {
  char host[64];
  int numa;
};

struct links_run {
  const struct ar_links_opts *o;
  struct ar_env *env;
  struct ar_engine e;  /* the record writer of `run` (ar_engine_emit) */
  struct ar_lctx c;     /* the host methods' windows (when a host method runs) */
  struct ar_lgpu *g;    /* the GPU methods' buffers (when a GPU method runs) */
  int host, gpu;        /* a host (read, write) / GPU (ce-*, sm-*) method runs */
  struct where *at;    /* rank 0: every rank's place */
  json_t *recs;        /* rank 0: every link record, for the report */
  json_t *calib;       /* --calib's "links" (model/linkfit.c: expected_gbs, ratio), or NULL */
  struct ar_links_watch *w; /* -T: every phase watched (links/watch.h) */
  json_t *tag, *job;   /* --per-node: every record's host and Slurm ids, the run record's "per_node"; else NULL */
  int quiet;           /* -q, or --per-node on every node but the first: no matrices */
  uint64_t wrong;
  int unheld;          /* measurements not made: their copies could not be held (a loaded host; an error record each) */
};

static void rank_id(const struct links_run *L, int r, char *buf, size_t len) {
  if (L->at[r].numa >= 0) snprintf(buf, len, "%s:numa%d", L->at[r].host, L->at[r].numa);
  else snprintf(buf, len, "%s:numa?", L->at[r].host);
}

/* Path class of CPU ranks: NODE within one NUMA node, SYS across (the socket link); "?" unknown. */
static const char *host_path(const struct links_run *L, int a, int b) {
  if (L->at[a].numa < 0 || L->at[b].numa < 0) return "?";
  return L->at[a].numa == L->at[b].numa ? ar_path_name(AR_PATH_NODE) : ar_path_name(AR_PATH_SYS);
}

static json_t *isolated_of(json_t *recs, int method, size_t bytes, struct ar_flow f) {
  size_t i;
  json_t *r;
  json_array_foreach(recs, i, r) {
    if (strcmp(ar_rec_str(r, "pattern", ""), "pairs") || strcmp(ar_rec_str(r, "direction", ""), "uni") ||
        strcmp(ar_rec_str(r, "method", ""), ar_lmethod_name(method)))
      continue;
    if ((size_t)ar_rec_num(r, "bytes", 0) == bytes && (int)ar_rec_num(r, "src", -1) == f.src &&
        (int)ar_rec_num(r, "dst", -1) == f.dst)
      return json_object_get(r, "gbs");
  }
  return NULL;
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The record of flow f: p50 over the repeats' GB/s (v sorted in place). */
static json_t *flow_record(struct links_run *L, int method, int dir, int pat, int root, int nf, size_t bytes,
                           struct ar_flow f, double *v, uint64_t wrong) {
  const struct ar_links_opts *o = L->o;
  json_t *samples = json_array();
  for (int r = 0; r < o->repeat; r++) json_array_append_new(samples, json_real(v[r]));
  struct ar_stats st;
  ar_stats_compute(v, o->repeat, &st); /* sorts v */
  double gbs = st.p50;
  char sid[96], did[96];
  rank_id(L, f.src, sid, sizeof sid);
  rank_id(L, f.dst, did, sizeof did);
  json_t *iso = pat == AR_LP_PAIRS && dir == AR_LD_UNI ? NULL : isolated_of(L->recs, method, bytes, f);
  double isov = iso ? json_number_value(iso) : NAN;
  json_t *rec = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:I, s:o, s:o, s:s, s:n, s:n, s:n, s:n}",
                          "command", "links", "src", f.src, "dst", f.dst, "src_id", sid, "dst_id", did, "method",
                          ar_lmethod_name(method), "direction", ar_ldir_name(dir), "pattern", ar_lpat_name(pat),
                          "root", root >= 0 ? json_integer(root) : json_null(), "flows", nf, "bytes",
                          (json_int_t)bytes, "gbs", num_or_null(gbs), "us",
                          num_or_null(gbs > 0 ? (double)bytes / (gbs * 1e3) : NAN), "path",
                          host_path(L, f.src, f.dst), "bottleneck_gbs", "expected_gbs", "ratio", "score");
  json_object_set_new(rec, "isolated_gbs", num_or_null(isov));
  json_object_set_new(rec, "loaded_ratio", num_or_null(isov > 0 ? gbs / isov : NAN));
  json_object_set_new(rec, "repeats", json_integer(o->repeat));
  json_object_set_new(rec, "iters", json_integer(o->iters));
  json_object_set_new(rec, "samples_gbs", samples);
  json_object_set_new(rec, "wrong", json_integer((json_int_t)wrong));
  if (ar_lmethod_gpu(method)) {
    ar_links_gpu_where(rec, L->env->topo, ar_lgpu_busid(L->g, f.src), ar_lgpu_busid(L->g, f.dst), gbs);
    json_object_set_new(rec, "timing", json_string(ar_lgpu_timing()));
  }
  ar_link_fill(L->calib, rec); /* the model's expected value and measured / expected, once the path is known */
  return rec;
}

static void emit(struct links_run *L, const char *type, json_t *rec) {
  if (L->env->rank == 0 && !strcmp(type, "link")) { /* typed as in the file, so the report reads them as table does */
    json_object_set_new(rec, "type", json_string("link"));
    json_array_append(L->recs, rec);
  }
  ar_engine_emit(&L->e, type, rec);
}

/* The smoke test's verdicts for a method's transport (n x n). */
static const int *bad_of(const struct links_run *L, int method) {
  return ar_lmethod_gpu(method) ? ar_lgpu_bad(L->g) : L->c.bad;
}

/* Drop the flows of pairs the smoke test found bad; returns how many are left. */
static int usable(const struct links_run *L, int method, struct ar_flow *f, int nf) {
  const int *bad = bad_of(L, method);
  int k = 0;
  for (int i = 0; i < nf; i++)
    if (bad[f[i].src * L->env->nranks + f[i].dst] == AR_PAIR_OK) f[k++] = f[i];
  return k;
}

/* "ce-write uni pairs 1->0, 65536 bytes": a measurement as its lines name it (the flows when few, else how many). */
static void measurement_name(int method, int dir, int pat, const struct ar_flow *f, int nf, size_t bytes, char *buf,
                             size_t len) {
  size_t at = (size_t)snprintf(buf, len, "%s %s %s ", ar_lmethod_name(method), ar_ldir_name(dir), ar_lpat_name(pat));
  for (int k = 0; k < nf && nf <= 4 && at < len; k++)
    at += (size_t)snprintf(buf + at, len - at, "%s%d->%d", k ? " " : "", f[k].src, f[k].dst);
  if (nf > 4 && at < len) at += (size_t)snprintf(buf + at, len - at, "%d flows", nf);
  if (at < len) snprintf(buf + at, len - at, ", %zu bytes", bytes);
}

/* A measurement not made because its copies could not be held (AR_LGPU_UNHELD): its line (rank 0) and an error
 * record naming it, so the file says what is missing and why; the probe goes on and ends with exit status 1. */
static void unheld(struct links_run *L, json_t *rec, const char *line) {
  L->unheld++;
  if (L->env->rank) {
    json_decref(rec);
    return;
  }
  fprintf(stderr, "arbench links: %s\n", line);
  json_object_set_new(rec, "command", json_string("links"));
  json_object_set_new(rec, "message", json_string(line));
  json_object_set_new(rec, "unheld", json_true());
  emit(L, "error", rec);
}

static int measure_instance(struct links_run *L, int method, int dir, int pat, int inst, struct ar_flow *f,
                            double *v, uint64_t *wrong) {
  int n = L->env->nranks, root, max = n * n;
  int nf = ar_links_flows(pat, dir, n, inst, f, max, &root), want = nf;
  nf = usable(L, method, f, nf);
  if (!nf || (pat == AR_LP_PAIRS && nf != want)) return 0; /* a pair alone is measured whole or not at all */
  for (int s = 0; s < L->o->nsizes; s++) {
    size_t bytes = L->o->sizes[s];
    char err[AR_ERRLEN] = "";
    ar_links_watch_phase(L->w, ar_links_allow_measure(L->o, ar_lmethod_gpu(method), bytes, nf), "links: %s %s %s "
                         "instance %d, %zu B", ar_lmethod_name(method), ar_ldir_name(dir), ar_lpat_name(pat), inst, bytes);
    char what[160];
    measurement_name(method, dir, pat, f, nf, bytes, what, sizeof what);
    int rc = ar_lmethod_gpu(method)
                 ? ar_lgpu_measure(L->g, method, f, nf, bytes, L->o->iters, L->o->warmup, L->o->repeat, what, v, wrong,
                                   err, sizeof err)
                 : ar_links_measure(&L->c, method, f, nf, bytes, L->o->iters, L->o->warmup, L->o->repeat, v, wrong);
    if (rc == AR_LGPU_UNHELD) { /* the same on every rank */
      json_t *flows = json_array();
      for (int k = 0; k < nf; k++) json_array_append_new(flows, json_pack("[i, i]", f[k].src, f[k].dst));
      unheld(L, json_pack("{s:s, s:s, s:s, s:o, s:I}", "method", ar_lmethod_name(method), "direction",
                          ar_ldir_name(dir), "pattern", ar_lpat_name(pat), "flows", flows, "bytes", (json_int_t)bytes),
             err);
      continue;
    }
    if (rc) {
      if (*err && L->env->rank == 0) fprintf(stderr, "arbench links: %s\n", err); /* the same on every rank */
      return -AR_ERUNTIME;
    }
    if (L->env->rank) continue;
    for (int k = 0; k < nf; k++) {
      L->wrong += wrong[k];
      emit(L, "link", flow_record(L, method, dir, pat, root, nf, bytes, f[k], v + k * L->o->repeat, wrong[k]));
    }
  }
  return 0;
}

/* One stderr line per measured (method, direction, pattern), so a long probe shows it is alive (rank 0). */
static void progress(const struct links_run *L, int k, int total, int m, int d, int p, double t0) {
  if (L->env->rank || L->quiet) return;
  fprintf(stderr, "arbench links: [%d/%d] %s %s %s: %d instance%s x %d size%s, %.1f s\n", k, total, ar_lmethod_name(m),
          ar_ldir_name(d), ar_lpat_name(p), ar_links_ninstances(p, d, L->env->nranks),
          ar_links_ninstances(p, d, L->env->nranks) == 1 ? "" : "s", L->o->nsizes, L->o->nsizes == 1 ? "" : "s",
          MPI_Wtime() - t0);
  fflush(stderr);
}

static int measure_all(struct links_run *L) {
  int n = L->env->nranks, rc = 0, total = 0, k = 0;
  struct ar_flow *f = malloc(sizeof *f * (size_t)(n * n));
  double *v = malloc(sizeof *v * (size_t)(n * n) * (size_t)L->o->repeat);
  uint64_t *wrong = malloc(sizeof *wrong * (size_t)(n * n));
  if (!f || !v || !wrong) rc = -AR_ERUNTIME;
  for (int pass = 0; pass < 2; pass++) /* count the groups, then measure them */
    for (int m = 0; m < AR_LM_N && !rc; m++)
      for (int d = 0; d < AR_LD_N && !rc; d++)
        for (int p = 0; p < AR_LP_N && !rc; p++) {
          if (!(L->o->methods >> m & 1) || !(L->o->dirs >> d & 1) || !(L->o->patterns >> p & 1)) continue;
          if (!pass) {
            total++;
            continue;
          }
          double t0 = MPI_Wtime();
          for (int i = 0; i < ar_links_ninstances(p, d, n) && !rc; i++) rc = measure_instance(L, m, d, p, i, f, v, wrong);
          if (!rc) progress(L, ++k, total, m, d, p, t0);
        }
  free(f), free(v), free(wrong);
  return rc;
}

static void measure_latency(struct links_run *L) {
  int n = L->env->nranks, rep = L->o->repeat;
  if (!L->host) return; /* the host flags; the GPU ones: measure_gpu_latency */
  ar_links_watch_phase(L->w, ar_links_allow_latency(L->o, 0), "links: flag latency (CPU ranks)");
  double *us = calloc((size_t)rep, sizeof *us);
  for (int s = 0; s < n && us; s++)
    for (int d = 0; d < n; d++) {
      if (s == d || L->c.bad[s * n + d] != AR_PAIR_OK) continue;
      ar_links_pingpong(&L->c, s, d, L->o->lat_iters, rep, us);
      if (L->env->rank) continue;
      json_t *samples = json_array();
      int ok = 1;
      for (int r = 0; r < rep; r++) {
        json_array_append_new(samples, num_or_null(us[r]));
        ok &= !isnan(us[r]);
      }
      struct ar_stats st = {0};
      if (ok) ar_stats_compute(us, rep, &st);
      char sid[96], did[96];
      rank_id(L, s, sid, sizeof sid);
      rank_id(L, d, did, sizeof did);
      json_t *rec = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:n, s:i, s:i, s:n, s:o, s:s, s:n, s:n, s:n, s:n}",
                              "command", "links", "src", s, "dst", d, "src_id", sid, "dst_id", did, "method", "flag",
                              "direction", "pingpong", "pattern", "pairs", "root", "flows", 1, "bytes", 4, "gbs", "us",
                              ok ? json_real(st.p50) : json_null(), "path",
                              host_path(L, s, d), "bottleneck_gbs", "expected_gbs", "ratio", "score");
      ar_link_fill(L->calib, rec);
      json_object_set_new(rec, "isolated_gbs", json_null());
      json_object_set_new(rec, "loaded_ratio", json_null());
      json_object_set_new(rec, "repeats", json_integer(rep));
      json_object_set_new(rec, "iters", json_integer(L->o->lat_iters));
      json_object_set_new(rec, "samples_us", samples);
      json_object_set_new(rec, "wrong", json_integer(0));
      emit(L, "link", rec);
    }
  free(us);
}

/* A latency record (us: p50 of the repeats' samples, null when one is missing). */
static json_t *latency_record(struct links_run *L, const char *method, const char *dir, int s, int d, size_t bytes,
                              int iters, double *us) {
  int rep = L->o->repeat, ok = 1;
  json_t *samples = json_array();
  for (int r = 0; r < rep; r++) {
    json_array_append_new(samples, num_or_null(us[r]));
    ok &= isfinite(us[r]);
  }
  struct ar_stats st = {0};
  if (ok) ar_stats_compute(us, rep, &st);
  /* the host latency record's fields in its order; ar_links_gpu_where fills the place in */
  json_t *rec = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:n, s:i, s:I, s:n, s:o, s:s, s:n, s:n, s:n, s:n}",
                          "command", "links", "src", s, "dst", d, "src_id", "?", "dst_id", "?", "method", method,
                          "direction", dir, "pattern", "pairs", "root", "flows", 1, "bytes", (json_int_t)bytes, "gbs",
                          "us", ok ? json_real(st.p50) : json_null(), "path", "?", "bottleneck_gbs", "expected_gbs",
                          "ratio", "score");
  ar_links_gpu_where(rec, L->env->topo, ar_lgpu_busid(L->g, s), ar_lgpu_busid(L->g, d), NAN);
  ar_link_fill(L->calib, rec);
  json_object_set_new(rec, "isolated_gbs", json_null());
  json_object_set_new(rec, "loaded_ratio", json_null());
  json_object_set_new(rec, "repeats", json_integer(rep));
  json_object_set_new(rec, "iters", json_integer(iters));
  json_object_set_new(rec, "samples_us", samples);
  json_object_set_new(rec, "wrong", json_integer(0));
  return rec;
}

/* GPUs: the one-way flag latency (method "flag", direction "pingpong", with the SM kernels) and the copy
 * engine's small-copy latency (ce-read / ce-write, direction "latency", 4 bytes) of every good pair. */
static int measure_gpu_latency(struct links_run *L) {
  int n = L->env->nranks, rep = L->o->repeat, rc = 0;
  char why[AR_ERRLEN];
  int kernels = ar_lgpu_kernels(why, sizeof why);
  double *us = calloc((size_t)rep, sizeof *us);
  const int *bad = ar_lgpu_bad(L->g);
  ar_links_watch_phase(L->w, ar_links_allow_latency(L->o, 1), "links: GPU latency");
  for (int s = 0; s < n && us && !rc; s++)
    for (int d = 0; d < n && !rc; d++) {
      if (s == d || bad[s * n + d] != AR_PAIR_OK) continue;
      if (kernels) {
        char line[AR_ERRLEN] = "";
        rc = ar_lgpu_pingpong(L->g, s, d, L->o->lat_iters, rep, us, line, sizeof line);
        if (L->env->rank == 0) {
          if (*line) fprintf(stderr, "arbench links: GPU flag latency %d->%d: %s\n", s, d, line);
          emit(L, "link", latency_record(L, "flag", "pingpong", s, d, 4, L->o->lat_iters, us));
        }
      }
      for (int m = AR_LM_CE_READ; m <= AR_LM_CE_WRITE && !rc; m++) {
        if (!(L->o->methods >> m & 1)) continue;
        char err[AR_ERRLEN] = "";
        rc = ar_lgpu_ce_latency(L->g, m, s, d, 4, L->o->lat_iters, rep, us, err, sizeof err);
        if (rc == AR_LGPU_UNHELD) { /* the same on every rank */
          unheld(L, json_pack("{s:s, s:s, s:s, s:[[i, i]], s:i}", "method", ar_lmethod_name(m), "direction", "latency",
                              "pattern", "pairs", "flows", s, d, "bytes", 4), err);
          rc = 0;
          continue;
        }
        if (rc && *err && L->env->rank == 0) fprintf(stderr, "arbench links: %s\n", err);
        if (!rc && L->env->rank == 0) {
          json_t *rec = latency_record(L, ar_lmethod_name(m), "latency", s, d, 4, L->o->lat_iters, us);
          json_object_set_new(rec, "timing", json_string("each copy alone between two CUDA events, held until both "
                                                         "and the copy are queued (GPU-side, not the host's "
                                                         "submission); us = the median copy of a repeat"));
          emit(L, "link", rec);
        }
      }
    }
  free(us);
  return rc;
}

/* GPUs: a stuck GPU's untested pairs: one line per stuck GPU (stderr, rank 0) and a skip record per pair. Returns
 * how many pairs. */
static int report_stuck_gpu(struct links_run *L) {
  int n = L->env->nranks, all = 0;
  const int *bad = ar_lgpu_bad(L->g), *stuck = ar_lgpu_stuck_ranks(L->g);
  for (int r = 0; r < n && L->env->rank == 0; r++) {
    if (!stuck[r]) continue;
    int k = 0;
    for (int s = 0; s < n; s++)
      for (int d = 0; d < n; d++) k += s != d && bad[s * n + d] == AR_PAIR_STUCK && ar_lcuda_stuck_owner(stuck, s, d) == r;
    char line[600];
    ar_lcuda_stuck_line(r, ar_lgpu_busid(L->g, r), k, L->o->smoke_timeout, line, sizeof line);
    fprintf(stderr, "arbench links: %s\n", line);
    all += k;
  }
  for (int s = 0; s < n && L->env->rank == 0; s++)
    for (int d = 0; d < n; d++)
      if (s != d && bad[s * n + d] == AR_PAIR_STUCK)
        emit(L, "skip", json_pack("{s:s, s:i, s:i, s:s, s:s, s:s}", "command", "links", "src", s, "dst", d, "reason",
                                   "not tested: a GPU of the pair has work queued that never ended", "smoke", "stuck",
                                   "transport", "gpu"));
  return all;
}

/* GPUs: one line per bad pair (stderr, rank 0, ACS and the IOMMU named) and a skip record each. */
static void report_bad_gpu(struct links_run *L) {
  int n = L->env->nranks;
  const int *bad = ar_lgpu_bad(L->g);
  for (int s = 0; s < n && L->env->rank == 0; s++)
    for (int d = 0; d < n; d++) {
      int v = bad[s * n + d];
      if (s == d || v == AR_PAIR_OK || v == AR_PAIR_STUCK) continue;
      char why[600];
      ar_lcuda_bad_line(v, s, d, ar_lgpu_busid(L->g, s), ar_lgpu_busid(L->g, d), SMOKE_BYTES, L->o->smoke_timeout,
                        why, sizeof why);
      fprintf(stderr, "arbench links: %s\n", why);
      emit(L, "skip", json_pack("{s:s, s:i, s:i, s:s, s:s, s:s}", "command", "links", "src", s, "dst", d, "reason",
                                 why, "smoke", v == AR_PAIR_TIMEOUT ? "timeout" : v == AR_PAIR_CORRUPT ? "corrupt" : "noipc",
                                 "transport", "gpu"));
    }
}

/* One line per bad pair (stderr, rank 0) and a skip record each. */
static void report_bad(struct links_run *L) {
  int n = L->env->nranks;
  for (int s = 0; s < n && L->env->rank == 0; s++)
    for (int d = 0; d < n; d++) {
      int v = L->c.bad[s * n + d];
      if (s == d || v == AR_PAIR_OK) continue;
      char why[400];
      snprintf(why, sizeof why, "pair %d->%d: %s in the smoke test (%d bytes, %g s timeout): skipped; %s", s, d,
               v == AR_PAIR_TIMEOUT ? "no answer" : "the data arrived corrupted", SMOKE_BYTES,
               L->o->smoke_timeout,
               v == AR_PAIR_TIMEOUT ? "on CPU ranks: the peer stopped answering through shared memory"
                                    : "on CPU ranks: the copy through shared memory lost data"); /* GPUs: report_bad_gpu */
      fprintf(stderr, "arbench links: %s\n", why);
      emit(L, "skip", json_pack("{s:s, s:i, s:i, s:s, s:s}", "command", "links", "src", s, "dst", d, "reason",
                                 why, "smoke", v == AR_PAIR_TIMEOUT ? "timeout" : "corrupt"));
    }
}

static json_t *links_options(const struct ar_links_opts *o) {
  json_t *m = json_array(), *d = json_array(), *p = json_array();
  for (int i = 0; i < AR_LM_N; i++) if (o->methods >> i & 1) json_array_append_new(m, json_string(ar_lmethod_name(i)));
  for (int i = 0; i < AR_LD_N; i++) if (o->dirs >> i & 1) json_array_append_new(d, json_string(ar_ldir_name(i)));
  for (int i = 0; i < AR_LP_N; i++) if (o->patterns >> i & 1) json_array_append_new(p, json_string(ar_lpat_name(i)));
  unsigned gpu = o->methods & (AR_LM_CE_SET | AR_LM_SM_SET), host = o->methods & AR_LM_HOST_SET;
  const char *tr = gpu && host ? "host: MPI shared-memory windows; GPUs: CUDA IPC (copy engine, SM copy kernel)"
                   : gpu       ? "GPUs: CUDA IPC (copy engine: cudaMemcpyAsync; SM: copy kernel)"
                               : "host: MPI shared-memory windows";
  return json_pack("{s:o, s:o, s:o, s:i, s:f, s:i, s:s}", "methods", m, "directions", d, "patterns", p, "lat_iters",
                   o->lat_iters, "smoke_timeout", o->smoke_timeout, "smoke_bytes", SMOKE_BYTES, "transport", tr);
}

static void gather_where(struct links_run *L) {
  struct where me = {{0}, L->env->topo ? ar_topo_numa_of_self(L->env->topo) : -1};
  gethostname(me.host, sizeof me.host - 1);
  L->at = calloc((size_t)L->env->nranks, sizeof *L->at);
  MPI_Allgather(&me, sizeof me, MPI_BYTE, L->at, sizeof me, MPI_BYTE, L->env->comm);
}

static int checks(struct ar_env *env, struct ar_fault *fault, int *silent) {
  char msg[AR_ERRLEN] = "";
  int rc = 0;
  if (env->nranks < 2)
    snprintf(msg, sizeof msg, "links needs 2 or more ranks, got %d: arbench links --np N (or mpirun -np N arbench "
             "links)", env->nranks), rc = -AR_EINVAL;
  else if (env->nnodes > 1)
    snprintf(msg, sizeof msg, "links on CPU ranks needs every rank on one node (MPI shared memory), got %d nodes",
             env->nnodes), rc = -AR_EINVAL;
  if (!rc) rc = ar_fault_parse(fault, getenv("ARBENCH_INJECT_FAULT"), NULL, env->nranks, msg, sizeof msg);
  if (!rc) rc = ar_fault_hooks(fault, getenv, env->nranks, msg, sizeof msg); /* ARBENCH_INJECT_SILENT among them */
  *silent = rc ? -1 : fault->silent_rank;
  return ar_agree_print(env->comm, rc, msg);
}

static void opts_for_record(const struct ar_links_opts *o, struct ar_opts *ro) {
  ar_opts_defaults(ro);
  memcpy(ro->sizes, o->sizes, sizeof o->sizes);
  ro->nsizes = o->nsizes;
  ro->nbackends = 0;
  ro->iters = o->iters;
  ro->warmup = o->warmup;
  ro->repeat = o->repeat;
  ro->timeout = o->timeout;
  ro->bind = o->bind;
  ro->shared_gpu = o->shared_gpu;
  snprintf(ro->devices, sizeof ro->devices, "%s", o->devices);
  snprintf(ro->json, sizeof ro->json, "%s", o->json);
}

static int probe(struct links_run *L, int argc, char **argv, int silent, const struct ar_fault *fault) {
  const struct ar_links_opts *o = L->o;
  struct ar_env *env = L->env;
  char msg[AR_ERRLEN] = "", run_id[32];
  json_t *bindings = NULL;
  ar_links_watch_phase(L->w, 0, "start-up: topology and binding");
  ar_links_watch_stall(L->w, AR_STALL_TOPOLOGY);
  if (ar_run_setup_topo(env, &bindings)) return AR_EXIT_USAGE;
  struct ar_writer writer = {0};
  ar_links_watch_phase(L->w, 0, "start-up: results file");
  int rc = env->rank == 0 && *o->json ? ar_writer_open(&writer, o->json, msg, sizeof msg) : 0;
  if (ar_agree_print(env->comm, rc, msg)) {
    json_decref(bindings);
    return AR_EXIT_USAGE;
  }
  ar_links_watch_phase(L->w, 0, "start-up: run-id exchange");
  ar_links_watch_stall(L->w, AR_STALL_RUNID);
  ar_make_run_id(run_id, sizeof run_id, env->comm);
  ar_links_watch_phase(L->w, 0, "start-up: run record");
  L->e = (struct ar_engine){.env = env, .writer = &writer, .run_id = run_id, .tag = L->tag};
  json_t *runrec = ar_run_record(env, argc, argv, run_id, bindings);
  gather_where(L);
  if (env->rank == 0) {
    json_object_set_new(runrec, "links", links_options(o));
    json_object_set_new(json_object_get(runrec, "links"), "calib", *o->calib ? json_string(o->calib) : json_null());
    if (L->job) {
      json_object_set(runrec, "per_node", L->job);
      printf("# arbench %s links: per node: %s, node %lld of %lld, %d ranks, run %s\n", AR_VERSION_STRING,
             json_string_value(json_object_get(L->tag, "host")), json_integer_value(json_object_get(L->job, "node")) + 1,
             json_integer_value(json_object_get(L->job, "nodes")), env->nranks, run_id);
      fflush(stdout);
    }
    if (!L->quiet) {
      if (L->gpu)
        printf("# arbench %s links: %d ranks, one GPU each, on 1 node, run %s: copies through CUDA IPC\n",
               AR_VERSION_STRING, env->nranks, run_id);
      else
        printf("# arbench %s links: %d CPU ranks on 1 node, run %s: copies between MPI shared-memory windows\n",
               AR_VERSION_STRING, env->nranks, run_id);
      for (size_t r = 0; bindings && r < json_array_size(bindings); r++)
        printf("# binding: %s\n", json_string_value(json_array_get(bindings, r)));
      if (L->gpu && ar_gpu_standin()) puts(AR_GPU_STANDIN_NOTE);
    }
    emit(L, "run", runrec);
  }
  int status = AR_EXIT_OK;
  size_t max = o->sizes[o->nsizes - 1];
  size_t cap = max > SMOKE_BYTES ? max : SMOKE_BYTES;
  rc = 0;
  ar_links_watch_phase(L->w, 0, "links: buffers");
  if (L->host) {
    rc = ar_lctx_open(&L->c, env->comm, cap, o->smoke_timeout, silent, fault, msg, sizeof msg);
    L->c.beat = ar_links_watch_beat(L->w);
    if (rc && env->rank == 0) fprintf(stderr, "arbench links: %s\n", msg);
  }
  if (!rc && L->gpu) {
    rc = ar_lgpu_open(&L->g, env->comm, env->device, cap, o->smoke_timeout, silent, fault, msg, sizeof msg);
    if (rc && env->rank == 0) fprintf(stderr, "arbench links: %s\n", msg);
    if (rc && L->host) ar_lctx_close(&L->c);
    if (!rc) ar_lgpu_beat(L->g, ar_links_watch_beat(L->w));
  }
  if (rc) {
    status = AR_EXIT_FAIL;
  } else {
    int nbad = 0, nstuck = 0;
    if (L->host) {
      ar_links_watch_phase(L->w, ar_links_allow_smoke(o, 0), "links: smoke test (CPU ranks)");
      nbad += ar_links_smoke(&L->c, SMOKE_BYTES);
      report_bad(L);
    }
    if (L->gpu) { /* a stuck GPU's pairs are skipped, the others measured */
      ar_links_watch_phase(L->w, ar_links_allow_smoke(o, 1), "links: smoke test (GPUs)");
      nbad += ar_lgpu_smoke(L->g, SMOKE_BYTES);
      report_bad_gpu(L);
      nstuck = report_stuck_gpu(L);
    }
    ar_links_watch_stall(L->w, AR_STALL_PROBE);
    if (measure_all(L)) status = AR_EXIT_FAIL;
    double t0 = MPI_Wtime();
    if (o->lat_iters && status == AR_EXIT_OK) measure_latency(L);
    if (o->lat_iters && status == AR_EXIT_OK && L->gpu && measure_gpu_latency(L)) status = AR_EXIT_FAIL;
    if (o->lat_iters && status == AR_EXIT_OK && env->rank == 0 && !L->quiet)
      fprintf(stderr, "arbench links: latency of every pair, %d ping-pongs x %d repeats: %.1f s\n", o->lat_iters,
              o->repeat, MPI_Wtime() - t0);
    ar_links_watch_phase(L->w, 0, "teardown: report and the wrong count from rank 0");
    if (env->rank == 0 && !L->quiet) {
      ar_links_report(stdout, L->recs, env->nranks);
      long cores = sysconf(_SC_NPROCESSORS_ONLN);
      if (L->host && env->local_nranks > cores) /* time-sliced ranks: the loaded numbers are the scheduler's */
        printf("  caveat: %d CPU ranks share %ld cores here, so ranks take turns: loaded and bi-directional flows and "
               "their ratios to isolated ones measure the scheduler as much as the links (run at most %ld ranks)\n",
               env->local_nranks, cores, cores);
    }
    uint64_t wrong = L->wrong;
    ar_links_watch_stall(L->w, AR_STALL_BROADCAST);
    MPI_Bcast(&wrong, 1, MPI_UINT64_T, 0, env->comm);
    if (env->rank == 0 && wrong)
      fprintf(stderr, "arbench links: %llu words arrived different from what was sent: the copies are not correct\n",
              (unsigned long long)wrong);
    if (env->rank == 0 && nbad && !nstuck)
      fprintf(stderr, "arbench links: %d pair%s failed the smoke test and %s skipped\n", nbad, nbad > 1 ? "s" : "",
              nbad > 1 ? "were" : "was");
    else if (env->rank == 0 && nbad)
      fprintf(stderr, "arbench links: %d pair%s skipped: %d failed the smoke test, %d of a stuck GPU not tested\n", nbad,
              nbad > 1 ? "s" : "", nbad - nstuck, nstuck);
    if (env->rank == 0 && L->unheld)
      fprintf(stderr, "arbench links: %d measurement%s not made: %s copies could not be held (a loaded host; error "
              "records name %s)\n", L->unheld, L->unheld > 1 ? "s" : "", L->unheld > 1 ? "their" : "its",
              L->unheld > 1 ? "them" : "it");
    if (wrong || nbad || L->unheld) status = AR_EXIT_FAIL;
    ar_links_watch_phase(L->w, 0, "teardown: buffers");
    if (L->host) ar_lctx_close(&L->c);
    if (L->gpu) ar_lgpu_close(L->g);
  }
  int wf = L->e.write_failed;
  MPI_Bcast(&wf, 1, MPI_INT, 0, env->comm);
  if (wf) status = AR_EXIT_FAIL;
  ar_writer_close(&writer);
  json_decref(bindings);
  free(L->at);
  return status;
}

extern char **environ;

/* --per-node: the probe runs on each node's own ranks, all nodes at once; the wait for the other nodes is watched
 * by -T's watchdog (with -T 0 by run's default, 300 s) plus twice this node's time (pernode.h). */
struct per_node {
  json_t *tag, *job;
  struct ar_watchdog dog;
  struct timespec t0;
};

static void per_node_begin(struct per_node *pn, const struct ar_links_opts *o, struct ar_env *world, struct ar_env *env) {
  *env = *world;
  if (!o->per_node) return;
  pn->tag = ar_pernode_tag(environ);
  pn->job = ar_pernode_job(world);
  ar_pernode_split(world, env);
  clock_gettime(CLOCK_MONOTONIC, &pn->t0);
}

static int per_node_end(struct per_node *pn, struct ar_env *world, struct ar_env *env, int status,
                        struct ar_watchdog *dog) {
  if (!pn->job) return status;
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fflush(stdout);
  if (!dog) { /* -T 0: the wait for the other nodes is still bounded, by run's default */
    ar_watchdog_start(&pn->dog, 300, world->rank, NULL);
    ar_watchdog_mpi(&pn->dog, 1, world->rank, NULL);
  }
  status = ar_pernode_finish(world, dog ? dog : &pn->dog, status,
                             (double)(t1.tv_sec - pn->t0.tv_sec) + (t1.tv_nsec - pn->t0.tv_nsec) * 1e-9);
  if (!dog) ar_watchdog_stop(&pn->dog);
  ar_pernode_free(env);
  json_decref(pn->tag);
  json_decref(pn->job);
  return status;
}

int ar_cmd_links(int argc, char **argv) {
  struct ar_links_opts *o = malloc(sizeof *o);
  struct ar_opts *ro = malloc(sizeof *ro);
  if (!o || !ro) return free(o), free(ro), AR_EXIT_FAIL;
  ar_links_defaults(o);
  char err[AR_ERRLEN] = "";
  int prc = ar_links_parse(o, argc, argv, err, sizeof err);
  json_t *calib = NULL;
  if (!prc && *o->calib) prc = ar_link_calib_load(o->calib, &calib, err, sizeof err);
  if (prc == 1) {
    ar_links_usage(stdout);
    free(o), free(ro);
    return AR_EXIT_OK;
  }
  if (!prc) { /* started outside mpirun: relaunch under it as run does (the CPU-only hint is run's, not ours) */
    struct ar_launch l;
    ar_relaunch_plan(o->np, o->no_launch, &l);
    struct ar_writer w;
    if (l.action == AR_LAUNCH_RELAUNCH && *o->json && ar_writer_open(&w, o->json, err, sizeof err)) {
      fprintf(stderr, "arbench links: %s\n", err); /* what every rank would meet, said once */
      json_decref(calib);
      return free(o), free(ro), AR_EXIT_USAGE;
    }
    if (l.action == AR_LAUNCH_RELAUNCH && *o->json) ar_writer_close(&w);
    if (l.action == AR_LAUNCH_RELAUNCH) {
      bool given = o->np > 0;
      json_decref(calib);
      free(o), free(ro);
      return ar_relaunch_exec(&l, given, argc, argv);
    }
  }
  if (ar_orphan_guard(environ)) return free(o), free(ro), AR_EXIT_FAIL; /* mpirun already gone */
  /* -T watches every phase from before MPI_Init to after MPI_Finalize, as run's watchdog does (links/watch.h) */
  struct ar_links_watch w;
  char serr[AR_ERRLEN] = "";
  if (ar_links_watch_start(&w, o->timeout, serr, sizeof serr) && !prc) prc = -AR_EINVAL, snprintf(err, sizeof err, "%s", serr);
  MPI_Init(&argc, &argv);
  ar_links_watch_mpi(&w);
  int status = AR_EXIT_USAGE;
  if (!ar_agree_print(MPI_COMM_WORLD, prc, err)) {
    opts_for_record(o, ro);
    struct ar_env env, world;
    ar_links_watch_phase(&w, 0, "start-up: communicators");
    ar_run_setup_env(&world, ro);
    ar_links_watch_peers(&w, world.node_comm);
    struct per_node pn = {0};
    per_node_begin(&pn, o, &world, &env);
    struct ar_fault fault;
    int silent = -1;
    ar_links_watch_phase(&w, 0, "start-up: option check and device selection");
    ar_links_watch_stall(&w, AR_STALL_OPTIONS);
    if (!checks(&env, &fault, &silent) && !(status = ar_links_gpu_setup(&env, o))) {
      status = AR_EXIT_USAGE;
      struct links_run L = {.o = o, .env = &env, .recs = json_array(), .calib = calib, .w = &w, .tag = pn.tag,
                            .job = pn.job, .quiet = o->quiet || (o->per_node && world.rank),
                            .host = !!(o->methods & AR_LM_HOST_SET), .gpu = !!(o->methods & (AR_LM_CE_SET | AR_LM_SM_SET))};
      status = probe(&L, argc, argv, silent, &fault);
      json_decref(L.recs);
    }
    status = per_node_end(&pn, &world, &env, status, o->timeout > 0 ? &w.dog : NULL);
    if (env.topo) ar_topo_destroy(env.topo);
    ar_links_watch_teardown(&w, world.comm);
    MPI_Comm_free(&world.node_comm);
  }
  json_decref(calib);
  fflush(stdout);
  ar_links_watch_finalize(&w);
  MPI_Finalize();
  ar_links_watch_stop(&w);
  free(o), free(ro);
  return status;
}
