/* engine.c — for one backend: agree on availability, set up, then per dtype, size and placement:
 * fill, checked calls, warm-up and timed loop, max over ranks, statistics, record and table row. */
#include "agree.h"
#include "run/engine.h"
#include "run/memcheck.h"
#include "dtype.h"
#include "opts.h"
#include "device/platform.h"
#include "run/table.h"
#include "stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank passes its status; all get the first failing rank's status and message. */
static int agree(const struct ar_env *env, int rc, char *msg, size_t len) {
  return ar_agree(env->comm, env->dog, rc, msg, len); /* watched: a stopped or dead peer must not hang us */
}

void ar_engine_emit(struct ar_engine *e, const char *type, json_t *rec) {
  if (e->env->rank == 0 && e->writer && e->writer->on) {
    json_t *line = json_pack("{s:s, s:s}", "type", type, "run_id", e->run_id);
    json_object_update(line, rec);
    if (e->point && !json_object_get(line, "point")) json_object_set(line, "point", e->point);
    if (e->as && *e->as) json_object_set_new(line, "as", json_string(e->as));
    if (e->tag) json_object_update_missing(line, e->tag);
    char err[AR_ERRLEN];
    if (ar_writer_put(e->writer, line, err, sizeof err)) {
      if (!e->write_failed) fprintf(stderr, "arbench: %s; stopping the run\n", err); /* said once */
      e->write_failed = 1; /* nowhere to save: ar_engine_stopped ends the run at the next size */
      e->failures++;       /* a lost record fails the run */
    }
    json_decref(line);
  }
  json_decref(rec);
}

int ar_engine_stopped(struct ar_engine *e) {
  ar_watchdog_exchange(e->env->dog, 1);
  MPI_Bcast(&e->write_failed, 1, MPI_INT, 0, e->env->comm);
  ar_watchdog_exchange(e->env->dog, 0);
  return e->write_failed;
}

struct bench {
  struct ar_engine *e;
  const struct ar_backend *be;
  const char *spec, *variant;
  void *state;
  const struct ar_platform *plat;
  void *stream;
  char *pool;
  size_t pool_bytes, cache_bytes;
};

static void emit_note(struct ar_engine *e, const char *type, const struct bench *b, enum ar_dtype dt,
                      size_t bytes, const char *what) {
  json_t *rec = json_pack("{s:s, s:s, s:s}", "backend", b->be ? b->be->name : b->spec, "variant",
                          b->variant ? b->variant : "", "spec", b->spec);
  if ((int)dt >= 0) json_object_set_new(rec, "dtype", json_string(ar_dtype_name(dt)));
  if (bytes) json_object_set_new(rec, "size", json_integer((json_int_t)bytes));
  json_object_set_new(rec, "op", json_string(ar_op_name(e->env->opts->op)));
  json_object_set_new(rec, "ranks", json_integer(e->env->nranks));
  json_object_set_new(rec, !strcmp(type, "skip") ? "reason" : "message", json_string(what));
  ar_engine_emit(e, type, rec);
  if (e->env->rank == 0) {
    if (!strcmp(type, "skip")) fprintf(e->report->note, "# %s%s%s: skipped: %s\n", b->spec, (int)dt >= 0 ? " " : "",
                                       (int)dt >= 0 ? ar_dtype_name(dt) : "", what);
    else fprintf(stderr, "arbench: error: %s: %s\n", b->spec, what);
    fflush(e->report->note);
  }
  if (strcmp(type, "skip")) e->failures++;
}

/* Evenly spaced samples, at most cap, in iteration order. */
static json_t *sample_array(const double *s, int n, int cap) {
  json_t *a = json_array();
  int k = n < cap ? n : cap;
  for (int j = 0; j < k; j++) {
    int idx = k == n ? j : (int)((double)j * n / k);
    json_array_append_new(a, json_real(s[idx]));
  }
  return a;
}

