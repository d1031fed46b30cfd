/* doctor.c — `arbench doctor`: runs the check groups (PCI, NUMA of ranks, P2P, NCCL env, CUDA stack) over
 * the live system or a fixture root, and prints each finding with what to do; checks it skipped say why. */
#include "doctor/doctor.h"
#include "ar.h"
#include "commands.h"
#include "knownbad.h"
#include "mpierr.h"
#include <dirent.h>
#include <getopt.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

static void usage(FILE *f) {
  fprintf(f,
    "usage: arbench doctor [--sysfs-root DIR] [--format text|json] [--rank-cpus LISTS | --results FILE]\n"
    "                      [--nccl-version V]\n"
    "       mpirun -np N [binding options] arbench doctor\n"
    "Checks that explain bad allreduce numbers, each with what it found and what to do: PCIe link speed\n"
    "and width of every GPU and bridge on its path (current vs maximum), ACS P2P redirect bits on those\n"
    "bridges, the IOMMU mode, NUMA locality, persistence mode, P2P access per GPU pair (needs CUDA), NCCL\n"
    "environment that disables P2P or forces unsafe protocols, and the CUDA stack: driver vs this\n"
    "binary's runtime vs the toolkits under /usr/local/cuda*, GPU compute capability vs archs compiled, and\n"
    "known-bad stacks: the NCCL version and GPUs against arbench's table of reported failures (docs/doctor.md).\n"
    "  --sysfs-root DIR  read sys/, proc/, usr/local/ and run/ under DIR instead of / (fixture trees)\n"
    "  --format F        text (default) or json (one object with every finding)\n"
    "  --nccl-version V  the NCCL the known-bad check compares (2.26.2, 2.26.2+cuda12.8 or NCCL_VERSION_CODE\n"
    "                    22602) with this box's GPUs; default: with --results, the NCCL and GPUs its last run\n"
    "                    record names; else the NCCL this binary loads (none in a build without NCCL)\n"
    "NUMA locality of ranks: each rank's CPU affinity against the NUMA node of its GPU (sysfs numa_node, else\n"
    "its local_cpulist). Local rank i uses CUDA device i mod N (live, under mpirun), else GPU i mod N in\n"
    "PCI bus id order. Where ranks run:\n"
    "  under mpirun      every rank's sched_getaffinity, gathered at rank 0 (launch it as you launch runs)\n"
    "  --rank-cpus L     CPU lists of local ranks 0, 1, ... separated by ';' (\"0-15;16-31\"), e.g. a rankfile's\n"
    "  --results FILE    the bindings recorded in the last run record of an arbench results file\n"
    "Exit status: 0 nothing wrong found, 1 a warning or failure found, 2 bad usage.\n");
}

static void print_text(const struct ar_doc *d) {
  size_t i;
  json_t *it;
  const char *group = "";
  json_array_foreach(d->items, i, it) {
    const char *g = json_string_value(json_object_get(it, "group"));
    const char *todo = json_string_value(json_object_get(it, "todo"));
    if (strcmp(g, group)) printf("%s== %s\n", *group ? "\n" : "", g);
    group = g;
    printf("[%-4s] %s: %s\n", json_string_value(json_object_get(it, "level")),
           json_string_value(json_object_get(it, "check")), json_string_value(json_object_get(it, "found")));
    if (*todo) printf("       -> %s\n", todo);
  }
  printf("\n%d ok, %d info, %d warnings, %d failures, %d skipped\n", d->count[AR_D_OK], d->count[AR_D_INFO],
         d->count[AR_D_WARN], d->count[AR_D_FAIL], d->count[AR_D_SKIP]);
}

struct doc_opts {
  const char *root, *rank_cpus, *results, *nccl;
  int json;
};

