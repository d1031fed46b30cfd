/* topo_dot.c — `arbench topo --format dot`: the machine as a graphviz graph (packages, NUMA groups,
 * host bridges, PCIe bridges and devices, GPUs highlighted, edges labelled with link GB/s). */
#include "topo_int.h"
#include <stdio.h>
#include <string.h>

static const char *class_name(unsigned c) {
  switch (c >> 8) {
  case 0x01: return "storage";
  case 0x02: return c == 0x0207 ? "InfiniBand" : "network";
  case 0x03: return "display";
  case 0x04: return "multimedia";
  case 0x06: return "bridge";
  case 0x0c: return "serial bus";
  case 0x12: return "accelerator";
  default: return "device";
  }
}

static int gpu_index(const struct ar_topo *t, hwloc_obj_t o) {
  for (int i = 0; i < t->ngpus; i++)
    if (t->gpu_obj[i] == o) return i;
  return -1;
}

#define AR_VIRTIO_VENDOR 0x1af4 /* virtio (Red Hat): a VM's paravirtual disk, net, balloon, console, rng */

/* A virtio device: the hypervisor's plumbing, not a path an allreduce takes; left out, and counted. */
static bool virtio(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *a = o->type == HWLOC_OBJ_PCI_DEVICE ? ar_topo_pci_attr(o) : NULL;
  return a && a->vendor_id == AR_VIRTIO_VENDOR;
}

/* An I/O object worth drawing: a PCI device other than virtio, or a bridge above one. */
static bool io_worth(hwloc_obj_t o) {
  if (o->type == HWLOC_OBJ_OS_DEVICE || o->type == HWLOC_OBJ_MISC || virtio(o)) return false;
  if (o->type == HWLOC_OBJ_PCI_DEVICE) return true;
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
    if (io_worth(c)) return true;
  return false;
}

/* Objects drawn: the machine, packages, groups/dies, any CPU-side object holding I/O worth drawing, and those. */
static bool drawn(hwloc_obj_t o) {
  if (o->type == HWLOC_OBJ_OS_DEVICE || o->type == HWLOC_OBJ_MISC) return false;
  if (ar_topo_is_io(o)) return io_worth(o);
  bool io = false;
  for (hwloc_obj_t c = o->io_first_child; c && !io; c = c->next_sibling) io = io_worth(c);
  return !o->parent || o->type == HWLOC_OBJ_PACKAGE || o->type == HWLOC_OBJ_GROUP || o->type == HWLOC_OBJ_DIE || io;
}

static int count_virtio(hwloc_obj_t o) {
  int n = virtio(o);
  for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) n += count_virtio(c);
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) n += count_virtio(c);
  return n;
}

static void cpu_label(const struct ar_topo *t, hwloc_obj_t o, char *buf, size_t len) {
  char cpus[256] = "", nodes[64] = "";
  if (o->cpuset) hwloc_bitmap_list_snprintf(cpus, sizeof cpus, o->cpuset);
  if (o->nodeset) hwloc_bitmap_list_snprintf(nodes, sizeof nodes, o->nodeset);
  if (!o->parent) {
    const char *m = hwloc_obj_get_info_by_name(o, "DMIProductName");
    int np = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE), nn = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);
    snprintf(buf, len, "Machine%s%s\\n%d package%s, %d NUMA node%s", m ? "\\n" : "", m ? m : "", np, np == 1 ? "" : "s",
             nn, nn == 1 ? "" : "s");
  } else if (o->type == HWLOC_OBJ_PACKAGE) {
    snprintf(buf, len, "Package %u\\nNUMA %s\\nPUs %s", o->os_index, nodes, cpus);
  } else {
    snprintf(buf, len, "%s\\nNUMA %s\\nPUs %s", hwloc_obj_type_string(o->type), nodes, cpus);
  }
}

static void io_label(const struct ar_topo *t, hwloc_obj_t o, char *buf, size_t len, bool *gpu) {
  const struct hwloc_pcidev_attr_s *a = ar_topo_pci_attr(o);
  *gpu = false;
  if (ar_topo_is_host_bridge(o)) {
    snprintf(buf, len, "host bridge\\n%04x:[%02x-%02x]", o->attr->bridge.downstream.pci.domain,
             o->attr->bridge.downstream.pci.secondary_bus, o->attr->bridge.downstream.pci.subordinate_bus);
    return;
  }
  if (!a) {
    snprintf(buf, len, "%s", hwloc_obj_type_string(o->type));
    return;
  }
  int g = o->type == HWLOC_OBJ_PCI_DEVICE ? gpu_index(t, o) : -1;
  *gpu = g >= 0;
  char what[32];
  if (g >= 0) snprintf(what, sizeof what, "GPU%d", g);
  else snprintf(what, sizeof what, "%s", o->type == HWLOC_OBJ_BRIDGE ? "PCIe bridge" : class_name(a->class_id));
  snprintf(buf, len, "%s\\n%04x:%02x:%02x.%x\\n%04x:%04x", what, a->domain, a->bus, a->dev, a->func, a->vendor_id,
           a->device_id);
}

static void emit(FILE *f, const struct ar_topo *t, hwloc_obj_t o, hwloc_obj_t up) {
  bool show = drawn(o);
  if (show) {
    char label[512];
    bool gpu = false;
    if (ar_topo_is_io(o)) io_label(t, o, label, sizeof label, &gpu);
    else cpu_label(t, o, label, sizeof label);
    fprintf(f, "  o%llu [label=\"%s\"%s];\n", (unsigned long long)o->gp_index, label,
            gpu ? ", style=filled, fillcolor=\"#76b900\"" : ar_topo_is_io(o) ? "" : ", style=rounded");
    if (up) {
      const struct hwloc_pcidev_attr_s *a = ar_topo_pci_attr(o);
      fprintf(f, "  o%llu -- o%llu", (unsigned long long)up->gp_index, (unsigned long long)o->gp_index);
      if (a && a->linkspeed > 0) fprintf(f, " [label=\"%.2f GB/s\"]", a->linkspeed);
      else if (o->type == HWLOC_OBJ_PACKAGE) fprintf(f, " [label=\"SMP\", style=bold]");
      fprintf(f, ";\n");
    }
    up = o;
  }
  for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) emit(f, t, c, up);
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) emit(f, t, c, up);
}

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
}

void ar_topo_print_dot(FILE *f, const struct ar_topo *t, const char *digest) {
  fprintf(f, "graph arbench_topo {\n  label=\"arbench topo: ");
  put_escaped(f, t->source);
  int nv = count_virtio(hwloc_get_root_obj(t->h));
  fprintf(f, " (%d NVIDIA GPU%s; %s)", t->ngpus, t->ngpus == 1 ? "" : "s", digest);
  if (nv) fprintf(f, "\\n%d virtio device%s of the hypervisor not drawn", nv, nv == 1 ? "" : "s");
  fprintf(f, "\";\n"
             "  labelloc=t; rankdir=TB;\n"
             "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
             "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  emit(f, t, hwloc_get_root_obj(t->h), NULL);
  fprintf(f, "}\n");
}
