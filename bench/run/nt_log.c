/* nt_log.c — arbench results in nccl-tests 2.18.5's (or 2.19.6's) all_reduce_perf layout: header lines (version,
 * the nThread line, one "#  Rank" line per rank), both column groups, the footer; one configuration per log. */
#include "run/nt_log.h"
#include "device/gpu.h"
#include "run/table.h"
#include "results.h"
#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE 256 /* one "#  Rank" line */

void ar_nt_number(double v, int width, char *buf, size_t len) {
  int power = 0; /* digits before the point (nccl-tests counts the powers of ten at or below v) */
  for (double p = 1; v >= p && power < 40; p *= 10) power++;
  if (power < width - 2) snprintf(buf, len, "%*.2f", width, v);
  else if (power < width - 1) snprintf(buf, len, "%*.1f", width, v);
  else if (power < width + 1) snprintf(buf, len, "%*.0f", width, v);
  else if (width >= 7) snprintf(buf, len, "%*.1e", width, v);
  else snprintf(buf, len, "%*.0e", width, v);
}

void ar_nt_number_fit(double v, int width, char *buf, size_t len) {
  static const char *const fixed[] = {"%*.2f", "%*.1f", "%*.0f"};
  char t[64];
  for (int i = 0; i < 3; i++)
    if (snprintf(t, sizeof t, fixed[i], width, v) <= width) {
      snprintf(buf, len, "%s", t);
      return;
    }
  snprintf(buf, len, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

void ar_nt_file_name(const char *spec, enum ar_dtype dt, char *buf, size_t len) {
  size_t k = 0;
  for (const char *s = spec; *s && k + 1 < len; s++)
    buf[k++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.=_", *s) ? *s : '-');
  buf[k] = 0;
  snprintf(buf + k, len - k, "-%s.log", ar_dtype_name(dt));
}

/* ---- before the run ---- */

static int dir_ready(const char *dir, char *err, size_t len) {
  struct stat st;
  if (mkdir(dir, 0777) && errno != EEXIST) {
    snprintf(err, len, "cannot create --nccl-tests-dir '%s': %s", dir, strerror(errno));
    return -AR_EINVAL;
  }
  if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
    snprintf(err, len, "--nccl-tests-dir '%s' is not a writable directory", dir);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_nt_check(const struct ar_opts *o, char *err, size_t len) {
  if (o->format != AR_FMT_NCCL_TESTS) return 0;
  int n = o->nbackends * o->ndtypes;
  if (!*o->nt_dir && n != 1) {
    snprintf(err, len, "--format nccl-tests writes one configuration per log, and this run has %d (%d backend%s x %d "
                       "dtype%s): name one backend and one dtype, or give --nccl-tests-dir DIR for one log each",
             n, o->nbackends, o->nbackends == 1 ? "" : "s", o->ndtypes, o->ndtypes == 1 ? "" : "s");
    return -AR_EINVAL;
  }
  if (!*o->nt_dir || dir_ready(o->nt_dir, err, len)) return *o->nt_dir ? -AR_EINVAL : 0;
  for (int i = 0; i < n; i++) {
    char name[AR_NAMELEN + 32], path[2 * AR_NAMELEN + 40];
    ar_nt_file_name(o->backends[i / o->ndtypes], o->dtypes[i % o->ndtypes], name, sizeof name);
    for (int j = 0; j < i; j++) {
      char other[AR_NAMELEN + 32];
      ar_nt_file_name(o->backends[j / o->ndtypes], o->dtypes[j % o->ndtypes], other, sizeof other);
      if (!strcmp(name, other)) {
        snprintf(err, len, "backends '%.80s' and '%.80s' would both write %s: give them apart", o->backends[i / o->ndtypes],
                 o->backends[j / o->ndtypes], name);
        return -AR_EINVAL;
      }
    }
    snprintf(path, sizeof path, "%s/%s", o->nt_dir, name);
    if (!access(path, F_OK)) {
      snprintf(err, len, "%.300s exists: a log is never overwritten (remove it, or choose another --nccl-tests-dir)", path);
      return -AR_EINVAL;
    }
  }
  return 0;
}

/* This rank's line: "#  Rank  0 Group  0 Pid  31706 on   hostname device  0 [0000:b4:00] NVIDIA ..."; a CPU
 * rank has device -1 and no bus id. */
static void rank_line(const struct ar_env *env, char *buf, size_t len) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  host[strcspn(host, ".")] = 0; /* as nccl-tests: the name up to the first dot */
  int k = snprintf(buf, len, "#  Rank %2d Group %2d Pid %6d on %10s device %2d", env->rank, 0, (int)getpid(), host,
                   env->device);
  if (env->device < 0) {
    snprintf(buf + k, len - (size_t)k, " CPU\n");
    return;
  }
  json_t *gpus = ar_gpu_describe(), *g;
  size_t i;
  const char *bus = "", *name = "";
  json_array_foreach(gpus, i, g) if (ar_rec_num(g, "index", -1) == env->device) {
    bus = ar_rec_str(g, "busid", "");
    name = ar_rec_str(g, "name", "");
  }
  snprintf(buf + k, len - (size_t)k, " [%.*s] %s\n", (int)strcspn(bus, "."), bus, name); /* 0000:b4:00.0 -> 0000:b4:00 */
  json_decref(gpus);
}

/* "2.28.9" -> 22809, as NCCL_VERSION_CODE; 0 for null. */
static int version_code(json_t *v) {
  int a = 0, b = 0, c = 0;
  if (!json_is_string(v) || sscanf(json_string_value(v), "%d.%d.%d", &a, &b, &c) < 2) return 0;
  return a * 10000 + b * 100 + c;
}

int ar_nt_setup(struct ar_nt_run *nr, const struct ar_env *env, const char *run_id, json_t *runrec) {
  memset(nr, 0, sizeof *nr);
  nr->o = env->opts;
  nr->nranks = env->nranks;
  nr->nnodes = env->nnodes;
  snprintf(nr->run_id, sizeof nr->run_id, "%s", run_id);
  char mine[LINE] = "";
  rank_line(env, mine, sizeof mine);
  char *all = env->rank == 0 ? calloc((size_t)env->nranks, LINE) : NULL;
  int bad = env->rank == 0 && !all, anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, env->comm);
  if (anybad) return -AR_ERUNTIME;
  MPI_Gather(mine, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, env->comm);
  if (env->rank) return 0;
  nr->rank_lines = calloc((size_t)env->nranks, LINE);
  for (int r = 0; nr->rank_lines && r < env->nranks; r++) strcat(nr->rank_lines, all + (size_t)r * LINE);
  free(all);
  json_t *st = json_object_get(runrec, "stack");
  snprintf(nr->stack, sizeof nr->stack, "%s", ar_rec_str(st, "name", "unknown"));
  nr->nccl_headers = version_code(json_object_get(st, "nccl_compiled"));
  nr->nccl_library = version_code(json_object_get(st, "nccl_loaded"));
  return nr->rank_lines ? 0 : -AR_ERUNTIME;
}

void ar_nt_free(struct ar_nt_run *nr) {
  free(nr->rank_lines);
  nr->rank_lines = NULL;
}

/* ---- one log ---- */

/* The sizes of one dtype: smallest, largest and the step nccl-tests would print (a whole factor, a fixed
 * number of bytes; 0(bytes) for one size or a list that is neither). */
static void size_steps(const struct ar_opts *o, enum ar_dtype dt, size_t *lo, size_t *hi, size_t *step, const char **kind) {
  size_t es = ar_dtype_size(dt), b[AR_MAX_SIZES] = {0};
  for (int i = 0; i < o->nsizes; i++) b[i] = o->by_count ? o->sizes[i] * es : o->sizes[i] / es * es;
  *lo = *hi = o->nsizes ? b[0] : 0;
  for (int i = 1; i < o->nsizes; i++) {
    if (b[i] < *lo) *lo = b[i];
    if (b[i] > *hi) *hi = b[i];
  }
  int geo = o->nsizes > 1 && b[0] && b[1] % b[0] == 0 && b[1] / b[0] >= 2, ari = o->nsizes > 1 && b[1] > b[0];
  for (int i = 1; i < o->nsizes; i++) {
    geo &= b[i - 1] && b[i] == b[i - 1] * (b[1] / (b[0] ? b[0] : 1));
    ari &= b[i] - b[i - 1] == b[1] - b[0];
  }
  *kind = geo ? "factor" : "bytes";
  *step = geo ? b[1] / b[0] : ari ? b[1] - b[0] : 0;
}

/* The column header: 2.18.5's (and 2.19.6's without -I) byte for byte, or 2.19.6's with the -I columns
 * (src/util.cu writeResultHeader at v2.19.6; no timestamp column). */
static void column_header(FILE *f, int per_iter) {
  if (!per_iter) {
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "",
            "", "", "");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type",
            "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    return;
  }
  fprintf(f, "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                "
             "in-place (+ per-iteration)\n", "", "", "", "", "");
  fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s \n",
          "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
          "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%");
  fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s \n",
          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", "(us)", "(GB/s)",
          "(GB/s)", "", "(us)", "(us)", "(us)", "(%)");
}