struct measured {
  struct ar_stats st;
  uint64_t wrong;
  int checked, nsets, nsamples, repeat;
  struct ar_rotation rot;
  json_t *samples;
};

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* --buffers cold: enough sets of setsz bytes to span twice the cache, within the pool and the caps. */
static int cold_sets(size_t cache_bytes, size_t pool_bytes, size_t setsz, int graph) {
  size_t want = (2 * cache_bytes + setsz - 1) / setsz;
  size_t fit = pool_bytes / setsz;
  size_t cap = graph > 0 && (size_t)AR_MAX_GRAPHS * (size_t)graph < AR_MAX_SETS ? (size_t)AR_MAX_GRAPHS * (size_t)graph
                                                                                : AR_MAX_SETS;
  int nsets = (int)(want < fit ? (want < cap ? want : cap) : (fit < cap ? fit : cap));
  return nsets < 1 ? 1 : nsets;
}

size_t ar_pool_bytes(int cold, size_t cache_bytes, size_t max_bytes) {
  size_t pool = 2 * align_up(max_bytes ? max_bytes : 1, 256);
  if (cold) pool += 2 * cache_bytes;
  return pool;
}

struct ar_rotation ar_buffer_sets(int cold, size_t cache_bytes, size_t pool_bytes, size_t bytes, int inplace,
                                  int graph) {
  struct ar_rotation r;
  r.stride = align_up(bytes ? bytes : 1, 256);
  r.setsz = inplace ? r.stride : 2 * r.stride;
  r.nsets = cold ? cold_sets(cache_bytes, pool_bytes, r.setsz, graph) : 1;
  r.span_bytes = (size_t)r.nsets * (inplace ? 1 : 2) * align_up(bytes, AR_ROTATION_LINE);
  r.cold_reached = r.span_bytes >= 2 * cache_bytes;
  return r;
}

void ar_cold_note(const struct ar_rotation *r, size_t cache_bytes, int inplace, char *buf, size_t len) {
  if (r->cold_reached || r->nsets < 1) {
    snprintf(buf, len, "%s", "");
    return;
  }
  size_t bufs = inplace ? 1 : 2, per = (size_t)r->nsets * bufs;
  size_t from = align_up((2 * cache_bytes + per - 1) / per, AR_ROTATION_LINE);
  snprintf(buf, len, "not cold: --buffers cold, but its %d sets span %zu bytes, under 2 x the %zu-byte cache, so its "
           "reads partly hit the cache; %d sets reach it %s from %zu bytes", r->nsets, r->span_bytes, cache_bytes,
           r->nsets, inplace ? "in place" : "out of place", from);
}

/* Samples one timed loop returns: one interval (--timing loop), one per graph replay or iteration. */
static int samples_per_loop(const struct bench *b, const struct ar_opts *o) {
  if (o->timing == AR_TIME_LOOP) return 1;
  return o->graph && b->plat != &ar_host_platform ? o->iters / o->graph : o->iters;
}

/* Rank 0 gets, per sample, the ranks' times combined as -a says (nccl-tests' numbering). */
static void combine_ranks(const struct ar_env *env, int how, double *mine, double *out, int n) {
  if (how == AR_AVG_RANK0) {
    if (env->rank == 0) memcpy(out, mine, sizeof *out * (size_t)n);
    return;
  }
  MPI_Op op = how == AR_AVG_MIN ? MPI_MIN : how == AR_AVG_MEAN ? MPI_SUM : MPI_MAX;
  MPI_Reduce(mine, out, n, MPI_DOUBLE, op, 0, env->comm);
  for (int i = 0; how == AR_AVG_MEAN && env->rank == 0 && i < n; i++) out[i] /= env->nranks;
}


/* One (dtype, size, placement). Returns 0, or -AR_E* with msg (agreed across ranks). */
/* A checked call that failed, and what the device says about it (a kernel's fault leaves a sticky CUDA error). */
static void call_failed(const struct ar_platform *p, int c, int rc, char *msg, size_t len) {
  char dev[160];
  if (p->why && p->why(dev, sizeof dev)) snprintf(msg, len, "checked call %d failed: %s (%s)", c, ar_status_name(rc), dev);
  else snprintf(msg, len, "checked call %d failed: %s", c, ar_status_name(rc));
}

