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
/* Lowest bottleneck over all pairs of the given GPUs (GB/s), 0 when unknown. gpus NULL: GPUs 0..n-1.
 * One GPU: its own link. The bottleneck of a path is its narrowest link as hwloc reads it (current speed). */
double ar_topo_bottleneck_gbs(const struct ar_topo *t, const int *gpus, int n);
/* Index in ar_topo_gpu order of CUDA device dev (mapped by PCI bus id), -1 if none. */
int ar_topo_gpu_of_cuda(const struct ar_topo *t, int dev);
/* Index in ar_topo_gpu order of the GPU at PCI bus id "dddd:bb:dd.f" (or "bb:dd.f"; hex, any case, any
 * domain width as CUDA/NVML print it), -1 if none. */
int ar_topo_gpu_of_busid(const struct ar_topo *t, const char *busid);
/* Live topology with CUDA: set each GPU's .cuda index by bus id (a CUDA device hwloc lists under
 * another PCI class is added). Returns the number mapped; 0 without CUDA or for XML topologies. */
int ar_topo_map_cuda(struct ar_topo *t);
/* Narrowest of the GPUs' own PCIe links (GB/s), 0 when unknown. A bridge on the path may report a lower
 * current speed than this (idle link training down); ar_topo_bottleneck_gbs includes those bridges. */
double ar_topo_gpu_link_min_gbs(const struct ar_topo *t);
/* One PCIe link above a GPU: id is the hwloc object below the link (gp_index), gbs its current speed
 * (0 unknown). Two GPUs share the links whose ids both chains hold; those are above their common
 * ancestor, off their path. */
struct ar_topo_link {
  unsigned long long id;
  double gbs;
};
/* Links from GPU i up to its host bridge, bottom up (the GPU's own link first); count (<= max). */
int ar_topo_gpu_links(const struct ar_topo *t, int i, struct ar_topo_link *out, int max);
/* hwloc identity of GPU i's host bridge (root complex), 0 when none. */
unsigned long long ar_topo_gpu_hostbridge(const struct ar_topo *t, int i);
/* hwloc's CPUVendor of the first package that has one ("GenuineIntel", "AuthenticAMD"), "" if none. */
const char *ar_topo_cpu_vendor(const struct ar_topo *t);
/* The first package's CPUModelNumber (hwloc's info, x86 model), 0 when the topology does not say. */
int ar_topo_cpu_model(const struct ar_topo *t);
/* "live" or the XML path the topology came from. */
const char *ar_topo_source(const struct ar_topo *t);

/* Bind the calling process: to GPU gpu's local cores, or (gpu < 0) to a NUMA-balanced share of cores
 * for local_rank of local_n (ranks in blocks over NUMA nodes, cores split evenly within a node). desc
 * receives e.g. "host1 local rank 1 of 2 -> PUs 8-15 (NUMA 1, local cores of GPU 0000:3b:00.0)".
 * -AR_EINVAL (not bound, desc says why) for a topology that is not this machine (XML) or a bad gpu;
 * -AR_ERUNTIME when the OS refuses. */
int ar_topo_bind(struct ar_topo *t, int gpu, int local_rank, int local_n, char *desc, size_t len);
/* What ar_topo_bind would bind to, without binding (any topology, XML too): PU list into cpus, NUMA
 * os_index into numa (-1 unknown). 0, or -AR_EINVAL for a bad gpu / local_rank / local_n. */
int ar_topo_bind_plan(const struct ar_topo *t, int gpu, int local_rank, int local_n, char *cpus, size_t len,
                      int *numa);
/* NUMA node of the calling process's current binding (for islands), -1 unknown. */
int ar_topo_numa_of_self(struct ar_topo *t);

/* Summary for run records and `topo --format json`: order, machine, packages, numa_nodes, cores, pus,
 * numa [{os_index, package, cpus}], gpus [{index, busid, pci_id, class, numa, package, link_gbs, cpus,
 * numa_affinity, cuda}], paths / path_gbs / same_package (GPU x GPU), bottleneck_gbs, gpu_link_min_gbs,
 * source, digest ("fnv1a64:<16 hex>" over the canonical summary without source and cuda: the same box
 * gives the same digest, live or from XML). New reference; json null for t NULL. */
json_t *ar_topo_summary(const struct ar_topo *t);

/* `arbench topo` subcommand. */
int ar_cmd_topo(int argc, char **argv);

#endif
