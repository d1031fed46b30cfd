/* import_json.c — `arbench import nccl-tests-json FILE`: the JSON all_reduce_perf writes with -J (nccl-tests
 * 2.17+; version 3 at 2.19.6 with -I's "*_per_iter" objects) -> one run record and its results, as import.c. */
#include "import.h"
#include "infile.h"
#include "results.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t len, const char *path, const char *what) {
  snprintf(err, len, "%.200s: %s", path, what);
  return -AR_EINVAL;
}

/* A number of the file: nccl-tests writes doubles with "%lf", ints with "%d"; "nan" as a string. */
static int num(json_t *o, const char *key, double *v) {
  json_t *x = json_object_get(o, key);
  if (!json_is_number(x)) return -1;
  *v = json_number_value(x);
  return isfinite(*v) && *v >= 0 ? 0 : -1;
}

static const char *average_name(int a) {
  static const char *const names[] = {"rank0", "mean", "min", "max"};
  return a >= 0 && a < 4 ? names[a] : "mean";
}

/* The argv nccl-tests kept ("args"), as one command line for import_ranks.c's readers. */
static void command_of(json_t *args, char *cmd, size_t len) {
  size_t i, k = 0;
  json_t *a;
  *cmd = 0;
  json_array_foreach(args, i, a) if (json_is_string(a) && k < len)
    k += (size_t)snprintf(cmd + k, len - k, "%s%s", k ? " " : "", json_string_value(a));
}

/* "config": the nThread line's options, -I/-K, and the devices (one per process: nccl-tests' first Rank line
 * of each). */
static json_t *options_of(json_t *cfg, json_t *cmd_opts) {
  static const char *const keys[][2] = {{"nthreads", "nthread"}, {"ngpus", "ngpus"}, {"minimum_bytes", "minbytes"},
    {"maximum_bytes", "maxbytes"}, {"step_factor", "step_factor"}, {"step_bytes", "step_bytes"},
    {"warmup_iters", "warmup"}, {"iterations", "iters"}, {"aggregated_iterations", "agg_iters"},
    {"validation", "validation"}, {"graph", "graph"}, {"per_iter_skip", "per_iter_skip"}};
  json_t *opts = json_object(), *v;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if (json_is_integer(v = json_object_get(cfg, keys[k][0]))) json_object_set(opts, keys[k][1], v);
  if (json_is_true(json_object_get(cfg, "blocking_collectives"))) json_object_set_new(opts, "blocking", json_true());
  if (json_is_true(json_object_get(cfg, "per_iter_timing"))) json_object_set_new(opts, "per_iter_timing", json_integer(1));
  const char *key;
  json_object_foreach(cmd_opts, key, v) if (!json_object_get(opts, key)) json_object_set(opts, key, v);
  return opts;
}