static int measure(struct bench *b, enum ar_dtype dt, size_t count, int inplace, struct measured *m,
                   char *msg, size_t len) {
  const struct ar_env *env = b->e->env;
  const struct ar_opts *o = env->opts;
  if (b->be->fits) { /* a size the backend cannot take (fused: not whole rows) is a skip with its reason */
    int frc = agree(env, b->be->fits(b->state, count, dt, msg, len), msg, len);
    if (frc) return frc;
  }
  size_t bytes = count * ar_dtype_size(dt);
  struct ar_rotation rot = ar_buffer_sets(o->buffers == AR_BUF_COLD, b->cache_bytes, b->pool_bytes, bytes, inplace,
                                          b->plat != &ar_host_platform ? o->graph : 0);
  size_t stride = rot.stride, setsz = rot.setsz;
  int nsets = rot.nsets;
  int nsamp = samples_per_loop(b, o);
  void **in = calloc((size_t)nsets, sizeof *in), **out = calloc((size_t)nsets, sizeof *out);
  double *samples = calloc((size_t)o->iters, sizeof *samples);
  double *maxs = calloc((size_t)o->iters, sizeof *maxs);
  int rc = in && out && samples && maxs ? 0 : -AR_ERUNTIME;
  if (rc) snprintf(msg, len, "out of memory");
  for (int k = 0; !rc && k < nsets; k++) {
    in[k] = b->pool + (size_t)k * setsz;
    out[k] = inplace ? in[k] : (char *)in[k] + stride;
    rc = b->plat->fill(in[k], count, dt, o->op, env->rank, env->nranks);
  }
  if (!rc) rc = b->plat->sync(b->stream);
  if (rc && !*msg) snprintf(msg, len, "filling input buffers failed");
  rc = agree(env, rc, msg, len);
  /* Checked calls: fresh input, poisoned output, one call, compare with the exact result. The
   * watchdog watches only the collective (phase set around it), not the local fills and checks. */
  const char *place = inplace ? "in-place" : "out-of-place";
  uint64_t wrong = 0;
  const struct ar_backend *cbe = b->be; /* ARBENCH_INJECT_FAULT=R:unwritten: a backend that forgets */
  void *cstate = b->state;
  struct ar_fault_slow forget;
  if (!rc) rc = agree(env, ar_fault_wrap_checked(&b->e->fault, env->rank, b->plat, bytes, &cbe, &cstate, &forget),
                      msg, len);
  for (int c = 0; !rc && c < o->check; c++) {
    int k = c % nsets;
    if (!rc) rc = b->plat->fill(in[k], count, dt, o->op, env->rank, env->nranks);
    if (!rc && !inplace) rc = b->plat->fill(out[k], count, dt, o->op, -1, env->nranks);
    if (!rc) rc = b->plat->sync(b->stream);
    if (!rc && c == 0 && b->e->fill_fail_rank == env->rank && b->e->fill_fail_bytes == bytes)
      rc = -AR_ERUNTIME; /* ARBENCH_INJECT_FILL_FAIL=R:BYTES: prove no rank is left in the collective */
    if (rc && !*msg) snprintf(msg, len, "checked call %d: filling the buffers failed (%s)", c, ar_status_name(rc));
    /* All ranks enter the collective or none does: a rank whose fill (or last check) failed must
     * not skip it while the others wait in it. */
    rc = agree(env, rc, msg, len);
    if (rc) break;
    ar_watchdog_phase(b->e->dog, "backend %s %s size %zu (%s) checked call %d", b->spec, ar_dtype_name(dt),
                      bytes, place, c);
    if (!rc) rc = cbe->allreduce(cstate, in[k], out[k], count, dt, o->op, b->stream);
    if (!rc) rc = b->plat->sync(b->stream);
    ar_watchdog_settle(b->e->dog, rc); /* a failed call's clock runs on into the exchange below */
    if (!rc) /* ARBENCH_INJECT_FAULT: prove the check catches it */
      rc = ar_fault_corrupt(&b->e->fault, b->plat, out[k], count, dt, o->op, env->rank, env->nranks);
    uint64_t w = 0;
    if (!rc) rc = b->be->check ? b->be->check(b->state, out[k], count, dt, o->op, &w)
                               : b->plat->check(out[k], count, dt, o->op, env->nranks, &w);
    if (rc && !*msg) call_failed(b->plat, c, rc, msg, len);
    wrong += w;
  }
  ar_fault_unwrap(&forget);
  /* In-place checked calls consumed their inputs: restore them for the timed loop. */
  for (int k = 0; !rc && inplace && k < o->check && k < nsets; k++)
    rc = b->plat->fill(in[k], count, dt, o->op, env->rank, env->nranks);
  if (!rc) rc = b->plat->sync(b->stream);
  rc = agree(env, rc, msg, len);
  if (!rc) {
    struct ar_loop loop = {
      .be = b->be, .state = b->state, .in = in, .out = out, .nsets = nsets, .count = count,
      .dt = dt, .op = o->op, .warmup = o->warmup, .iters = o->iters, .graph = o->graph,
      .loop = o->timing == AR_TIME_LOOP,
      .stream = b->stream, .heartbeat = &b->e->dog->heartbeat,
    };
    struct ar_fault_slow slow; /* ARBENCH_INJECT_DELAY: prove max over ranks and -T */
    ar_fault_wrap(&b->e->fault, env->rank, b->plat, &loop, &slow);
    ar_watchdog_phase(b->e->dog, "backend %s %s size %zu (%s) timing", b->spec, ar_dtype_name(dt),
                      bytes, place);
    if (o->graph && b->plat != &ar_host_platform) ar_watchdog_unit(b->e->dog, o->graph); /* a replay = K */
    MPI_Barrier(env->comm);
    int n = b->plat->time_loop(&loop, samples, msg, len);
    rc = n < 0 ? n : 0;
    if (!rc && n != nsamp) {
      snprintf(msg, len, "timed loop returned %d samples, expected %d", n, nsamp);
      rc = -AR_ERUNTIME;
    }
    rc = agree(env, rc, msg, len);
  }
  if (!rc) {
    combine_ranks(env, o->average, samples, maxs, nsamp);
    MPI_Allreduce(&wrong, &m->wrong, 1, MPI_UINT64_T, MPI_SUM, env->comm);
    m->checked = o->check > 0;
    m->nsets = nsets;
    m->rot = rot;
    m->nsamples = nsamp;
    if (env->rank == 0) {
      m->samples = sample_array(maxs, nsamp, o->max_samples);
      ar_stats_compute(maxs, nsamp, &m->st);
    }
  }
  ar_watchdog_phase(b->e->dog, "%s", "");
  free(in);
  free(out);
  free(samples);
  free(maxs);
  return rc;
}

