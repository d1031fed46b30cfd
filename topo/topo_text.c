/* topo_text.c — `arbench topo` as text: a GPU x GPU path matrix with legend in nvidia-smi's terms,
 * the narrowest link per path, a per-GPU table, and the CPU/NUMA layout. */
#include "topo_int.h"
#include <stdio.h>
#include <string.h>

static void print_numa_affinity(FILE *f, const struct ar_topo *t, int i) {
  hwloc_obj_t cpu = ar_topo_cpu_side(t->gpu_obj[i]);
  char ns[64] = "N/A";
  if (t->gpus[i].numa >= 0) snprintf(ns, sizeof ns, "%d", t->gpus[i].numa);
  else if (cpu && cpu->nodeset && !hwloc_bitmap_iszero(cpu->nodeset))
    hwloc_bitmap_list_snprintf(ns, sizeof ns, cpu->nodeset);
  fprintf(f, "%s", ns);
}

static void print_header(FILE *f, const struct ar_topo *t, bool pad_last) {
  char name[16];
  fprintf(f, "%-8s", "");
  for (int j = 0; j < t->ngpus; j++) {
    snprintf(name, sizeof name, "GPU%d", j);
    fprintf(f, j + 1 < t->ngpus || pad_last ? "%-7s" : "%s", name);
  }
}

static void print_matrix(FILE *f, const struct ar_topo *t) {
  char name[16];
  print_header(f, t, true);
  fprintf(f, "%-20s%s\n", "CPU Affinity", "NUMA Affinity");
  for (int i = 0; i < t->ngpus; i++) {
    snprintf(name, sizeof name, "GPU%d", i);
    fprintf(f, "%-8s", name);
    for (int j = 0; j < t->ngpus; j++) fprintf(f, "%-7s", ar_path_name(ar_topo_path(t, i, j, NULL, NULL)));
    fprintf(f, "%-20s", t->gpus[i].cpuset);
    print_numa_affinity(f, t, i);
    fprintf(f, "\n");
  }
  fprintf(f, "\nLegend:\n"
             "  X    = the GPU itself\n"
             "  SYS  = through PCIe and the link between NUMA nodes (socket interconnect: UPI, xGMI, ...)\n"
             "  NODE = through PCIe and between PCIe host bridges of one NUMA node\n"
             "  PHB  = through PCIe and a PCIe host bridge (the CPU's root complex)\n"
             "  PXB  = through several PCIe bridges (switch levels), no host bridge\n"
             "  PIX  = through at most one PCIe bridge (a single switch)\n");
}

static void print_same_package(FILE *f, const struct ar_topo *t) {
  int n = 0;
  for (int i = 0; i < t->ngpus; i++)
    for (int j = i + 1; j < t->ngpus; j++) {
      bool same = false;
      if (ar_topo_path(t, i, j, NULL, &same) != AR_PATH_SYS || !same) continue;
      fprintf(f, "%s GPU%d-GPU%d", n++ ? "," : "\nSYS within one package (SNC/NPS NUMA split, no socket link):", i, j);
    }
  if (n) fprintf(f, "\n");
}

static void print_links(FILE *f, const struct ar_topo *t) {
  char name[16];
  fprintf(f, "\nNarrowest PCIe link on each path (GB/s; current link speed as hwloc reads it):\n");
  print_header(f, t, false);
  fprintf(f, "\n");
  for (int i = 0; i < t->ngpus; i++) {
    snprintf(name, sizeof name, "GPU%d", i);
    fprintf(f, "%-8s", name);
    for (int j = 0; j < t->ngpus; j++) {
      double bw = 0;
      char cell[16] = "?";
      ar_topo_path(t, i, j, &bw, NULL);
      if (bw > 0) snprintf(cell, sizeof cell, "%.2f", bw);
      fprintf(f, j + 1 < t->ngpus ? "%-7s" : "%s", cell);
    }
    fprintf(f, "\n");
  }
}

static const char *int_or_dash(char *buf, size_t n, int v) {
  if (v >= 0) snprintf(buf, n, "%d", v);
  else snprintf(buf, n, "-");
  return buf;
}

