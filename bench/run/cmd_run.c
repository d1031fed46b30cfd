/* cmd_run.c — `arbench run`: MPI start-up, option agreement across ranks, topology and binding,
 * device choice, the run record, then the engine over every backend; exit status at the end. */
#include "commands.h"
#include "run/engine.h"
#include "run/fault.h"
#include "run/launch.h"
#include "run/memcheck.h"
#include "run/nt_log.h"
#include "run/orphan.h"
#include "run/pernode.h"
#include "device/gpu.h"
#include "knownbad.h"
#include "mpierr.h"
#include "opts.h"
#include "run/provenance.h"
#include "run/table.h"
#include "ncclenv.h"
#include "runas.h"
#include "run/runenv.h"
#include "topo.h"
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int check_same_options(const struct ar_env *env) {
  uint64_t h = ar_opts_hash(env->opts), *all = malloc(sizeof h * (size_t)env->nranks);
  MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, env->comm);
  int bad = -1;
  for (int r = 1; r < env->nranks && bad < 0; r++)
    if (all[r] != all[0]) bad = r;
  if (bad >= 0 && env->rank == 0)
    fprintf(stderr, "arbench: options differ between ranks: rank %d was started with different run options "
                    "than rank 0 (hash %016llx vs %016llx); start every rank with the same command\n",
            bad, (unsigned long long)all[bad], (unsigned long long)all[0]);
  free(all);
  return bad >= 0 ? -AR_EINVAL : 0;
}

/* The backends a run without --backend measures: the GPU ones where every rank has a GPU, else the host ones. */
static void default_backends(struct ar_opts *o, int gpus) {
  int n;
  const struct ar_backend *const *all = ar_backends(&n);
  /* The CPU stand-in's devices (-Dcuda-emu) are a correctness check whose times mean nothing: their backends
   * run when named, and the default is the host's, as without a GPU. */
  int gpu = gpus > 0 && !ar_gpu_standin();
  for (int i = 0; i < n && o->nbackends < AR_MAX_BACKENDS; i++) {
    int device = (all[i]->flags & AR_BE_DEVICE) != 0;
    if (!ar_backend_built(all[i])) continue;
    if (device == gpu) snprintf(o->backends[o->nbackends++], AR_NAMELEN, "%s", all[i]->name);
  }
}

void ar_run_setup_env(struct ar_env *env, const struct ar_opts *o) {
  memset(env, 0, sizeof *env);
  env->comm = MPI_COMM_WORLD;
  env->opts = o;
  env->device = -1;
  MPI_Comm_rank(env->comm, &env->rank);
  MPI_Comm_size(env->comm, &env->nranks);
  MPI_Comm_split_type(env->comm, MPI_COMM_TYPE_SHARED, env->rank, MPI_INFO_NULL, &env->node_comm);
  MPI_Comm_rank(env->node_comm, &env->local_rank);
  MPI_Comm_size(env->node_comm, &env->local_nranks);
  int leader = env->local_rank == 0;
  MPI_Allreduce(&leader, &env->nnodes, 1, MPI_INT, MPI_SUM, env->comm);
}

/* This process's CPU affinity as a list ("0-15,32"), "?" when unreadable: where an unbound rank runs, for
 * the run record (doctor --results checks it against the GPU's NUMA node). */
static void affinity_list(char *buf, size_t len) {
  cpu_set_t cs;
  size_t k = 0;
  snprintf(buf, len, "?");
  if (sched_getaffinity(0, sizeof cs, &cs)) return;
  for (int i = 0; i < CPU_SETSIZE && k < len; i++) {
    if (!CPU_ISSET(i, &cs)) continue;
    int j = i;
    while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, &cs)) j++;
    k += (size_t)snprintf(buf + k, len - k, j > i ? "%s%d-%d" : "%s%d", k ? "," : "", i, j);
    i = j;
  }
}