static void to_cell(const struct measured *m, size_t bytes, int nranks, struct ar_cell *c) {
  memset(c, 0, sizeof *c);
  c->present = true;
  c->checked = m->checked;
  c->wrong = m->wrong;
  c->time_us = m->st.mean;
  c->p50_us = m->st.p50;
  c->p99_us = m->st.p99;
  c->min_us = m->st.min;
  c->max_us = m->st.max;
  c->cv_pct = m->st.mean > 0 && m->st.n > 1 ? m->st.stddev / m->st.mean * 100.0 : 0.0;
  c->algbw = ar_algbw_gbs(bytes, m->st.mean);
  c->busbw = c->algbw * ar_busbw_factor(nranks);
}

/* How the numbers were taken: buffers (and, when cold fell short of the cache, that it did), timing, how ranks
 * combine, which repeat of how many. */
static void add_method(json_t *rec, const struct ar_opts *o, int repeat, const struct ar_rotation *rot,
                       size_t cache_bytes, int inplace) {
  char note[400] = "";
  json_object_set_new(rec, "buffers", json_string(ar_buffers_name(o->buffers)));
  if (o->buffers == AR_BUF_COLD) ar_cold_note(rot, cache_bytes, inplace, note, sizeof note);
  if (*note) json_object_set_new(rec, "buffers_note", json_string(note));
  json_object_set_new(rec, "timing", json_string(ar_timing_name(o->timing)));
  json_object_set_new(rec, "average", json_string(ar_average_name(o->average)));
  json_object_set_new(rec, "repeat", json_integer(repeat));
  json_object_set_new(rec, "repeats", json_integer(o->repeat));
}