static void print_gpu_table(FILE *f, const struct ar_topo *t) {
  fprintf(f, "\n%-7s%-15s%-15s%-7s%-6s%-9s%-11s%-6s%s\n", "GPU", "bus id", "vendor:device", "class", "NUMA",
          "package", "link GB/s", "CUDA", "local PUs");
  for (int i = 0; i < t->ngpus; i++) {
    const struct ar_gpu_info *g = &t->gpus[i];
    char name[16], id[16], cls[8], numa[16], pkg[16], link[16], cuda[16];
    snprintf(name, sizeof name, "GPU%d", i);
    snprintf(id, sizeof id, "%04x:%04x", g->vendor, g->device);
    snprintf(cls, sizeof cls, "%04x", g->pci_class);
    int_or_dash(numa, sizeof numa, g->numa);
    int_or_dash(pkg, sizeof pkg, g->package);
    int_or_dash(cuda, sizeof cuda, g->cuda);
    if (g->link_gbs > 0) snprintf(link, sizeof link, "%.2f", g->link_gbs);
    else snprintf(link, sizeof link, "?");
    fprintf(f, "%-7s%-15s%-15s%-7s%-6s%-9s%-11s%-6s%s\n", name, g->busid, id, cls, numa, pkg, link, cuda,
            g->cpuset);
  }
  double bn = ar_topo_bottleneck_gbs(t, NULL, t->ngpus), gl = ar_topo_gpu_link_min_gbs(t);
  fprintf(f, "\nBottleneck: %.2f GB/s (narrowest link on any GPU-GPU path); narrowest GPU link %.2f GB/s\n", bn, gl);
  if (bn > 0 && gl > 0 && bn < gl - 0.005)
    fprintf(f, "note: a link on a GPU path is narrower (%.2f GB/s) than the GPUs' own links (%.2f GB/s): a slower "
               "uplink, or a port reporting a lower current speed (idle link trained down, a known root-port "
               "quirk); both are reported\n", bn, gl);
}

static void print_layout(FILE *f, const struct ar_topo *t) {
  fprintf(f, "\nCPU/NUMA layout:\n");
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, NULL); n;
       n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, n)) {
    char cpus[512] = "", pkg[16] = "-";
    int p = ar_topo_package_of(t->h, ar_topo_cpu_side(n->parent));
    if (p >= 0) snprintf(pkg, sizeof pkg, "%d", p);
    if (n->cpuset) hwloc_bitmap_list_snprintf(cpus, sizeof cpus, n->cpuset);
    int cores = n->cpuset ? hwloc_get_nbobjs_inside_cpuset_by_type(t->h, n->cpuset, HWLOC_OBJ_CORE) : 0;
    char mem[32] = "memory unknown";
    if (n->attr->numanode.local_memory)
      snprintf(mem, sizeof mem, "%.1f GiB", (double)n->attr->numanode.local_memory / (1024.0 * 1024 * 1024));
    fprintf(f, "  NUMA %u: package %s, %d cores, PUs %s, %s\n", n->os_index, pkg, cores, *cpus ? cpus : "none", mem);
  }
}

void ar_topo_print_text(FILE *f, const struct ar_topo *t, const char *digest) {
  const char *model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->h), "DMIProductName");
  fprintf(f, "# topology: %s\n", strcmp(t->source, "live") ? t->source : "live (this machine, hwloc)");
  const char *backend = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->h), "Backend");
  if (backend && !strcmp(backend, "NCCL topology dump"))
    fprintf(f, "# an NCCL topology dump: its PCIe tree, NUMA affinity and link speeds; NCCL records no packages, "
               "SMT, memory or host bridges within a NUMA node (GPUs under one <cpu> read PHB, as NCCL has them); "
               "NVLink not shown\n");
  int np = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE), nn = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
  fprintf(f, "# machine: %s%s%d package%s, %d NUMA node%s, %d cores, %d PUs\n", model ? model : "", model ? ": " : "",
          np, np == 1 ? "" : "s", nn, nn == 1 ? "" : "s", hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_CORE),
          hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU));
  if (!t->ngpus) {
    fprintf(f, "no NVIDIA GPU found (looked for PCI vendor 0x10de with class 0x0300 VGA or 0x0302 3D controller)\n");
  } else {
    fprintf(f, "# %d NVIDIA GPU%s, numbered in PCI bus id order (domain:bus:device.function), not hwloc's order; "
               "CUDA numbers them so with CUDA_DEVICE_ORDER=PCI_BUS_ID\n\n", t->ngpus, t->ngpus > 1 ? "s" : "");
    print_matrix(f, t);
    print_same_package(f, t);
    print_links(f, t);
    print_gpu_table(f, t);
  }
  print_layout(f, t);
  fprintf(f, "\ndigest: %s\n", digest);
}