int ar_run_setup_topo(struct ar_env *env, json_t **bindings) {
  char msg[AR_ERRLEN] = "", desc[512] = "";
  const struct ar_opts *o = env->opts;
  int rc = ar_topo_load(&env->topo, *o->xml ? o->xml : NULL, msg, sizeof msg);
  /* A bad --xml is a usage error on every rank, even when only some ranks fail to read it. */
  if (ar_agree_print(env->comm, *o->xml ? rc : 0, msg)) {
    if (env->topo) ar_topo_destroy(env->topo);
    env->topo = NULL;
    return -AR_EINVAL;
  }
  if (rc) {
    if (env->rank == 0) fprintf(stderr, "arbench: warning: topology discovery failed: %s\n", msg);
    env->topo = NULL;
  } else if (env->device >= 0) {
    ar_topo_map_cuda(env->topo); /* fills each GPU's CUDA index for the run record */
  }
  char cpus[256];
  affinity_list(cpus, sizeof cpus);
  if (!o->bind) snprintf(desc, sizeof desc, "rank %d: not bound (--no-bind) -> PUs %s (as launched)", env->rank, cpus);
  else if (!env->topo) snprintf(desc, sizeof desc, "rank %d: not bound (no topology)", env->rank);
  else if (*o->xml) snprintf(desc, sizeof desc, "rank %d: not bound (topology from --xml)", env->rank);
  else {
    int gpu = env->device >= 0 ? ar_topo_gpu_of_cuda(env->topo, env->device) : -1;
    if (ar_topo_bind(env->topo, gpu, env->local_rank, env->local_nranks, desc, sizeof desc) && !*desc)
      snprintf(desc, sizeof desc, "rank %d: binding failed", env->rank);
  }
  char *all = env->rank == 0 ? calloc((size_t)env->nranks, sizeof desc) : NULL;
  MPI_Gather(desc, sizeof desc, MPI_CHAR, all, sizeof desc, MPI_CHAR, 0, env->comm);
  if (env->rank == 0) {
    *bindings = json_array();
    for (int r = 0; r < env->nranks; r++) json_array_append_new(*bindings, json_string(all + r * sizeof desc));
    free(all);
  }
  return 0;
}

/* Bottleneck link over the GPUs the ranks use (GB/s), for efficiency = busbw / link. */
static double gpu_link_gbs(const struct ar_env *env) {
  int mine = env->topo && env->device >= 0 ? ar_topo_gpu_of_cuda(env->topo, env->device) : -1;
  int *all = malloc(sizeof(int) * (size_t)env->nranks), n = 0;
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, env->comm);
  int ok = env->nnodes == 1;
  for (int r = 0; r < env->nranks && ok; r++) {
    ok = all[r] >= 0;
    int dup = 0;
    for (int k = 0; k < n; k++) dup |= all[k] == all[r];
    if (ok && !dup) all[n++] = all[r];
  }
  double gbs = ok && n > 1 ? ar_topo_bottleneck_gbs(env->topo, all, n) : 0;
  free(all);
  return gbs;
}

