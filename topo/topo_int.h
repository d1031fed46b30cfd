/* topo_int.h — what the files of topo/ share and nobody else sees: the loaded topology with its GPU
 * list, and the small hwloc helpers (object ancestry, PCI link speed, NUMA/package of an object). */
#ifndef AR_TOPO_INT_H
#define AR_TOPO_INT_H

#include "topo.h"
#include <hwloc.h>
#include <stdio.h>

struct ar_topo {
  hwloc_topology_t h;
  char source[1024];           /* "live" or the XML path */
  bool thissystem;             /* binding is meaningful */
  int ngpus;
  struct ar_gpu_info *gpus;    /* PCI bus id order */
  hwloc_obj_t *gpu_obj;        /* hwloc PCI object of each GPU */
};

/* NVIDIA GPU by PCI identity: vendor 0x10de and class VGA (0x0300) or 3D controller (0x0302). */
bool ar_topo_is_nvidia_gpu(unsigned vendor, unsigned pci_class);
/* PCI identity of a PCI device or PCI-to-PCI bridge; NULL for anything else (host bridges too). */
const struct hwloc_pcidev_attr_s *ar_topo_pci_attr(hwloc_obj_t o);
bool ar_topo_is_host_bridge(hwloc_obj_t o);
bool ar_topo_is_io(hwloc_obj_t o);
/* First non-I/O ancestor (the CPU-side object an I/O subtree hangs from). */
hwloc_obj_t ar_topo_cpu_side(hwloc_obj_t o);
/* NUMA node os_index when nodeset has exactly one node, else -1. Package os_index covering cpuset, else -1. */
int ar_topo_numa_of_nodeset(hwloc_const_nodeset_t ns);
int ar_topo_package_of(hwloc_topology_t h, hwloc_obj_t cpu_side);
/* Fill one GPU record from its PCI object. */
void ar_topo_fill_gpu(struct ar_topo *t, hwloc_obj_t o, struct ar_gpu_info *g);
/* Sort GPUs (records and objects together) by PCI domain:bus:dev.fn. */
void ar_topo_sort_gpus(struct ar_topo *t);
/* Parse "dddd:bb:dd.f" or "bb:dd.f" (hex, any case, any domain width); 0 or -AR_EINVAL. */
int ar_topo_parse_busid(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn);
/* NCCL topology dump (<system>): the n bytes of text read from path (once, bounded: bench/infile.c), as an hwloc
 * XML buffer (malloc'd, *len bytes without the NUL); -AR_EINVAL with one line naming the file and what is wrong.
 * topo_nccl.c */
int ar_topo_nccl_to_hwloc(const char *path, const char *text, size_t n, char **xml, size_t *len, char *err,
                          size_t errlen);
/* hwloc's GB/s of a PCIe link from NCCL's link_speed ("16.0 GT/s PCIe") and link_width; 0 unknown. */
double ar_topo_nccl_link_gbs(const char *speed, const char *width);
/* `arbench topo` renderers. */
void ar_topo_print_text(FILE *f, const struct ar_topo *t, const char *digest);
void ar_topo_print_dot(FILE *f, const struct ar_topo *t, const char *digest);

#endif