static void emit_result(struct bench *b, enum ar_dtype dt, size_t count, int inplace,
                        struct measured *m) {
  struct ar_engine *e = b->e;
  const struct ar_opts *o = e->env->opts;
  size_t bytes = count * ar_dtype_size(dt);
  double bf = ar_busbw_factor(e->env->nranks);
  json_t *t = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "min", m->st.min, "p10", m->st.p10,
                        "p50", m->st.p50, "p90", m->st.p90, "p99", m->st.p99, "max", m->st.max,
                        "mean", m->st.mean, "stddev", m->st.stddev);
  /* "checked": true (exact comparison), "tolerance" (the backend's own check: fused work) or false */
  json_t *checked = m->checked && b->be->check ? json_string("tolerance") : json_boolean(m->checked);
  json_t *rec = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:I, s:o,"
      " s:f, s:f, s:f, s:f}",
      "backend", b->be->name, "variant", b->variant, "spec", b->spec, "dtype", ar_dtype_name(dt), "op",
      ar_op_name(o->op), "placement", inplace ? "in" : "out", "size", (json_int_t)bytes, "count",
      (json_int_t)count, "ranks", e->env->nranks, "nodes", e->env->nnodes, "iters", o->iters, "warmup",
      o->warmup, "graph", b->plat == &ar_host_platform ? 0 : o->graph, "nsets", m->nsets, "samples_n",
      m->nsamples, "checked", checked, "check_iters", o->check, "wrong", (json_int_t)m->wrong,
      "time_us", t, "algbw_gbs", ar_algbw_gbs(bytes, m->st.mean), "busbw_gbs",
      ar_algbw_gbs(bytes, m->st.mean) * bf, "algbw_p50_gbs", ar_algbw_gbs(bytes, m->st.p50),
      "busbw_p50_gbs", ar_algbw_gbs(bytes, m->st.p50) * bf);
  if (b->plat != &ar_host_platform && e->link_gbs > 0)
    json_object_set_new(rec, "efficiency", json_real(ar_efficiency(ar_algbw_gbs(bytes, m->st.mean) * bf, e->link_gbs)));
  add_method(rec, o, m->repeat, &m->rot, b->cache_bytes, inplace);
  json_object_set_new(rec, "rotation_bytes", json_integer((json_int_t)m->rot.span_bytes));
  json_object_set_new(rec, "cache_bytes", json_integer((json_int_t)b->cache_bytes));
  json_object_set_new(rec, "cold_reached", json_boolean(m->rot.cold_reached));
  if (b->be->describe) b->be->describe(b->state, rec);
  json_object_set_new(rec, "samples_us", m->samples);
  m->samples = NULL;
  ar_engine_emit(e, "result", rec);
}

static void run_sizes(struct bench *b, enum ar_dtype dt, int rep);

static int run_dtype(struct bench *b, enum ar_dtype dt) {
  struct ar_engine *e = b->e;
  const struct ar_opts *o = e->env->opts;
  char msg[AR_ERRLEN] = "";
  int rc = b->be->supports ? b->be->supports(b->state, dt, o->op, msg, sizeof msg) : 0;
  rc = agree(e->env, rc, msg, sizeof msg);
  if (rc) {
    emit_note(e, rc == -AR_EUNAVAIL ? "skip" : "error", b, dt, 0, msg);
    return 0;
  }
  if (e->env->rank == 0) ar_report_header(e->report, b->spec, dt, e->env->nranks); /* --quiet: no table header */
  for (int rep = 0; rep < o->repeat; rep++) run_sizes(b, dt, rep);
  return 0;
}