void ar_make_run_id(char *buf, size_t len, MPI_Comm comm) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long h = 0xcbf29ce484222325ull ^ (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
  for (const char *p = host; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  h ^= (unsigned long long)ts.tv_sec;
  MPI_Bcast(&h, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  snprintf(buf, len, "%016llx", h);
}

/* --per-node: what one node's run adds (NULL for a plain run): the tag of its records, the run record's
 * "per_node", and whether its table is printed (the first node's only; every node prints its header line). */
struct node_part {
  json_t *tag, *job;
  int quiet;
};
/* Every named backend exists, takes its variant and is compiled in: 0, or -AR_EINVAL with one line in msg. */
static int check_named(const struct ar_opts *o, const struct ar_env *env, char *msg, size_t len) {
  for (int i = 0; i < o->nbackends; i++) {
    const struct ar_backend *be;
    const char *variant;
    if (ar_backend_resolve(o->backends[i], &be, &variant, msg, len) ||
        (be->check_variant && be->check_variant(variant, msg, len)))
      return -AR_EINVAL;
    if (!ar_backend_built(be)) { /* a usage error, as an unknown name: this binary can never run it */
      char why[AR_ERRLEN] = "";
      be->available(env, why, sizeof why);
      snprintf(msg, len, "backend '%s': %s (arbench list shows this build's)", be->name, why);
      return -AR_EINVAL;
    }
  }
  return 0;
}

/* The process that speaks for the run before MPI starts: not a rank arbench relaunched itself into, and rank 0
 * (or no rank) of a launcher that started arbench directly. */
static int first_process(void) {
  if (getenv("ARBENCH_LAUNCHED")) return 0;
  static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
    if (getenv(ranks[i])) return !strcmp(getenv(ranks[i]), "0");
  return 1;
}

static void env_warning(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "arbench: %s\n", line);
}

/* The run on a set-up environment: every start-up step after the communicators, the engine over every
 * backend, the agreed counts. Each collective step is a watchdog phase (bounded by -T). note: the launch
 * note, said once the start-up checks passed (bad input is its one line alone). */
static int run_env(struct ar_env *env_, struct ar_opts *o, struct ar_watchdog *dog, const struct ar_stall *stall,
                   int argc, char **argv, const char *note, const struct node_part *np) {
  struct ar_env env = *env_;
  char msg[AR_ERRLEN] = "";
  ar_watchdog_phase(dog, "start-up: option check");
  ar_stall_at(stall, env.rank, AR_STALL_OPTIONS);
  if (check_same_options(&env)) return AR_EXIT_USAGE;
  char why[AR_ERRLEN];
  int mine = ar_gpu_count(why, sizeof why), gpus;
  MPI_Allreduce(&mine, &gpus, 1, MPI_INT, MPI_MIN, env.comm); /* every rank picks the same list */
  if (!o->nbackends) default_backends(o, gpus);
  ar_watchdog_phase(dog, "%s", "");
  int nrc = env.rank == 0 ? ar_nt_check(o, msg, sizeof msg) : 0; /* --format nccl-tests: its logs */
  if (ar_agree_print(env.comm, nrc, msg)) return AR_EXIT_USAGE;
  if (check_named(o, &env, msg, sizeof msg)) {
    if (env.rank == 0) fprintf(stderr, "arbench: %s\n", msg);
    return AR_EXIT_USAGE;
  }
  char warn[AR_ERRLEN];
  if (ar_opts_check_backends(o, warn, sizeof warn, msg, sizeof msg)) { /* -G on host backends only */
    if (env.rank == 0) fprintf(stderr, "arbench: %s\n", msg);
    return AR_EXIT_USAGE;
  }
  if (*warn && env.rank == 0) fprintf(stderr, "arbench: %s\n", warn);
  ar_watchdog_phase(dog, "start-up: device selection");
  int rc = ar_gpu_select(&env, msg, sizeof msg);
  if (ar_agree_print(env.comm, rc, msg)) return rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  struct ar_fault fault;
  rc = ar_fault_parse(&fault, getenv("ARBENCH_INJECT_FAULT"), getenv("ARBENCH_INJECT_DELAY"), env.nranks, msg,
                      sizeof msg);
  if (!rc) rc = ar_fault_hooks(&fault, getenv, env.nranks, msg, sizeof msg); /* test hooks: fault.c's table */
  if (ar_agree_print(env.comm, rc, msg)) return AR_EXIT_USAGE;
  env.fault = &fault;
  json_t *bindings = NULL;
  ar_watchdog_phase(dog, "start-up: topology and binding");
  ar_stall_at(stall, env.rank, AR_STALL_TOPOLOGY);
  if (ar_run_setup_topo(&env, &bindings)) return AR_EXIT_USAGE;
  ar_watchdog_phase(dog, "%s", "");
  json_error_t je;
  json_t *point = *o->point ? json_loads(o->point, 0, &je) : NULL;
  if (*o->point && !json_is_object(point)) {
    if (env.rank == 0) fprintf(stderr, "arbench: bad --point '%.200s' (expected a JSON object)\n", o->point);
    json_decref(point);
    json_decref(bindings);
    ar_topo_destroy(env.topo); /* LeakSanitizer found these early returns leaking the topology */
    return AR_EXIT_USAGE;
  }
  struct ar_writer writer = {0};
  ar_watchdog_phase(dog, "start-up: results file");
  rc = env.rank == 0 && *o->json ? ar_writer_open(&writer, o->json, msg, sizeof msg) : 0;
  if (ar_agree_print(env.comm, rc, msg)) {
    json_decref(point);
    json_decref(bindings);
    ar_topo_destroy(env.topo);
    return AR_EXIT_USAGE;
  }
  if (*note && env.rank == 0) fprintf(stderr, "arbench: %s\n", note); /* the input is good: now the note */
  char run_id[32];
  ar_watchdog_phase(dog, "start-up: run-id exchange");
  ar_stall_at(stall, env.rank, AR_STALL_RUNID);
  ar_make_run_id(run_id, sizeof run_id, env.comm);
  ar_watchdog_phase(dog, "%s", "");
  struct ar_report report;
  FILE *out = np && np->quiet && env.rank == 0 ? fopen("/dev/null", "w") : NULL; /* --per-node: one node's table */
  ar_report_init(&report, out ? out : stdout, o->quiet);
  ar_report_mode(&report, ar_buffers_name(o->buffers), ar_timing_name(o->timing), o->average);
  ar_report_columns(&report, o->placement & AR_PLACE_OUT, o->placement & AR_PLACE_IN, o->timing != AR_TIME_LOOP);
  struct ar_engine e = {.env = &env, .writer = &writer, .run_id = run_id, .point = point, .report = &report,
                        .fill_fail_rank = -1};
  e.dog = dog;
  e.tag = np ? np->tag : NULL;
  ar_watchdog_phase(dog, "start-up: link rates and run record");
  e.link_gbs = gpu_link_gbs(&env);
  e.fault = fault;
  e.fill_fail_rank = fault.fill_fail_rank; /* ARBENCH_INJECT_FILL_FAIL, parsed by ar_fault_hooks */
  e.fill_fail_bytes = fault.fill_fail_bytes;
  json_t *runrec = ar_run_record(&env, argc, argv, run_id, bindings);
  char kb[2048]; /* the record's known_bad (ar_run_record: the loaded NCCL and these GPUs): one line at start */
  if (env.rank == 0 && ar_knownbad_line(runrec, kb, sizeof kb)) fprintf(stderr, "arbench: warning: %s\n", kb);
  if (env.rank == 0 && !*o->point) /* NCCL_* names the loaded NCCL does not read (none loaded: the newest) */
    ar_ncclenv_warn_version(environ, ar_ncclenv_version_code(json_string_value(json_object_get(
                            json_object_get(runrec, "stack"), "nccl_loaded"))), env_warning, NULL);
  if (*o->as) json_object_set_new(runrec, "as_env", ar_runas_json(ar_runas_find(o->as)));
  e.as = o->as;
  struct ar_nt_run ntrun = {0};
  if (o->format == AR_FMT_NCCL_TESTS) { /* out of memory: no logs, and the run fails */
    if (!ar_nt_setup(&ntrun, &env, run_id, runrec)) ar_report_nccl_tests(&report, &ntrun);
    else report.failed++;
  }
  if (env.rank == 0 && np) {
    json_object_set(runrec, "per_node", np->job);
    fprintf(o->format == AR_FMT_NCCL_TESTS ? stderr : stdout, "# arbench %s: per node: %s, node %lld of %lld, %d ranks, run %s\n",
            AR_VERSION_STRING, json_string_value(json_object_get(np->tag, "host")),
            json_integer_value(json_object_get(np->job, "node")) + 1, json_integer_value(json_object_get(np->job, "nodes")),
            env.nranks, run_id);
    fflush(stdout);
  }
  if (env.rank == 0) {
    if (!o->quiet && !np) {
      fprintf(report.note, "# arbench %s: %d ranks on %d node%s, run %s\n", AR_VERSION_STRING, env.nranks, env.nnodes,
              env.nnodes > 1 ? "s" : "", run_id);
      for (size_t r = 0; bindings && r < json_array_size(bindings); r++)
        fprintf(report.note, "# binding: %s\n", json_string_value(json_array_get(bindings, r)));
      if (ar_gpu_standin()) fprintf(report.note, "%s\n", AR_GPU_STANDIN_NOTE);
    }
    ar_engine_emit(&e, "run", runrec);
  }
  ar_watchdog_phase(dog, "%s", "");
  env.dog = dog;
  int status = AR_EXIT_OK;
  for (int i = 0; i < o->nbackends && !ar_engine_stopped(&e); i++) /* the run record failed: not one */
    if (ar_engine_backend(&e, o->backends[i]) == -AR_EINVAL) status = AR_EXIT_USAGE;
  env.dog = NULL;
  uint64_t wrong = e.wrong_total; /* already summed over ranks per result */
  if (env.rank == 0) {
    report.errors = e.failures;
    ar_report_footer(&report);
    if (wrong) fprintf(stderr, "arbench: %llu wrong elements: results are not correct\n", (unsigned long long)wrong);
  }
  int fails[2] = {e.failures + report.failed, report.measured}; /* rank 0's counts */
  ar_watchdog_phase(dog, "teardown: result counts from rank 0");
  ar_stall_at(stall, env.rank, AR_STALL_BROADCAST);
  MPI_Bcast(fails, 2, MPI_INT, 0, env.comm);
  ar_watchdog_phase(dog, "%s", "");
  if (status == AR_EXIT_OK && (wrong || fails[0])) status = AR_EXIT_FAIL;
  ar_nt_free(&ntrun);
  if (status == AR_EXIT_OK && !fails[1]) status = AR_EXIT_NOTHING; /* every configuration skipped */
  ar_writer_close(&writer);
  if (out) fclose(out);
  json_decref(bindings);
  json_decref(point);
  if (env.topo) ar_topo_destroy(env.topo);
  return status;
}

extern char **environ;

/* --per-node: the options agreed over the whole job, then every node's own run on its own ranks, at once;
 * the job waits for its slowest node (bounded, pernode.h) and ends with the worst node's status. */
static int run_per_node(struct ar_env *world, struct ar_opts *o, struct ar_watchdog *dog, const struct ar_stall *stall,
                        int argc, char **argv, const char *note) {
  ar_watchdog_phase(dog, "start-up: option check over the job");
  if (check_same_options(world)) return AR_EXIT_USAGE;
  ar_watchdog_phase(dog, "start-up: the nodes' job id");
  struct node_part np = {ar_pernode_tag(environ), ar_pernode_job(world), world->rank != 0};
  struct ar_env node;
  ar_pernode_split(world, &node);
  ar_watchdog_phase(dog, "%s", "");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = run_env(&node, o, dog, stall, argc, argv, note, &np);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fflush(stdout);
  status = ar_pernode_finish(world, dog, status, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
  ar_pernode_free(&node);
  json_decref(np.tag);
  json_decref(np.job);
  return status;
}

/* Communicators and the node's peer table (who stopped, who reports), then the run. A barrier with the
 * table still open ends the run, and the watchdog goes on naming stopped peers from a copy (kept, freed by
 * the caller after MPI_Finalize). */
static int run(struct ar_opts *o, struct ar_watchdog *dog, const struct ar_stall *stall, struct ar_peers *kept,
               int argc, char **argv, const char *note) {
  struct ar_env env;
  struct ar_peers peers;
  ar_watchdog_phase(dog, "start-up: communicators and peer table");
  ar_run_setup_env(&env, o);
  ar_peers_open(&peers, env.node_comm, env.rank);
  ar_watchdog_mpi(dog, 1, env.rank, &peers);
  int status = o->per_node ? run_per_node(&env, o, dog, stall, argc, argv, note)
                           : run_env(&env, o, dog, stall, argc, argv, note, NULL);
  ar_watchdog_phase(dog, "teardown: barrier");
  MPI_Barrier(env.comm);
  ar_peers_copy(&peers, kept);
  ar_watchdog_mpi(dog, 1, env.rank, kept); /* before the shared table goes */
  ar_watchdog_phase(dog, "teardown: peer table and communicators");
  ar_peers_close(&peers);
  MPI_Comm_free(&env.node_comm);
  ar_watchdog_phase(dog, "%s", "");
  return status;
}


/* What a relaunch of np ranks would meet on every rank, checked here first, without MPI: the named backends
 * and their variants, options the chosen backends cannot use, the ranks' host memory for the largest size
 * (unless --no-mem-check), --point, --xml, -J. 0, or -AR_EINVAL with one line. */
static int precheck(const struct ar_opts *o, int np, char *msg, size_t len) {
  struct ar_env env = {.opts = o, .device = -1};
  char warn[AR_ERRLEN], why[AR_ERRLEN];
  struct ar_opts *c = malloc(sizeof *c); /* with the default backends this node's GPUs give */
  if (!c) return snprintf(msg, len, "out of memory"), -AR_ERUNTIME;
  *c = *o;
  if (!c->nbackends) default_backends(c, ar_gpu_count(why, sizeof why));
  int bad = check_named(c, &env, msg, len) || ar_opts_check_backends(c, warn, sizeof warn, msg, len) ||
            ar_nt_check(c, msg, len) || /* --format nccl-tests: one configuration per log */
            (!o->no_mem_check && ar_mem_check(c, np, "/proc/meminfo", msg, len));
  free(c);
  if (bad) return -AR_EINVAL;
  json_t *point = *o->point ? json_loads(o->point, 0, NULL) : NULL;
  bad = *o->point && !json_is_object(point);
  json_decref(point);
  if (bad) {
    snprintf(msg, len, "bad --point '%.200s' (expected a JSON object)", o->point);
    return -AR_EINVAL;
  }
  struct ar_topo *t = NULL;
  if (*o->xml && ar_topo_load(&t, o->xml, msg, len)) return -AR_EINVAL;
  if (t) ar_topo_destroy(t);
  struct ar_writer w;
  if (*o->json && ar_writer_open(&w, o->json, msg, len)) return -AR_EINVAL;
  if (*o->json) ar_writer_close(&w);
  return 0;
}

/* Started outside an MPI launcher (bench/run/launch.c decides): exec mpirun with one rank per GPU (or --np N),
 * printing the command, once the input is checked; on a CPU-only node the note on how to run N ranks goes
 * to note (the run says it once its own checks passed). Returns -1 to go on here as this process, else the
 * exit status (bad input, or mpirun could not be started). */
static int relaunch(const struct ar_opts *o, int argc, char **argv, char *note, size_t nlen) {
  struct ar_launch l;
  char msg[AR_ERRLEN];
  ar_relaunch_plan(o->np, o->no_launch, &l);
  snprintf(note, nlen, "%s", l.note);
  if (l.action != AR_LAUNCH_RELAUNCH) return -1;
  if (precheck(o, l.np, msg, sizeof msg)) {
    fprintf(stderr, "arbench: %s\n", msg);
    return AR_EXIT_USAGE;
  }
  return ar_relaunch_exec(&l, o->np > 0, argc, argv);
}

int ar_cmd_run(int argc, char **argv) {
  struct ar_opts *o = malloc(sizeof *o);
  if (!o) return AR_EXIT_FAIL;
  ar_opts_defaults(o);
  char err[AR_ERRLEN] = "";
  int prc = ar_opts_parse(o, argc, argv, err, sizeof err);
  if (prc == 1) {
    ar_opts_usage(stdout);
    free(o);
    return AR_EXIT_OK;
  }
  if (prc == 0 && *o->as) /* still one thread: before relaunch, MPI_Init, the watchdog and CUDA */
    prc = ar_runas_apply(ar_runas_find(o->as), err, sizeof err);
  /* NCCL_* names of the environment NCCL will read (after --as set its own): a near miss of a real name is
   * bad input, others one warning each, said once; names the loaded NCCL does not read are said once it is
   * known (run_env). A sweep's point (--point) was checked by the sweep. */
  if (prc == 0 && !*o->point)
    prc = ar_ncclenv_check_env(environ, -1, o->allow_unknown_env, first_process() ? env_warning : NULL, NULL, err,
                               sizeof err);
  char note[512] = "";
  if (prc == 0) {
    int lrc = relaunch(o, argc, argv, note, sizeof note);
    if (lrc >= 0) {
      free(o);
      return lrc;
    }
  }
  if (ar_orphan_guard(environ)) { /* mpirun was killed while this rank started */
    free(o);
    return AR_EXIT_FAIL;
  }
  struct ar_stall stall;
  char serr[AR_ERRLEN] = "";
  if (!ar_stall_parse(&stall, getenv("ARBENCH_INJECT_STALL"), serr, sizeof serr) && stall.where == AR_STALL_PROBE)
    snprintf(serr, sizeof serr, "bad ARBENCH_INJECT_STALL point 'probe' for run (it is arbench links' only)");
  if (*serr && !prc) {
    prc = -AR_EINVAL;
    snprintf(err, sizeof err, "%s", serr);
  }
  /* The watchdog watches from before MPI_Init to after MPI_Finalize: a rank that never arrives (or
   * stops in a collective of start-up or teardown) ends the job within -T, naming the rank and phase. */
  struct ar_watchdog dog;
  ar_watchdog_start(&dog, o->timeout, -1, NULL);
  ar_watchdog_phase(&dog, "start-up: MPI_Init");
  int world = -1;
  if (getenv("OMPI_COMM_WORLD_RANK")) world = atoi(getenv("OMPI_COMM_WORLD_RANK"));
  ar_stall_at(&stall, world < 0 ? 0 : world, AR_STALL_INIT);
  MPI_Init(&argc, &argv);
  ar_mpi_errors_install(&dog); /* before any communicator is made from the world's: they inherit it */
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  ar_watchdog_mpi(&dog, 1, world, NULL);
  ar_watchdog_phase(&dog, "start-up: option agreement");
  int status;
  struct ar_peers kept = {.win = MPI_WIN_NULL};
  if (ar_agree_print(MPI_COMM_WORLD, prc, err)) status = AR_EXIT_USAGE;
  else status = run(o, &dog, &stall, &kept, argc, argv, note);
  fflush(stdout);
  ar_watchdog_mpi(&dog, 0, world, kept.slots ? &kept : NULL);
  ar_watchdog_phase(&dog, "teardown: MPI_Finalize");
  ar_stall_at(&stall, world, AR_STALL_FINALIZE);
  MPI_Finalize();
  ar_watchdog_stop(&dog);
  ar_peers_free(&kept);
  free(o);
  return status;
}
