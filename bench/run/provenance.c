/* provenance.c — the `run` record: arbench/git, command, hosts, ranks, CUDA/NCCL stack, MPI,
 * hwloc, topology summary and digest, NCCL_/OMPI_/CUDA_ environment, options; and `arbench version`. */
#include "run/provenance.h"
#include "ar_config.h"
#include "ar_git.h"
#include "device/gpu.h"
#include "knownbad.h"
#include "opts.h"
#include "run/pernode.h"
#include "topo.h"
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void ar_mpi_version(char *buf, size_t len) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(lib, &n);
  char *nl = strchr(lib, '\n');
  if (nl) *nl = 0;
  char *comma = strstr(lib, ", package");
  if (comma) *comma = 0;
  snprintf(buf, len, "%s", lib);
}

/* hwloc has two version numbers: the release (HWLOC_VERSION, e.g. 2.9.0) and the API version
 * (HWLOC_API_VERSION, e.g. 2.8.0), which stays the same across releases that add no API. The loaded
 * library's release is not exported by a function; hwloc stores it in the root object's
 * "hwlocVersion" info at every load, so a one-PU synthetic topology gives it in microseconds. */
void ar_hwloc_versions(struct ar_hwloc_versions *v) {
  unsigned api = hwloc_get_api_version();
  snprintf(v->compiled, sizeof v->compiled, "%s", HWLOC_VERSION);
  snprintf(v->api_compiled, sizeof v->api_compiled, "%u.%u.%u", (unsigned)HWLOC_API_VERSION >> 16,
           ((unsigned)HWLOC_API_VERSION >> 8) & 0xff, (unsigned)HWLOC_API_VERSION & 0xff);
  snprintf(v->api_loaded, sizeof v->api_loaded, "%u.%u.%u", api >> 16, (api >> 8) & 0xff, api & 0xff);
  snprintf(v->loaded, sizeof v->loaded, "unknown");
  hwloc_topology_t t;
  if (hwloc_topology_init(&t)) return;
  const char *rel = NULL;
  if (!hwloc_topology_set_synthetic(t, "pu:1") && !hwloc_topology_load(t))
    rel = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "hwlocVersion");
  if (rel) snprintf(v->loaded, sizeof v->loaded, "%s", rel);
  hwloc_topology_destroy(t);
}

void ar_hwloc_line(const struct ar_hwloc_versions *v, char *buf, size_t len) {
  if (!strcmp(v->compiled, v->loaded) && !strcmp(v->api_compiled, v->api_loaded))
    snprintf(buf, len, "%s (library and headers; API %s)", v->loaded, v->api_loaded);
  else
    snprintf(buf, len, "library %s (API %s), headers %s (API %s)", v->loaded, v->api_loaded,
             v->compiled, v->api_compiled);
}

/* One cell of the kernel table: "40", "64 +s12/24" (spill stores/loads bytes), "error", "" (not built). */
static void ar_kernel_cell(json_t *e, char *buf, size_t len) {
  if (!e) {
    snprintf(buf, len, "-");
    return;
  }
  if (!json_is_true(json_object_get(e, "compiled"))) {
    snprintf(buf, len, "error");
    return;
  }
  json_int_t st = json_integer_value(json_object_get(e, "spill_stores"));
  json_int_t ld = json_integer_value(json_object_get(e, "spill_loads"));
  int k = snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(e, "registers")));
  if ((st || ld) && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, " +s%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, st, ld);
}

static const char *kernel_name(json_t *e) {
  const char *k = json_string_value(json_object_get(e, "kernel"));
  if (!k) k = json_string_value(json_object_get(e, "source"));
  return k ? k : "?";
}

/* Index of s in v[0..n), appended when absent (at most max); -1 when full. */
static int name_index(const char **v, int *n, int max, const char *s) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(v[i], s)) return i;
  if (*n == max) return -1;
  v[*n] = s;
  return (*n)++;
}

