/* main.c — `arbench` entry point: dispatch to a subcommand.
 * Unknown subcommands are one-line errors with exit status 2. */
#include "ar.h"
#include "commands.h"
#include "aic/aic.h"
#include <stdio.h>
#include <string.h>

struct ar_command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
};

static const struct ar_command commands[] = {
  {"run", ar_cmd_run, "benchmark allreduce backends (launch under mpirun)"},
  {"list", ar_cmd_list, "backends compiled in and whether each can run here"},
  {"topo", ar_cmd_topo, "GPUs, PCIe paths and NUMA layout (hwloc; --xml FILE)"},
  {"sweep", ar_cmd_sweep, "run a matrix of configurations, resumable"},
  {"table", ar_cmd_table, "sizes x configurations from results files"},
  {"compare", ar_cmd_compare, "compare two results files (ratios with 95% intervals)"},
  {"tune", ar_cmd_tune, "best configuration per size range; NCCL tuner CSV, thresholds, env"},
  {"import", ar_cmd_import, "nccl-tests all_reduce_perf output or aiconfigurator's tables as results"},
  {"impact", ar_cmd_impact, "what the allreduce costs a model per token (--model config.json --tp N)"},
  {"export", ar_cmd_export, "results in aiconfigurator's layout (export aiconfigurator FILES -o DIR)"},
  {"model", ar_cmd_model, "predicted time per algorithm from the topology; --fit, --against"},
  {"links", ar_cmd_links, "every rank pair's link: bandwidth, latency, read/write, alone and loaded"},
  {"fleet", ar_cmd_fleet, "every box of a fleet against the others; names the box that is off"},
  {"doctor", ar_cmd_doctor, "why a box underperforms: P2P, ACS, IOMMU, link training, stack"},
  {"report", ar_cmd_report, "one self-contained HTML page: provenance, picks, charts, links, doctor"},
  {"version", ar_cmd_version, "versions of arbench, CUDA, NCCL, MPI, hwloc"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: arbench <command> [options]   (arbench <command> --help for its options)\n\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n  mpirun -np N arbench run --backend mpi -b 8 -e 1M -J results.jsonl\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return AR_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return AR_EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V"))
    return ar_cmd_version(argc - 1, argv + 1);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i].name))
      return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "arbench: unknown command '%s' (known: run, list, topo, sweep, table, compare, "
                  "tune, import, export, impact, model, links, fleet, doctor, report, version)\n", cmd);
  return AR_EXIT_USAGE;
}