/* One placement of a result: {"time","alg_bw","bus_bw","nwrong"} and, with -I, its "*_per_iter" object. */
static int result_rec(json_t *res, const char *place, json_t *run, const char *tim, const char *avg, int ranks,
                      json_t **out, char *what, size_t wl) {
  const char *key = !strcmp(place, "out") ? "out_of_place" : "in_place";
  char pik[32];
  snprintf(pik, sizeof pik, "%s_per_iter", key);
  json_t *g = json_object_get(res, key), *pi = json_object_get(res, pik), *opts = json_object_get(run, "options");
  *out = NULL;
  if (json_is_null(g) || !g) return 0; /* nccl-tests' null body: not measured */
  double size, count, t, alg, bus;
  if (json_object_get(g, "cpu_time")) return snprintf(what, wl, "'cpu_time' (nccl-tests -C) times the launch, not the allreduce: not imported"), -1;
  if (num(res, "size", &size) || num(res, "count", &count) || num(g, "time", &t) || num(g, "alg_bw", &alg) ||
      num(g, "bus_bw", &bus))
    return snprintf(what, wl, "a result without a size, count, time, alg_bw or bus_bw number"), -1;
  const char *type = ar_rec_str(res, "type", ""), *op = ar_rec_str(res, "redop", ""), *dtype;
  int bytes;
  if (ar_nt_type(type, &dtype, &bytes))
    return snprintf(what, wl, "unknown data type '%.40s' (nccl-tests writes int8 ... f8e5m2)", type), -1;
  if (count * bytes != size) /* as the log reader: reduce_scatter's and all_gather's counts are not the size */
    return snprintf(what, wl, "%.0f elements of %s are not %.0f bytes: not allreduce output", count, type, size), -1;
  json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "type", "result", "run_id", ar_rec_str(run, "run_id", ""),
                        "dtype", dtype, "op", op, "placement", place, "size", (json_int_t)size, "count", (json_int_t)count);
  json_object_set_new(r, "iters", json_integer((json_int_t)ar_rec_num(opts, "iters", 0)));
  json_object_set_new(r, "warmup", json_integer((json_int_t)ar_rec_num(opts, "warmup", 0)));
  json_object_set_new(r, "graph", json_integer((json_int_t)ar_rec_num(opts, "graph", 0)));
  json_object_set_new(r, "samples_n", json_integer(0));
  json_object_set_new(r, "source", json_string("nccl-tests"));
  double wrong;
  int checked = !num(g, "nwrong", &wrong) && wrong <= 9.0e15;
  json_object_set_new(r, "checked", json_boolean(checked && ar_rec_num(opts, "validation", 1) > 0));
  json_object_set_new(r, "wrong", checked ? json_integer((json_int_t)wrong) : json_null());
  json_t *tu = json_pack("{s:f, s:f}", "mean", t, "p50", t);
  json_object_set_new(r, "time_us", tu);
  if (json_is_object(pi)) { /* -I 1: the spread as nccl-tests computed it (src/util.cu writePerIterReport) */
    static const char *const ks[] = {"min_us", "max_us", "avg_us", "p50_us", "p95_us", "p99_us", "stdev_us", "cv_pct"};
    json_t *p = json_object();
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
      double v;
      if (num(pi, ks[k], &v)) {
        json_decref(p);
        json_decref(r);
        return snprintf(what, wl, "%s of %.0f bytes without a number '%s'", pik, size, ks[k]), -1;
      }
      json_object_set_new(p, ks[k], json_real(v));
    }
    double mn = ar_rec_num(p, "min_us", 0), mx = ar_rec_num(p, "max_us", 0), p99 = ar_rec_num(p, "p99_us", 0);
    if (!(mn <= p99 && p99 <= mx)) {
      json_decref(p);
      json_decref(r);
      return snprintf(what, wl, "%s of %.0f bytes: min_us, p99_us and max_us out of order", pik, size), -1;
    }
    json_object_set_new(tu, "min", json_real(mn));
    json_object_set_new(tu, "max", json_real(mx));
    json_object_set_new(tu, "p99", json_real(p99));
    json_int_t skip = (json_int_t)ar_rec_num(pi, "skipped_iterations", ar_rec_num(opts, "per_iter_skip", 0));
    json_t *times = json_object_get(pi, "times_us");
    json_object_set_new(p, "skipped", json_integer(skip));
    json_object_set_new(p, "n", json_is_array(times) && (json_int_t)json_array_size(times) > skip
                                    ? json_integer((json_int_t)json_array_size(times) - skip) : json_null());
    if (json_is_array(times)) json_object_set(p, "times_us", times);
    json_t *pp = json_object_get(pi, "per_process_max_times_us");
    if (json_is_array(pp)) json_object_set(p, "per_process_max_times_us", pp);
    json_object_set_new(p, "from", json_string("nccl-tests -I 1 (-J file): CUDA events per iteration, max over GPUs "
                                               "and processes, nearest-rank p95/p99, population CV"));
    json_object_set_new(r, "per_iter", p);
  }
  json_object_set_new(r, "algbw_gbs", json_real(alg));
  json_object_set_new(r, "busbw_gbs", json_real(bus));
  json_object_set_new(r, "algbw_p50_gbs", json_real(alg));
  json_object_set_new(r, "busbw_p50_gbs", json_real(bus));
  json_object_set_new(r, "repeat", json_integer(0));
  json_object_set_new(r, "repeats", json_integer(1));
  json_object_set_new(r, "backend", json_string("nccl-tests"));
  json_object_set_new(r, "variant", json_string(""));
  json_object_set_new(r, "spec", json_string("nccl-tests"));
  json_object_set_new(r, "ranks", json_integer(ranks));
  json_object_set(r, "nodes", json_object_get(run, "nodes"));
  json_object_set_new(r, "buffers", json_string("hot"));
  json_object_set_new(r, "timing", json_string(tim));
  json_object_set_new(r, "average", json_string(avg));
  *out = r;
  return 0;
}