void ar_stack_kernels_line(json_t *st, char *buf, size_t len) {
  const char *off = json_string_value(json_object_get(st, "cuda_disabled"));
  json_t *ck = json_object_get(st, "custom_kernels");
  if (off) snprintf(buf, len, "none: this build has CUDA disabled (%s); meson configure BUILD -Dcuda=enabled, then "
                    "ninja -C BUILD, builds the GPU parts where the CUDA toolkit is", off);
  else if (json_is_true(json_object_get(st, "kernels")))
    snprintf(buf, len, "%s", json_string_value(json_object_get(st, "archs")) ? json_string_value(json_object_get(st, "archs")) : "?");
  else if (json_is_object(ck)) snprintf(buf, len, "none linked in (no nvcc in this stack: fill/check staged through the host)");
  else snprintf(buf, len, "none (no nvcc in this stack: no GPU kernels compiled in)");
}

#define AR_KB_MAX 64
/* The kernel compile report of this build: the summary line of `version`, or (--kernels) a table with one
 * row per kernel and one aligned column per arch (registers, +sS/L spills), then the compiler's errors. */
static void ar_print_kernel_build(json_t *kb, bool table) {
  if (!json_is_object(kb)) return;
  const char *comp = json_string_value(json_object_get(kb, "compiler"));
  json_t *ks = json_object_get(kb, "kernels");
  if (!comp) {
    printf("kernel build none (%s)\n", json_string_value(json_object_get(kb, "why")) ? json_string_value(json_object_get(kb, "why")) : "?");
    return;
  }
  const char *kern[AR_KB_MAX], *arch[AR_KB_MAX];
  json_t *cell[AR_KB_MAX][AR_KB_MAX] = {{0}};
  int nk = 0, na = 0, spills = 0, errors = 0;
  size_t i;
  json_t *e;
  json_array_foreach(ks, i, e) {
    const char *a = json_string_value(json_object_get(e, "arch"));
    int r = name_index(kern, &nk, AR_KB_MAX, kernel_name(e)), c = name_index(arch, &na, AR_KB_MAX, a ? a : "?");
    if (r >= 0 && c >= 0) cell[r][c] = e;
    if (!json_is_true(json_object_get(e, "compiled"))) errors++;
    else if (json_integer_value(json_object_get(e, "spill_stores")) || json_integer_value(json_object_get(e, "spill_loads")))
      spills++;
  }
  if (!table) {
    printf("kernel build %s, %zu kernel x arch entries, %d spilling, %d failed (arbench version --kernels)\n", comp,
           json_array_size(ks), spills, errors);
    return;
  }
  printf("kernel build %s, %zu kernel x arch entries (registers; +sS/L: spill stores/loads, bytes)\n", comp,
         json_array_size(ks));
  int kw = (int)strlen("kernel"), aw[AR_KB_MAX];
  char buf[64];
  for (int r = 0; r < nk; r++) kw = (int)strlen(kern[r]) > kw ? (int)strlen(kern[r]) : kw;
  for (int c = 0; c < na; c++) {
    aw[c] = (int)strlen(arch[c]);
    for (int r = 0; r < nk; r++) {
      ar_kernel_cell(cell[r][c], buf, sizeof buf);
      aw[c] = (int)strlen(buf) > aw[c] ? (int)strlen(buf) : aw[c];
    }
  }
  printf("  %-*s", kw, "kernel");
  for (int c = 0; c < na; c++) printf("  %*s", aw[c], arch[c]);
  printf("\n");
  for (int r = 0; r < nk; r++) {
    printf("  %-*s", kw, kern[r]);
    for (int c = 0; c < na; c++) {
      ar_kernel_cell(cell[r][c], buf, sizeof buf);
      printf("  %*s", aw[c], buf);
    }
    printf("\n");
  }
  json_array_foreach(ks, i, e) {
    const char *err = json_string_value(json_object_get(e, "error"));
    if (err) printf("  %s %s: %s\n", json_string_value(json_object_get(e, "source")),
                    json_string_value(json_object_get(e, "arch")), err);
  }
}