static int parse(int argc, char **argv, struct doc_opts *o) {
  static const struct option lo[] = {{"sysfs-root", required_argument, 0, 'r'},
                                     {"format", required_argument, 0, 'f'}, {"rank-cpus", required_argument, 0, 'c'},
                                     {"results", required_argument, 0, 'R'}, {"help", no_argument, 0, 'h'},
                                     {"nccl-version", required_argument, 0, 'n'},
                                     {0, 0, 0, 0}};
  int c;
  struct stat st;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    if (c == 'r') {
      if (stat(optarg, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "arbench doctor: --sysfs-root %s: not a directory\n", optarg);
        return -AR_EINVAL;
      }
      o->root = optarg;
    } else if (c == 'f') {
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
        fprintf(stderr, "arbench doctor: --format %s: allowed text or json\n", optarg);
        return -AR_EINVAL;
      }
      o->json = !strcmp(optarg, "json");
    } else if (c == 'c') {
      o->rank_cpus = optarg;
    } else if (c == 'R') {
      o->results = optarg;
    } else if (c == 'n') {
      if (ar_knownbad_version(optarg) < 0) {
        fprintf(stderr, "arbench doctor: --nccl-version %s: allowed an NCCL version such as 2.26.2, 2.26.2+cuda12.8 "
                        "or its NCCL_VERSION_CODE 22602\n", optarg);
        return -AR_EINVAL;
      }
      o->nccl = optarg;
    } else if (c == 'h') {
      usage(stdout);
      return 1;
    } else {
      fprintf(stderr, "arbench doctor: %s '%s'\n", c == ':' ? "missing value for" : "unknown option",
              argv[optind - 1]);
      return -AR_EINVAL;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "arbench doctor: unexpected argument '%s'\n", argv[optind]);
    return -AR_EINVAL;
  }
  if (o->rank_cpus && o->results) {
    fprintf(stderr, "arbench doctor: --rank-cpus and --results: give one of them\n");
    return -AR_EINVAL;
  }
  return 0;
}

#define AR_DOC_MAXRANKS 1024

/* Where ranks run: --rank-cpus, --results, or gathered under mpirun. Count; -1 bad input (said). Sets
 * *quiet on ranks other than 0 of an mpirun launch, *none to why there are none. */
static int gather_ranks(const struct doc_opts *o, int live, struct ar_doc_rank *r, int *quiet, const char **none) {
  char err[512];
  int n = 0, me = 0;
  *none = "not under mpirun and no --rank-cpus/--results: run `mpirun -np N [your binding options] arbench doctor` "
          "to check where ranks run";
  if (o->rank_cpus) n = ar_doc_ranks_inject(o->rank_cpus, r, AR_DOC_MAXRANKS, err, sizeof err);
  else if (o->results) n = ar_doc_ranks_results(o->results, live, r, AR_DOC_MAXRANKS, err, sizeof err);
  else if (ar_doc_under_mpirun()) {
    n = ar_doc_ranks_mpi(r, AR_DOC_MAXRANKS, &me, live);
    *quiet = me != 0;
  }
  if (n < 0) fprintf(stderr, "arbench doctor: %s\n", err);
  return n;
}

static int doctor(const struct doc_opts *o) {
  const char *root = o->root ? o->root : "", *none;
  struct ar_doc d = {.root = root, .live = !*root, .items = json_array()};
  struct ar_doc_gpu g[64];
  struct ar_doc_rank *r = calloc(AR_DOC_MAXRANKS, sizeof *r);
  int quiet = 0, nr = r ? gather_ranks(o, d.live, r, &quiet, &none) : -1;
  if (nr < 0 || quiet) {
    free(r);
    json_decref(d.items);
    return nr < 0 ? AR_EXIT_USAGE : AR_EXIT_OK;
  }
  int n = ar_doc_gpus(&d, g, 64);
  ar_doctor_pci(&d, g, n);
  ar_doctor_ranks(&d, g, n, r, nr, none);
  free(r);
  ar_doctor_p2p(&d, n);
  ar_doctor_links_smoke(&d);
  ar_doctor_env(&d, environ);
  ar_doctor_stack(&d, g, n);
  char err[512];
  json_t *rec = o->results && !o->nccl ? ar_doc_last_run(o->results, err, sizeof err) : NULL; /* read above */
  ar_doctor_knownbad(&d, g, n, rec, o->nccl, o->nccl ? "--nccl-version" : NULL);
  json_decref(rec);
  if (o->json) {
    json_t *j = json_pack("{s:s,s:i,s:O}", "root", *root ? root : "/", "gpus", n, "findings", d.items);
    json_dumpf(j, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(j);
  } else
    print_text(&d);
  json_decref(d.items);
  return d.count[AR_D_WARN] || d.count[AR_D_FAIL] ? AR_EXIT_FAIL : AR_EXIT_OK;
}

int ar_cmd_doctor(int argc, char **argv) {
  struct doc_opts o = {0};
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  int mpi = !o.rank_cpus && !o.results && ar_doc_under_mpirun();
  if (mpi) MPI_Init(&argc, &argv);
  if (mpi) ar_mpi_errors_install(NULL); /* an MPI error: arbench's one line (mpierr.h) */
  rc = doctor(&o);
  fflush(stdout);
  if (mpi) MPI_Finalize();
  return rc;
}