/* One pass over the sizes (repeat rep of --repeat): measure, record, one table row per size. */
static void run_sizes(struct bench *b, enum ar_dtype dt, int rep) {
  struct ar_engine *e = b->e;
  const struct ar_opts *o = e->env->opts;
  char msg[AR_ERRLEN] = "";
  int rc;
  if (e->env->rank == 0 && o->repeat > 1) fprintf(e->report->note, "# repeat %d of %d\n", rep + 1, o->repeat);
  for (int i = 0; i < o->nsizes && !ar_engine_stopped(e); i++) {
    size_t count = o->by_count ? o->sizes[i] : o->sizes[i] / ar_dtype_size(dt);
    size_t bytes = count * ar_dtype_size(dt);
    struct ar_cell cells[2] = {{0}, {0}};
    struct ar_rotation short_rot = {0}; /* --buffers cold, but a placement's rotation spanned less than 2 x cache */
    for (int p = 0; p < 2; p++) {
      if (!(o->placement & (p ? AR_PLACE_IN : AR_PLACE_OUT))) continue;
      struct measured m = {.repeat = rep};
      *msg = 0;
      rc = measure(b, dt, count, p, &m, msg, sizeof msg);
      if (rc) {
        emit_note(e, rc == -AR_EUNAVAIL ? "skip" : "error", b, dt, bytes, msg);
        cells[p].skip = "error";
        continue;
      }
      e->wrong_total += m.wrong;
      if (e->env->rank == 0) {
        to_cell(&m, bytes, e->env->nranks, &cells[p]);
        if (o->buffers == AR_BUF_COLD && !m.rot.cold_reached) short_rot = m.rot;
        emit_result(b, dt, count, p, &m);
      }
    }
    if (e->env->rank == 0) ar_report_row(e->report, bytes, count, dt, o->op, &cells[0], &cells[1]);
    if (e->env->rank == 0 && short_rot.nsets && !o->quiet)
      fprintf(e->report->note, "# %zu B: not cold: %d sets span %zu bytes, under 2 x the %zu-byte cache (at most 4096 sets, 256 x K with -G K)\n",
              bytes, short_rot.nsets, short_rot.span_bytes, b->cache_bytes);
  }
}

size_t ar_max_bytes(const struct ar_opts *o) {
  size_t mx = 0;
  for (int i = 0; i < o->nsizes; i++)
    for (int d = 0; d < o->ndtypes; d++) {
      size_t es = ar_dtype_size(o->dtypes[d]);
      size_t bytes = o->by_count ? o->sizes[i] * es : o->sizes[i] / es * es;
      if (bytes > mx) mx = bytes;
    }
  return mx;
}

/* The pool could not be allocated: say which buffers, for which size, how many bytes of which memory, and the
 * allocator's own words (msg on entry). */
static void alloc_failed(const struct bench *b, size_t maxb, char *msg, size_t len) {
  char why[AR_ERRLEN], hp[32], hm[32];
  snprintf(why, sizeof why, "%s", msg);
  ar_human_bytes(b->pool_bytes, hp, sizeof hp);
  ar_human_bytes(maxb, hm, sizeof hm);
  int cold = b->e->env->opts->buffers == AR_BUF_COLD;
  snprintf(msg, len, "cannot allocate the send and receive buffers%s for the largest size, %zu bytes (%s): %zu bytes (%s) "
           "of %s memory per rank (%.200s)", cold ? " and the cold rotation's 2 x cache" : "", maxb, hm, b->pool_bytes, hp,
           b->plat == &ar_host_platform ? "host" : "GPU", why);
}