static json_t *env_object(void) {
  static const char *const prefixes[] = {"NCCL_", "OMPI_MCA_", "CUDA_", "UCX_", "HWLOC_", "ARBENCH_"};
  json_t *o = json_object();
  for (char **e = environ; *e; e++)
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
      if (!strncmp(*e, prefixes[i], strlen(prefixes[i]))) {
        const char *eq = strchr(*e, '=');
        if (!eq) break;
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - *e), *e);
        json_object_set_new(o, key, json_string(eq + 1));
        break;
      }
  return o;
}

static json_t *options_object(const struct ar_opts *o) {
  json_t *sizes = json_array(), *dts = json_array(), *bes = json_array();
  for (int i = 0; i < o->nsizes; i++) json_array_append_new(sizes, json_integer((json_int_t)o->sizes[i]));
  for (int i = 0; i < o->ndtypes; i++) json_array_append_new(dts, json_string(ar_dtype_name(o->dtypes[i])));
  for (int i = 0; i < o->nbackends; i++) json_array_append_new(bes, json_string(o->backends[i]));
  return json_pack("{s:o, s:s, s:o, s:o, s:s, s:i, s:i, s:i, s:i, s:f, s:s, s:b, s:i, s:s, s:s, s:s, s:i}", "sizes", sizes,
                   "sizes_unit", o->by_count ? "elements" : "bytes", "dtypes", dts, "backends", bes,
                   "op", ar_op_name(o->op), "iters", o->iters, "warmup", o->warmup, "check", o->check,
                   "graph", o->graph, "timeout", o->timeout, "inplace",
                   o->placement == AR_PLACE_BOTH ? "both" : o->placement == AR_PLACE_IN ? "yes" : "no",
                   "bind", o->bind, "islands", o->islands, "buffers", ar_buffers_name(o->buffers), "timing",
                   ar_timing_name(o->timing), "average", ar_average_name(o->average), "repeat", o->repeat);
}

/* Per-rank host and device, gathered to rank 0. */
static json_t *rank_table(const struct ar_env *env) {
  struct { char host[64]; int device, local_rank; } me = {{0}, env->device, env->local_rank}, *all = NULL;
  gethostname(me.host, sizeof me.host - 1);
  if (env->rank == 0) all = calloc((size_t)env->nranks, sizeof me);
  MPI_Gather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, 0, env->comm);
  if (env->rank) return NULL;
  json_t *a = json_array();
  for (int r = 0; r < env->nranks; r++)
    json_array_append_new(a, json_pack("{s:i, s:s, s:i, s:i}", "rank", r, "host", all[r].host,
                                       "local_rank", all[r].local_rank, "device", all[r].device));
  free(all);
  return a;
}

