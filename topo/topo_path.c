/* topo_path.c — the PCIe path between two GPUs: class (PIX/PXB/PHB/NODE/SYS as nvidia-smi and NCCL
 * name them), narrowest link on the path, same package; our own common-ancestor walk over ->parent. */
#include "topo_int.h"

static const char *const path_names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};

const char *ar_path_name(enum ar_path p) {
  return p >= AR_PATH_X && p <= AR_PATH_SYS ? path_names[p] : "?";
}

static int depth_of(hwloc_obj_t o) {
  int d = 0;
  for (; o->parent; o = o->parent) d++;
  return d;
}

/* Lowest common ancestor by walking ->parent (hwloc_get_common_ancestor_obj() of hwloc 2.9 compares
 * depths, which I/O objects do not have in the normal tree, and crashes on unequal bridge chains). */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b) {
  int da = depth_of(a), db = depth_of(b);
  for (; da > db; da--) a = a->parent;
  for (; db > da; db--) b = b->parent;
  while (a != b) {
    a = a->parent;
    b = b->parent;
  }
  return a;
}

/* PCI-to-PCI bridges strictly between o and its ancestor anc. */
static int bridges_between(hwloc_obj_t o, hwloc_obj_t anc) {
  int n = 0;
  for (o = o->parent; o && o != anc; o = o->parent)
    if (o->type == HWLOC_OBJ_BRIDGE) n++;
  return n;
}

/* Narrowest known link from o up to (not including) stop, or up to its host bridge; 0 = unknown.
 * hwloc gives each PCI object the speed of the link above it, so the ancestor's own link is off-path. */
static double min_link_up(hwloc_obj_t o, hwloc_obj_t stop, double m) {
  for (; o && o != stop && ar_topo_is_io(o) && !ar_topo_is_host_bridge(o); o = o->parent) {
    const struct hwloc_pcidev_attr_s *a = ar_topo_pci_attr(o);
    if (a && a->linkspeed > 0 && (m == 0 || a->linkspeed < m)) m = a->linkspeed;
  }
  return m;
}

static enum ar_path classify(hwloc_obj_t a, hwloc_obj_t b, hwloc_obj_t lca) {
  if (ar_topo_is_io(lca)) {
    if (ar_topo_is_host_bridge(lca)) return AR_PATH_PHB;
    /* Under one switch the GPUs sit at most one (downstream-port) bridge below the common bridge. */
    return bridges_between(a, lca) <= 1 && bridges_between(b, lca) <= 1 ? AR_PATH_PIX : AR_PATH_PXB;
  }
  hwloc_obj_t ca = ar_topo_cpu_side(a), cb = ar_topo_cpu_side(b);
  if (ca && cb && ca->nodeset && cb->nodeset && !hwloc_bitmap_iszero(ca->nodeset) &&
      hwloc_bitmap_isequal(ca->nodeset, cb->nodeset))
    return AR_PATH_NODE;
  return AR_PATH_SYS;
}

enum ar_path ar_topo_path(const struct ar_topo *t, int i, int j, double *bottleneck_gbs, bool *same_package) {
  double bw = 0;
  bool same = false;
  enum ar_path p = AR_PATH_SYS;
  if (t && i >= 0 && j >= 0 && i < t->ngpus && j < t->ngpus) {
    const struct ar_gpu_info *gi = &t->gpus[i], *gj = &t->gpus[j];
    same = gi->package >= 0 && gi->package == gj->package;
    if (i == j) {
      p = AR_PATH_X;
      bw = gi->link_gbs;
    } else {
      hwloc_obj_t a = t->gpu_obj[i], b = t->gpu_obj[j], lca = common_ancestor(a, b);
      p = classify(a, b, lca);
      hwloc_obj_t stop = ar_topo_is_io(lca) ? lca : NULL;
      bw = min_link_up(b, stop, min_link_up(a, stop, 0));
    }
  }
  if (bottleneck_gbs) *bottleneck_gbs = bw;
  if (same_package) *same_package = same;
  return p;
}

double ar_topo_bottleneck_gbs(const struct ar_topo *t, const int *gpus, int n) {
  double m = 0;
  if (!t) return 0;
  if (n > t->ngpus && !gpus) n = t->ngpus;
  for (int x = 0; x < n; x++)
    for (int y = x; y < n; y++) {
      if (x == y && n > 1) continue;
      double bw = 0;
      ar_topo_path(t, gpus ? gpus[x] : x, gpus ? gpus[y] : y, &bw, NULL);
      if (bw > 0 && (m == 0 || bw < m)) m = bw;
    }
  return m;
}

double ar_topo_gpu_link_min_gbs(const struct ar_topo *t) {
  double m = 0;
  for (int i = 0; t && i < t->ngpus; i++)
    if (t->gpus[i].link_gbs > 0 && (m == 0 || t->gpus[i].link_gbs < m)) m = t->gpus[i].link_gbs;
  return m;
}
