/* topo_summary.c — the topology as a JSON object for run records and `topo --format json`: GPUs,
 * CPU/NUMA layout, path matrix, bottleneck, and a digest over the canonical form to match boxes. */
#include "topo_int.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *gbs(double v) { return json_real(round(v * 100.0) / 100.0); }

static json_t *int_or_null(int v) { return v >= 0 ? json_integer(v) : json_null(); }

static json_t *cpulist(hwloc_const_bitmap_t set) {
  char buf[1024] = "";
  if (set) hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
  return json_string(buf);
}

static json_t *gpu_list(const struct ar_topo *t) {
  json_t *a = json_array();
  for (int i = 0; i < t->ngpus; i++) {
    const struct ar_gpu_info *g = &t->gpus[i];
    char id[16], cls[8];
    snprintf(id, sizeof id, "%04x:%04x", g->vendor, g->device);
    snprintf(cls, sizeof cls, "%04x", g->pci_class);
    hwloc_obj_t cpu = ar_topo_cpu_side(t->gpu_obj[i]);
    json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:o}", "index", i, "busid",
                                       g->busid, "pci_id", id, "class", cls, "numa", int_or_null(g->numa),
                                       "package", int_or_null(g->package), "link_gbs", gbs(g->link_gbs),
                                       "cpus", g->cpuset, "numa_affinity", cpulist(cpu ? cpu->nodeset : NULL)));
  }
  return a;
}

static json_t *numa_list(const struct ar_topo *t) {
  json_t *a = json_array();
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, NULL); n;
       n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, n)) {
    hwloc_obj_t cpu = ar_topo_cpu_side(n->parent);
    json_array_append_new(a, json_pack("{s:i, s:o, s:o}", "os_index", (int)n->os_index, "package",
                                       int_or_null(ar_topo_package_of(t->h, cpu)), "cpus", cpulist(n->cpuset)));
  }
  return a;
}

static void matrices(const struct ar_topo *t, json_t *s) {
  json_t *paths = json_array(), *bw = json_array(), *pkg = json_array();
  for (int i = 0; i < t->ngpus; i++) {
    json_t *rp = json_array(), *rb = json_array(), *rk = json_array();
    for (int j = 0; j < t->ngpus; j++) {
      double b = 0;
      bool same = false;
      json_array_append_new(rp, json_string(ar_path_name(ar_topo_path(t, i, j, &b, &same))));
      json_array_append_new(rb, gbs(b));
      json_array_append_new(rk, json_boolean(same));
    }
    json_array_append_new(paths, rp);
    json_array_append_new(bw, rb);
    json_array_append_new(pkg, rk);
  }
  json_object_set_new(s, "paths", paths);
  json_object_set_new(s, "path_gbs", bw);
  json_object_set_new(s, "same_package", pkg);
}

static uint64_t fnv1a64(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static const char *machine_model(const struct ar_topo *t) {
  hwloc_obj_t root = hwloc_get_root_obj(t->h);
  const char *m = hwloc_obj_get_info_by_name(root, "DMIProductName");
  return m ? m : "";
}

json_t *ar_topo_summary(const struct ar_topo *t) {
  if (!t) return json_null();
  json_t *s = json_object();
  json_object_set_new(s, "order", json_string("pci bus id (domain:bus:device.function)"));
  json_object_set_new(s, "machine", json_string(machine_model(t)));
  json_object_set_new(s, "packages", json_integer(hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PACKAGE)));
  json_object_set_new(s, "numa_nodes", json_integer(hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE)));
  json_object_set_new(s, "cores", json_integer(hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_CORE)));
  json_object_set_new(s, "pus", json_integer(hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU)));
  json_object_set_new(s, "numa", numa_list(t));
  json_object_set_new(s, "gpus", gpu_list(t));
  matrices(t, s);
  double bn = ar_topo_bottleneck_gbs(t, NULL, t->ngpus), gl = ar_topo_gpu_link_min_gbs(t);
  json_object_set_new(s, "bottleneck_gbs", bn > 0 ? gbs(bn) : json_null());
  json_object_set_new(s, "gpu_link_min_gbs", gl > 0 ? gbs(gl) : json_null());
  /* Digest over everything so far (sorted keys, compact): same box, same digest, live or XML. */
  char *canon = json_dumps(s, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
  char digest[40];
  snprintf(digest, sizeof digest, "fnv1a64:%016llx", (unsigned long long)fnv1a64(canon ? canon : ""));
  free(canon);
  for (int i = 0; i < t->ngpus; i++)
    json_object_set_new(json_array_get(json_object_get(s, "gpus"), (size_t)i), "cuda", int_or_null(t->gpus[i].cuda));
  json_object_set_new(s, "source", json_string(t->source));
  json_object_set_new(s, "digest", json_string(digest));
  return s;
}