json_t *ar_run_record(const struct ar_env *env, int argc, char **argv, const char *run_id,
                      json_t *bindings) {
  json_t *ranks = rank_table(env);
  if (env->rank) return NULL;
  json_t *cmd = json_array();
  for (int i = 0; i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
  json_t *hosts = json_array();
  for (size_t r = 0; r < json_array_size(ranks); r++) {
    const char *h = json_string_value(json_object_get(json_array_get(ranks, r), "host"));
    int seen = 0;
    for (size_t k = 0; k < json_array_size(hosts); k++)
      seen |= !strcmp(json_string_value(json_array_get(hosts, k)), h);
    if (!seen) json_array_append_new(hosts, json_string(h));
  }
  char mpi[256], start[64];
  struct ar_hwloc_versions hv;
  ar_mpi_version(mpi, sizeof mpi);
  ar_hwloc_versions(&hv);
  time_t now = time(NULL);
  strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  int mv, msub;
  MPI_Get_version(&mv, &msub);
  json_t *rec = json_pack(
      "{s:i, s:{s:s, s:s}, s:o, s:s, s:o, s:i, s:i, s:o, s:o, s:o, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s}}",
      "schema", AR_SCHEMA_VERSION, "arbench", "version", AR_VERSION_STRING, "git", AR_GIT_COMMIT,
      "command", cmd, "start", start, "hosts", hosts, "ranks", env->nranks, "nodes", env->nnodes,
      "rank_map", ranks, "stack", ar_stack_describe(), "gpus", ar_gpu_describe(), "mpi", "library",
      mpi, "standard", mv == 3 ? (msub == 1 ? "3.1" : "3.0") : "4+", "hwloc", "compiled", hv.compiled,
      "loaded", hv.loaded, "api_compiled", hv.api_compiled, "api_loaded", hv.api_loaded);
  json_object_set_new(rec, "topology", env->topo ? ar_topo_summary(env->topo) : json_null());
  json_object_set_new(rec, "binding", bindings ? json_incref(bindings) : json_null());
  json_object_set_new(rec, "options", options_object(env->opts));
  json_object_set_new(rec, "env", env_object());
  ar_knownbad_record(rec, NULL, 0); /* known_bad: entries of bench/knownbad.c this stack and these GPUs match */
  json_t *slurm = ar_slurm_describe(environ); /* the job, step and node, under Slurm */
  if (slurm) json_object_set_new(rec, "slurm", slurm);
  (void)run_id;
  return rec;
}

int ar_cmd_version(int argc, char **argv) {
  bool kernels = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--kernels")) kernels = true;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: arbench version [--kernels]\n"
             "  versions of arbench, CUDA, NCCL, Open MPI and hwloc; --kernels: the kernel compile report of this\n"
             "  build (registers and spills per kernel and arch)\n");
      return AR_EXIT_OK;
    } else {
      fprintf(stderr, "arbench: unknown option '%s' for version (known: --kernels, --help)\n", argv[i]);
      return AR_EXIT_USAGE;
    }
  }
  char mpi[256], hline[160];
  struct ar_hwloc_versions hv;
  ar_mpi_version(mpi, sizeof mpi);
  ar_hwloc_versions(&hv);
  ar_hwloc_line(&hv, hline, sizeof hline);
  json_t *st = ar_stack_describe();
#define S(k) (json_string_value(json_object_get(st, k)) ? json_string_value(json_object_get(st, k)) : "none")
  printf("arbench %s (git %s)\n", AR_VERSION_STRING, AR_GIT_COMMIT);
  printf("stack        %s\n", S("name"));
  json_t *standin = json_object_get(st, "standin"); /* -Dcuda-emu: what stands in for the GPU stack */
  for (const char *k = standin ? "cuda" : NULL; k; k = NULL)
    printf("stand-in     %s\n", json_string_value(json_object_get(standin, k)));
  printf("CUDA runtime %s, driver %s\n", S("cuda_runtime"), S("cuda_driver"));
  printf("NCCL         compiled %s, loaded %s\n", S("nccl_compiled"), S("nccl_loaded"));
  const char *sn = json_string_value(json_object_get(json_object_get(st, "standin"), "nccl"));
  if (sn) printf("NCCL stand-in %s (CPU ranks: no GPU, no NCCL ran)\n", sn);
  json_t *ck = json_object_get(st, "custom_kernels");
  char archs[512];
  ar_stack_kernels_line(st, archs, sizeof archs);
  printf("GPU archs    %s\n", archs);
  if (json_object_get(st, "cuda_disabled")) /* --kernels too: nothing was compiled, said rather than left blank */
    printf("kernel build none: no GPU kernel in a build with CUDA disabled (nothing to report per kernel and arch)\n");
  if (json_is_object(ck)) /* p2p-* and fused: nvcc's, or NVRTC's cubins loaded at run time */
    printf("custom kernels %s-built for %s, %s\n", json_string_value(json_object_get(ck, "compiler")),
           json_string_value(json_object_get(ck, "archs")), json_string_value(json_object_get(ck, "load")));
  ar_print_kernel_build(json_object_get(st, "kernel_build"), kernels);
  printf("MPI          %s\n", mpi);
  printf("hwloc        %s\n", hline);
#undef S
  const char *warn = json_string_value(json_object_get(st, "warning"));
  if (warn) fprintf(stderr, "arbench: warning: %s\n", warn);
  json_decref(st);
  return AR_EXIT_OK;
}