int ar_engine_backend(struct ar_engine *e, const char *spec) {
  const struct ar_env *env = e->env;
  struct bench b = {.e = e, .spec = spec};
  char msg[AR_ERRLEN] = "";
  int rc = ar_backend_resolve(spec, &b.be, &b.variant, msg, sizeof msg);
  if (rc) return rc;
  rc = b.be->available ? b.be->available(env, msg, sizeof msg) : 0; /* "not compiled in" for absent.c's */
  b.plat = b.be->flags & AR_BE_DEVICE ? ar_device_platform() : &ar_host_platform;
  if (!rc && !b.plat) {
    snprintf(msg, sizeof msg, "built without CUDA");
    rc = -AR_EUNAVAIL;
  }
  if ((rc = agree(env, rc ? -AR_EUNAVAIL : 0, msg, sizeof msg))) {
    emit_note(e, "skip", &b, (enum ar_dtype)-1, 0, msg);
    return 0;
  }
  ar_watchdog_phase(e->dog, "backend %s init", spec);
  rc = agree(env, b.be->init(env, b.variant, &b.state, msg, sizeof msg), msg, sizeof msg);
  if (rc) {
    emit_note(e, rc == -AR_EUNAVAIL ? "skip" : "error", &b, (enum ar_dtype)-1, 0, msg);
    ar_watchdog_phase(e->dog, "%s", "");
    return rc == -AR_EINVAL ? rc : 0;
  }
  size_t maxb = ar_max_bytes(env->opts);
  b.cache_bytes = b.plat->cache_bytes ? b.plat->cache_bytes() : 0;
  b.pool_bytes = ar_pool_bytes(env->opts->buffers == AR_BUF_COLD, b.cache_bytes, maxb);
  rc = b.be->setup ? b.be->setup(b.state, maxb, msg, sizeof msg) : 0;
  if (!rc && b.plat->stream_create) rc = b.plat->stream_create(&b.stream, msg, sizeof msg);
  /* Host buffers: the node's ranks' pools against MemAvailable and ulimit -v, before any rank allocates (Linux
   * overcommits: an allocation past the memory succeeds and its first touch ends in the OOM killer). */
  if (!rc && b.plat == &ar_host_platform && !env->opts->no_mem_check)
    rc = ar_mem_check_need(b.pool_bytes, maxb, env->opts->buffers == AR_BUF_COLD, spec, env->local_nranks,
                           "/proc/meminfo", msg, sizeof msg);
  /* alloc may be collective (ncclCommWindowRegister): every rank enters it or none does. */
  rc = agree(env, rc, msg, sizeof msg);
  int allocating = !rc;
  if (!rc && b.be->alloc) rc = b.be->alloc(b.state, b.pool_bytes, (void **)&b.pool, msg, sizeof msg);
  else if (!rc) { /* local allocation and page touching (can take seconds): not a collective */
    ar_watchdog_phase(e->dog, "%s", "");
    rc = b.plat->alloc(b.pool_bytes, (void **)&b.pool, msg, sizeof msg);
    ar_watchdog_phase(e->dog, "backend %s init", spec);
  }
  if (allocating && rc && rc != -AR_EUNAVAIL) alloc_failed(&b, maxb, msg, sizeof msg);
  rc = agree(env, rc, msg, sizeof msg);
  ar_watchdog_phase(e->dog, "%s", ""); /* measure() names its own phases */
  if (rc) emit_note(e, rc == -AR_EUNAVAIL ? "skip" : "error", &b, (enum ar_dtype)-1, 0, msg);
  for (int d = 0; !rc && d < env->opts->ndtypes; d++) run_dtype(&b, env->opts->dtypes[d]);
  ar_watchdog_phase(e->dog, "backend %s fini", spec);
  MPI_Barrier(env->comm);
  /* Buffers first (a backend may have registered them), then the backend, then the stream. */
  if (b.pool && b.be->release) b.be->release(b.state, b.pool);
  else if (b.pool) b.plat->release(b.pool);
  b.be->fini(b.state);
  if (b.stream && b.plat->stream_destroy) b.plat->stream_destroy(b.stream);
  ar_watchdog_phase(e->dog, "%s", "");
  return 0;
}
