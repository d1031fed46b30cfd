/* topo.h — hwloc discovery of GPUs, PCIe paths, link speeds and NUMA layout, and rank binding.
 * Live topology (I/O objects kept) or an XML file; no CUDA needed. */
#ifndef AR_TOPO_H
#define AR_TOPO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Path classes as nvidia-smi topo -m and NCCL name them, best to worst. */
enum ar_path { AR_PATH_X = 0, AR_PATH_PIX, AR_PATH_PXB, AR_PATH_PHB, AR_PATH_NODE, AR_PATH_SYS };

struct ar_topo; /* opaque */

struct ar_gpu_info {
  char busid[32];        /* "0000:3b:00.0" */
  unsigned vendor, device, pci_class;
  int numa;              /* NUMA node os_index, -1 unknown */
  int package;           /* package os_index, -1 unknown */
  double link_gbs;       /* GPU's own PCIe link, GB/s (hwloc linkspeed), 0 unknown */
  int cuda;              /* CUDA device index, -1 when not mapped */
  char cpuset[256];      /* local cpuset as a list string "0-15,32-47" */
};

/* Load the live topology (xml == NULL or "") or an XML file (HWLOC_XMLFILE honoured when xml is NULL).
 * Missing/unreadable/non-hwloc XML: -AR_EINVAL with a one-line message. */
int ar_topo_load(struct ar_topo **t, const char *xml, char *err, size_t len);
void ar_topo_destroy(struct ar_topo *t);

int ar_topo_ngpus(const struct ar_topo *t);
const struct ar_gpu_info *ar_topo_gpu(const struct ar_topo *t, int i); /* PCI bus id order */
/* Path class between GPUs i and j, bottleneck link on that path (GB/s), same package or not. */
enum ar_path ar_topo_path(const struct ar_topo *t, int i, int j, double *bottleneck_gbs,
                          bool *same_package);
const char *ar_path_name(enum ar_path p);
int ar_topo_nnuma(const struct ar_topo *t);
/* Lowest bottleneck over all pairs of the given GPUs (GB/s), 0 when unknown. */
double ar_topo_bottleneck_gbs(const struct ar_topo *t, const int *gpus, int n);
/* Index in ar_topo_gpu order of CUDA device dev (mapped by PCI bus id), -1 if none. */
int ar_topo_gpu_of_cuda(const struct ar_topo *t, int dev);

/* Bind the calling process: to GPU gpu's local cores, or (gpu < 0) to a NUMA-balanced share of cores
 * for local_rank of local_n. desc receives e.g. "rank 1 -> cores 8-15 (NUMA 1, GPU 0000:3b:00.0)". */
int ar_topo_bind(struct ar_topo *t, int gpu, int local_rank, int local_n, char *desc, size_t len);
/* NUMA node of the calling process's current binding (for islands), -1 unknown. */
int ar_topo_numa_of_self(struct ar_topo *t);

/* Summary for run records: GPUs, NUMA nodes, matrix, digest. New reference. */
json_t *ar_topo_summary(const struct ar_topo *t);

/* `arbench topo` subcommand. */
int ar_cmd_topo(int argc, char **argv);

#endif
