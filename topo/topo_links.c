/* topo_links.c — the PCIe links above each GPU (GPU link, then each bridge's upstream link up to the
 * host bridge) with hwloc identities, and the CPU vendor: what the performance model shares links by. */
#include "topo_int.h"
#include <stdlib.h>
#include <string.h>

int ar_topo_gpu_links(const struct ar_topo *t, int i, struct ar_topo_link *out, int max) {
  if (!t || i < 0 || i >= t->ngpus || max <= 0) return 0;
  int n = 0;
  for (hwloc_obj_t o = t->gpu_obj[i]; o && ar_topo_is_io(o) && !ar_topo_is_host_bridge(o) && n < max;
       o = o->parent) {
    const struct hwloc_pcidev_attr_s *a = ar_topo_pci_attr(o);
    if (!a) continue;
    out[n].id = o->gp_index;
    out[n].gbs = a->linkspeed > 0 ? a->linkspeed : 0;
    n++;
  }
  return n;
}

unsigned long long ar_topo_gpu_hostbridge(const struct ar_topo *t, int i) {
  if (!t || i < 0 || i >= t->ngpus) return 0;
  for (hwloc_obj_t o = t->gpu_obj[i]; o; o = o->parent)
    if (ar_topo_is_host_bridge(o)) return o->gp_index;
  return 0;
}

const char *ar_topo_cpu_vendor(const struct ar_topo *t) {
  if (!t) return "";
  for (hwloc_obj_t p = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, NULL); p;
       p = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, p)) {
    const char *v = hwloc_obj_get_info_by_name(p, "CPUVendor");
    if (v) return v;
  }
  return "";
}

int ar_topo_cpu_model(const struct ar_topo *t) {
  if (!t) return 0;
  for (hwloc_obj_t p = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, NULL); p;
       p = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, p)) {
    const char *v = hwloc_obj_get_info_by_name(p, "CPUModelNumber");
    if (v) return atoi(v);
  }
  return 0;
}