static void header(FILE *f, const struct ar_nt_run *nr, const char *spec, enum ar_dtype dt, int per_iter) {
  const struct ar_opts *o = nr->o;
  size_t lo, hi, step;
  const char *kind;
  const char *ver = o->nt_layout == 219 ? AR_NT_VERSION_219 : AR_NT_VERSION;
  size_steps(o, dt, &lo, &hi, &step, &kind);
  fprintf(f, "# nccl-tests version %s nccl-headers=%d nccl-library=%d arbench=%s\n", ver, nr->nccl_headers,
          nr->nccl_library, AR_VERSION_STRING);
  fprintf(f, "# Collective test starting: all_reduce_perf\n");
  fprintf(f, "# nThread 1 nGpus 1 minBytes %zu maxBytes %zu step: %zu(%s) warmup iters: %d iters: %d agg iters: 1 "
             "validation: %d graph: %d unalign: 0\n", lo, hi, step, kind, o->warmup, o->iters, o->check, o->graph);
  int place = o->placement;
  fprintf(f, "# arbench %s run %s: spec=%s dtype=%s op=%s ranks=%d nodes=%d placements=%s stack=%s\n", AR_VERSION_STRING,
          nr->run_id, spec, ar_dtype_name(dt), ar_op_name(o->op), nr->nranks, nr->nnodes,
          place == AR_PLACE_BOTH ? "out,in" : place == AR_PLACE_IN ? "in" : "out", nr->stack);
  fprintf(f, "# arbench method: buffers=%s timing=%s average=%s (nccl-tests' own: buffers=hot timing=loop average=mean)\n",
          ar_buffers_name(o->buffers), ar_timing_name(o->timing), ar_average_name(o->average));
  fprintf(f, "# arbench measured this, not nccl-tests: the lines follow nccl-tests %s's layout\n", ver);
  if (per_iter) /* in place of nccl-tests' "# Per-Iteration Report: CUDA event timing; ..." line, which is not ours */
    fprintf(f, "# arbench per-iteration: i_* over the %d timed iterations of each size (each combined over ranks as "
               "average=%s), i_p99 interpolated, i_cv%% from the sample standard deviation\n", o->iters,
            ar_average_name(o->average));
  fprintf(f, "#\n# Using devices\n%s", nr->rank_lines ? nr->rank_lines : "");
  fprintf(f, "#\n");
  column_header(f, per_iter);
  fflush(f);
}

