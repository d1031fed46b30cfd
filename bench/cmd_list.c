/* cmd_list.c — `arbench list`: every backend, whether this build has it and whether it can run here (and why not).
 * Runs as a single MPI process (no mpirun needed); needs no GPU. */
#include "ar_config.h"
#include "backend.h"
#include "commands.h"
#include "device/gpu.h"
#include "mpierr.h"
#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_LIST_WIDTH 80  /* every line of `arbench list` fits 80 columns */
#define AR_LIST_STATUS 30 /* the widest status column; longer statuses wrap */

/* The next line of at most width characters of s, broken after a word (a word longer than width is cut) into
 * buf; returns where the rest starts (blanks skipped), "" at the end. */
static const char *wrap_next(const char *s, int width, char *buf, size_t len) {
  size_t n = strlen(s), cut = n;
  if ((int)n > width) {
    cut = (size_t)width;
    while (cut > 0 && s[cut] != ' ') cut--;
    if (!cut) cut = (size_t)width;
  }
  if (cut >= len) cut = len - 1;
  memcpy(buf, s, cut);
  buf[cut] = 0;
  s += cut;
  while (*s == ' ') s++;
  return s;
}

/* Prints text wrapped at AR_LIST_WIDTH (wide: as one line), its continuation lines indented by two blanks. */
static void print_wrapped(const char *text, int wide) {
  char line[2 * AR_ERRLEN];
  for (int first = 1; first || *text; first = 0) {
    text = wrap_next(text, wide ? (int)sizeof line - 1 : AR_LIST_WIDTH - (first ? 0 : 2), line, sizeof line);
    printf("%s%s\n", first ? "" : "  ", line);
  }
}

int ar_cmd_list(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    printf("usage: arbench list [--wide]\n  backends compiled into this binary and whether each can run here (80 "
           "columns)\n  --wide  one line per backend and per note, however long (for scripts)\n");
    return AR_EXIT_OK;
  }
  int wide = argc >= 2 && !strcmp(argv[1], "--wide");
  if (argc > 1 + wide) {
    fprintf(stderr, "arbench: list takes only --wide (got '%s')\n", argv[1 + wide]);
    return AR_EXIT_USAGE;
  }
  MPI_Init(&argc, &argv);
  ar_mpi_errors_install(NULL); /* an MPI error: arbench's one line (mpierr.h) */
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
    /* 80 columns: the status column at most AR_LIST_STATUS wide, what gets the rest; both wrap at words, the
     * continuation lines blank up to their column */
    if (!wide && sw > AR_LIST_STATUS) sw = AR_LIST_STATUS;
    int ww = wide ? AR_ERRLEN : AR_LIST_WIDTH - (nw + 1 + 7 + sw + 1);
    printf("%-*s %-6s %-*s %s\n", nw, "backend", "where", sw, "status", "what");
    for (int i = 0; status && i < n; i++) {
      const char *s = status[i], *w = all[i]->summary;
      for (int first = 1; first || *s || *w; first = 0) {
        char sl[AR_ERRLEN], wl[AR_ERRLEN];
        s = wrap_next(s, sw, sl, sizeof sl);
        w = wrap_next(w, ww, wl, sizeof wl);
        char line[3 * AR_ERRLEN];
        snprintf(line, sizeof line, "%-*s %-6s %-*s %s", nw, first ? all[i]->name : "",
                 !first ? "" : all[i]->flags & AR_BE_DEVICE ? "gpu" : "host", sw, sl, wl);
        size_t k = strlen(line);
        while (k && line[k - 1] == ' ') line[--k] = 0;
        printf("%s\n", line);
      }
    }
    free(status);
    json_t *st = ar_stack_describe();
    const char *archs = json_string_value(json_object_get(st, "archs"));
    char text[2 * AR_ERRLEN];
    printf("\n");
    snprintf(text, sizeof text, "stack: %s; GPU kernels (fill/check, custom allreduce): %s",
           json_string_value(json_object_get(st, "name")),
           ar_gpu_standin() && json_is_true(json_object_get(st, "kernels"))
               ? "built by the host C++ compiler, run on CPU threads (the CPU stand-in)"
           : ar_gpu_standin() && json_is_object(json_object_get(st, "custom_kernels"))
               ? "fill/check not built (-Dcuda-emu-nvcc=false: a stack without nvcc; data staged through the host)"
           : ar_gpu_standin() ? "not built (-Dcuda-emu-nvcc=false: a stack without nvcc; data staged through the host)"
           : json_is_true(json_object_get(st, "kernels")) ? archs
           : json_is_object(json_object_get(st, "custom_kernels"))
               ? "fill/check not built: no nvcc under cuda-home (data staged through the host)"
           : json_object_get(st, "kernels") ? "not built: no nvcc under cuda-home (data staged through the host)"
                                            : "not built: no CUDA");
    print_wrapped(text, wide);
    json_t *ck = json_object_get(st, "custom_kernels");
    if (json_is_object(ck) && !json_is_true(json_object_get(st, "kernels")))
      snprintf(text, sizeof text, "custom allreduce kernels: %s-built for %s, %s",
               json_string_value(json_object_get(ck, "compiler")), json_string_value(json_object_get(ck, "archs")),
               json_string_value(json_object_get(ck, "load")));
    if (json_is_object(ck) && !json_is_true(json_object_get(st, "kernels"))) print_wrapped(text, wide);
    json_decref(st);
    snprintf(text, sizeof text, "GPUs visible: %d%s%.400s%s", gpus, !gpus ? " (" : "", !gpus ? why : "", !gpus ? ")" : "");
    if (gpus && ar_gpu_standin())
      snprintf(text, sizeof text, "GPUs visible: %d (CPU stand-ins of CUDA devices, -Dcuda-emu: ARBENCH_STANDIN_GPUS)", gpus);
    print_wrapped(text, wide);
  }
  MPI_Comm_free(&env.node_comm);
  MPI_Finalize();
  return AR_EXIT_OK;
}