int ar_nt_import_json(const char *path, const char *stack, int forced_ranks, json_t *out, char *err, size_t len) {
  json_t *doc = NULL;
  json_error_t je;
  if (ar_infile_json(path, "nccl-tests JSON file", 0, &doc, &je, err, len)) return -AR_EINVAL;
  if (!doc) {
    snprintf(err, len, "%.200s:%d: not JSON: %s", path, je.line, je.text);
    return -AR_EINVAL;
  }
  json_t *cfg = json_object_get(doc, "config"), *results = json_object_get(doc, "results");
  json_t *args = json_object_get(doc, "args"), *devs = json_object_get(cfg, "devices");
  int rc = 0;
  if (!json_is_integer(json_object_get(doc, "version")) || !json_is_object(cfg) || !json_is_array(results) ||
      !json_is_array(devs)) {
    json_decref(doc);
    return fail(err, len, path, "not an nccl-tests -J file (expected an object with version, config, its devices "
                                "and results, as all_reduce_perf -J writes)");
  }
  char cmd[8192], prog[64] = "";
  command_of(args, cmd, sizeof cmd);
  ar_nt_command_program(cmd, prog, sizeof prog);
  if (*prog && !ar_nt_is_allreduce(prog)) {
    char w[160];
    snprintf(w, sizeof w, "written by %.60s, not all_reduce_perf: only allreduce results are imported", prog);
    json_decref(doc);
    return fail(err, len, path, w);
  }
  json_t *cmd_opts = json_object();
  ar_nt_command_options(cmd, cmd_opts);
  json_t *opts = options_of(cfg, cmd_opts);
  json_decref(cmd_opts);
  int nproc = (int)json_array_size(devs);
  int ranks = forced_ranks ? forced_ranks
                           : nproc * (int)ar_rec_num(opts, "nthread", 1) * (int)ar_rec_num(opts, "ngpus", 1);
  if (ranks < 1) {
    json_decref(opts);
    json_decref(doc);
    return fail(err, len, path, "no devices in its config: cannot tell the number of ranks (pass --ranks N)");
  }
  json_t *hosts = json_array(), *seen = json_object(), *rank_map = json_array(), *gpus = json_array(), *d;
  size_t i;
  json_array_foreach(devs, i, d) {
    const char *h = ar_rec_str(d, "hostname", "");
    if (*h && !json_object_get(seen, h)) json_array_append_new(hosts, json_string(h));
    json_object_set_new(seen, h, json_true());
    json_array_append_new(rank_map, json_pack("{s:i, s:s, s:i, s:i}", "rank", (int)ar_rec_num(d, "rank", -1), "host", h,
                                              "device", (int)ar_rec_num(d, "device", -1), "pid", (int)ar_rec_num(d, "pid", -1)));
    json_array_append_new(gpus, json_pack("{s:i, s:s, s:s}", "rank", (int)ar_rec_num(d, "rank", -1), "busid",
                                          ar_rec_str(d, "device_hex", ""), "name", ar_rec_str(d, "device_info", "")));
  }
  json_decref(seen);
  int one_per_proc = ar_rec_num(opts, "nthread", 1) * ar_rec_num(opts, "ngpus", 1) == 1;
  json_t *nodes = one_per_proc && !forced_ranks && json_array_size(hosts) ? json_integer((json_int_t)json_array_size(hosts))
                                                                          : json_null();
  /* NCCL's version code as ncclGetVersion gives it (22809), the only version the file holds */
  char ver[32] = "";
  json_int_t code = json_integer_value(json_object_get(doc, "nccl_version"));
  if (code >= 10000) snprintf(ver, sizeof ver, "%lld.%lld.%lld", code / 10000, code % 10000 / 100, code % 100);
  unsigned long long h = 1469598103934665603ull;
  for (const char *s = ar_rec_str(doc, "start_time", ""); *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  for (const char *s = cmd; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  char id[64], stack_name[96];
  snprintf(id, sizeof id, "nccltestsjson-%012llx-0", h & 0xffffffffffffull);
  if (stack) snprintf(stack_name, sizeof stack_name, "%s", stack);
  else if (*ver) snprintf(stack_name, sizeof stack_name, "nccl-%s (CUDA unknown)", ver);
  else snprintf(stack_name, sizeof stack_name, "unknown");
  int z3 = ar_rec_num(opts, "blocking_mode", 0) == 3, a = ar_nt_command_average(cmd);
  const char *tim = z3 ? "iter" : "loop", *avg = average_name(a);
  const char *base = strrchr(path, '/');
  json_t *run = json_pack("{s:s, s:s, s:i, s:s, s:s, s:{s:s}, s:{s:s, s:o}, s:o, s:o, s:o, s:o, s:i, s:s, s:o}",
                          "type", "run", "run_id", id, "schema", AR_SCHEMA_VERSION, "source", "nccl-tests",
                          "imported_from", base ? base + 1 : path, "arbench", "version", AR_VERSION_STRING, "stack", "name",
                          stack_name, "nccl_loaded", *ver ? json_string(ver) : json_null(), "rank_map", rank_map, "gpus",
                          gpus, "hosts", hosts, "options", opts, "ranks", ranks, "ranks_from",
                          forced_ranks ? "--ranks" : "devices", "nodes", nodes);
  json_object_set_new(run, "collective", json_string(*prog ? prog : "all_reduce_perf"));
  json_object_set_new(run, "json_version", json_incref(json_object_get(doc, "version")));
  json_object_set_new(run, "method", json_pack("{s:s, s:s, s:s, s:s}", "buffers", "hot", "timing", tim, "average", avg,
                                               "from", z3 ? "nccl-tests -z 3 (each iteration timed alone), its args' -a"
                                                          : "nccl-tests, its args' -a (default 1)"));
  double v;
  if (!num(json_object_get(doc, "average_bus_bandwidth"), "bandwidth", &v)) json_object_set_new(run, "avg_busbw_gbs", json_real(v));
  if (!num(json_object_get(doc, "out_of_bounds"), "count", &v)) json_object_set_new(run, "out_of_bounds", json_integer((json_int_t)v));
  json_t *recs = json_array(), *res;
  json_array_foreach(results, i, res) {
    static const char *const places[] = {"out", "in"};
    if (!json_is_object(res)) {
      snprintf(err, len, "%.200s: results[%zu] is not an object: not what all_reduce_perf -J writes", path, i);
      rc = -AR_EINVAL;
      break;
    }
    for (int k = 0; k < 2 && !rc; k++) {
      json_t *r;
      char what[200];
      if (result_rec(res, places[k], run, tim, avg, ranks, &r, what, sizeof what)) {
        snprintf(err, len, "%.200s: results[%zu]: %s", path, i, what);
        rc = -AR_EINVAL;
      } else if (r) json_array_append_new(recs, r);
    }
  }
  if (!rc && !json_array_size(recs)) rc = fail(err, len, path, "no results (an -J file of a run that printed no row)");
  if (!rc) {
    json_array_append(out, run);
    json_array_extend(out, recs);
  }
  json_decref(recs);
  json_decref(run);
  json_decref(doc);
  return rc;
}