int ar_nt_begin(struct ar_nt_log *l, const struct ar_nt_run *nr, const char *spec, enum ar_dtype dt, char *err,
                size_t len) {
  memset(l, 0, sizeof *l);
  l->f = stdout;
  l->layout = nr->o->nt_layout == 219 ? 219 : 218;
  l->per_iter = l->layout == 219 && nr->o->timing == AR_TIME_ITER;
  if (*nr->o->nt_dir) {
    char name[AR_NAMELEN + 32], path[2 * AR_NAMELEN + 40];
    ar_nt_file_name(spec, dt, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", nr->o->nt_dir, name);
    if (!(l->f = fopen(path, "wx"))) { /* never over a log that appeared since the start */
      snprintf(err, len, "cannot create %.300s: %s", path, strerror(errno));
      return -1;
    }
    l->owned = 1;
  }
  header(l->f, nr, spec, dt, l->per_iter);
  return 0;
}

static void group(struct ar_nt_log *l, const struct ar_cell *c) {
  if (!c || !c->present) { /* nccl-tests' blank group (and its four -I columns' width) */
    fprintf(l->f, "                                %s", l->per_iter ? "                                    " : "");
    return;
  }
  void (*num)(double, int, char *, size_t) = l->layout == 219 ? ar_nt_number_fit : ar_nt_number;
  char t[32], a[32], b[32];
  num(c->time_us, 7, t, sizeof t);
  num(c->algbw, 6, a, sizeof a);
  num(c->busbw, 6, b, sizeof b);
  if (c->checked) fprintf(l->f, "  %7s  %6s  %6s  %6g", t, a, b, (double)c->wrong);
  else fprintf(l->f, "  %7s  %6s  %6s    N/A", t, a, b);
  if (l->per_iter) { /* src/util.cu writePerIterReport at v2.19.6: "  %7s  %7s  %7s  %7s" */
    char mn[32], mx[32], p99[32], cv[32];
    num(c->min_us, 7, mn, sizeof mn);
    num(c->max_us, 7, mx, sizeof mx);
    num(c->p99_us, 7, p99, sizeof p99);
    num(c->cv_pct, 7, cv, sizeof cv);
    fprintf(l->f, "  %7s  %7s  %7s  %7s", mn, mx, p99, cv);
  }
  l->wrong += c->checked ? c->wrong : 0;
  l->busbw_sum += c->busbw;
  l->busbw_n++;
}

void ar_nt_row(struct ar_nt_log *l, size_t bytes, size_t count, enum ar_dtype dt, enum ar_op op,
               const struct ar_cell *out, const struct ar_cell *in) {
  if (!l->f || ((!out || !out->present) && (!in || !in->present))) return;
  fprintf(l->f, "%12zu  %12zu  %8s  %6s  %6s", bytes, count, ar_dtype_name(dt), ar_op_name(op), "-1");
  group(l, out);
  group(l, in);
  fprintf(l->f, "\n");
  fflush(l->f);
}

void ar_nt_end(struct ar_nt_log *l) {
  if (!l->f) return;
  fprintf(l->f, "# %-20s : %llu %s\n", "Out of bounds values", l->wrong, l->wrong ? "FAILED" : "OK");
  fprintf(l->f, "# %-20s : %g \n", "Avg bus bandwidth", l->busbw_n ? l->busbw_sum / l->busbw_n : 0.0);
  fprintf(l->f, "#\n# Collective test concluded: all_reduce_perf\n#\n\n");
  fflush(l->f);
  if (l->owned) fclose(l->f);
  l->f = NULL;
}
