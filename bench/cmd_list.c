/* list.c — `arbench list`: every backend, whether this build has it and whether it can run here (and why not).
 * Runs as a single MPI process (no mpirun needed); needs no GPU. */
#include "ar_config.h"
#include "backend.h"
#include "commands.h"
#include "device/gpu.h"
#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ar_cmd_list(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    printf("usage: arbench list\n  backends compiled into this binary and whether each can run here\n");
    return AR_EXIT_OK;
  }
  if (argc > 1) {
    fprintf(stderr, "arbench: list takes no arguments (got '%s')\n", argv[1]);
    return AR_EXIT_USAGE;
  }
  MPI_Init(&argc, &argv);
  struct ar_opts o;
  ar_opts_defaults(&o);
  struct ar_env env = {.comm = MPI_COMM_WORLD, .opts = &o, .device = -1};
  MPI_Comm_rank(env.comm, &env.rank);
  MPI_Comm_size(env.comm, &env.nranks);
  MPI_Comm_split_type(env.comm, MPI_COMM_TYPE_SHARED, env.rank, MPI_INFO_NULL, &env.node_comm);
  MPI_Comm_rank(env.node_comm, &env.local_rank);
  MPI_Comm_size(env.node_comm, &env.local_nranks);
  env.nnodes = 1;
  char why[AR_ERRLEN];
  ar_gpu_select(&env, why, sizeof why); /* the device each rank would get (by PCI bus id), as `run` does */
  int gpus = ar_gpu_count(why, sizeof why);
  if (env.rank == 0) {
    int n, nw = (int)strlen("backend"), sw = (int)strlen("status");
    const struct ar_backend *const *all = ar_backends(&n);
    char (*status)[AR_ERRLEN] = calloc((size_t)n + 1, sizeof *status);
    for (int i = 0; status && i < n; i++) { /* every status first: the columns fit the longest name and status */
      char reason[AR_ERRLEN] = "";
      int rc = all[i]->available ? all[i]->available(&env, reason, sizeof reason) : 0;
      if (rc && !ar_backend_built(all[i])) snprintf(status[i], sizeof status[i], "%s", reason); /* not compiled in: why */
      else if (rc) snprintf(status[i], sizeof status[i], "unavailable: %s", reason);
      else if ((all[i]->flags & AR_BE_DEVICE) && ar_gpu_standin()) /* -Dcuda-emu: run it by name */
        snprintf(status[i], sizeof status[i], "available (emulated: CPU stand-in%s)",
                 all[i]->family == AR_BE_FAM_NCCL ? "s: CUDA, NCCL" : " of CUDA");
      else snprintf(status[i], sizeof status[i], "available");
      nw = (int)strlen(all[i]->name) > nw ? (int)strlen(all[i]->name) : nw;
      sw = (int)strlen(status[i]) > sw ? (int)strlen(status[i]) : sw;
    }
    printf("%-*s %-6s %-*s %s\n", nw, "backend", "where", sw, "status", "what");
    for (int i = 0; status && i < n; i++)
      printf("%-*s %-6s %-*s %s\n", nw, all[i]->name, all[i]->flags & AR_BE_DEVICE ? "gpu" : "host", sw, status[i],
             all[i]->summary);
    free(status);
    json_t *st = ar_stack_describe();
    const char *archs = json_string_value(json_object_get(st, "archs"));
    printf("\nstack: %s; GPU kernels (fill/check, custom allreduce): %s\n",
           json_string_value(json_object_get(st, "name")),
           ar_gpu_standin() && json_is_true(json_object_get(st, "kernels"))
               ? "built by the host C++ compiler, run on CPU threads (the CPU stand-in)"
           : ar_gpu_standin() ? "not built (-Dcuda-emu-nvcc=false: a stack without nvcc; data staged through the host)"
           : json_is_true(json_object_get(st, "kernels")) ? archs
           : json_is_object(json_object_get(st, "custom_kernels"))
               ? "fill/check not built: no nvcc under cuda-home (data staged through the host)"
           : json_object_get(st, "kernels") ? "not built: no nvcc under cuda-home (data staged through the host)"
                                            : "not built: no CUDA");
    json_t *ck = json_object_get(st, "custom_kernels");
    if (json_is_object(ck) && !json_is_true(json_object_get(st, "kernels")))
      printf("custom allreduce kernels: %s-built for %s, %s\n", json_string_value(json_object_get(ck, "compiler")),
             json_string_value(json_object_get(ck, "archs")), json_string_value(json_object_get(ck, "load")));
    json_decref(st);
    printf("GPUs visible: %d", gpus);
    if (!gpus) printf(" (%s)", why);
    else if (ar_gpu_standin()) printf(" (CPU stand-ins of CUDA devices, -Dcuda-emu: ARBENCH_STANDIN_GPUS)");
    printf("\n");
  }
  MPI_Comm_free(&env.node_comm);
  MPI_Finalize();
  return AR_EXIT_OK;
}
