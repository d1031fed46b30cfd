/* topo_bind.c — where a rank should run: its GPU's local cores, or with no GPU a NUMA-balanced share
 * of the cores (ranks spread over NUMA nodes in blocks, cores split evenly inside a node); and binding. */
#include "topo_int.h"
#include "ar.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define AR_MAX_NUMA 1024

/* NUMA nodes that have allowed CPUs, in os_index order. */
static int cpu_numa_nodes(const struct ar_topo *t, hwloc_obj_t *nodes, int max) {
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t->h);
  int k = 0;
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, NULL); n && k < max;
       n = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, n))
    if (n->cpuset && hwloc_bitmap_intersects(n->cpuset, allowed)) nodes[k++] = n;
  return k;
}

/* Share idx of cnt of the cores (or PUs when cores are unknown) in set; result into out. */
static void share_of(const struct ar_topo *t, hwloc_const_cpuset_t set, int idx, int cnt, hwloc_bitmap_t out) {
  hwloc_obj_type_t type = HWLOC_OBJ_CORE;
  int nc = hwloc_get_nbobjs_inside_cpuset_by_type(t->h, set, type);
  if (nc <= 0) {
    type = HWLOC_OBJ_PU;
    nc = hwloc_get_nbobjs_inside_cpuset_by_type(t->h, set, type);
  }
  hwloc_bitmap_zero(out);
  if (nc <= 0) {
    hwloc_bitmap_copy(out, set);
    return;
  }
  int lo = nc >= cnt ? idx * nc / cnt : idx % nc;
  int hi = nc >= cnt ? (idx + 1) * nc / cnt : lo + 1;
  for (int c = lo; c < hi; c++) {
    hwloc_obj_t o = hwloc_get_obj_inside_cpuset_by_type(t->h, set, type, (unsigned)c);
    if (o) hwloc_bitmap_or(out, out, o->cpuset);
  }
  hwloc_bitmap_and(out, out, set);
}

static int plan(const struct ar_topo *t, int gpu, int lr, int ln, hwloc_bitmap_t out, int *numa) {
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t->h);
  if (gpu >= t->ngpus || ln < 1 || lr < 0 || lr >= ln) return -AR_EINVAL;
  if (gpu >= 0) {
    hwloc_obj_t cpu = ar_topo_cpu_side(t->gpu_obj[gpu]);
    hwloc_bitmap_and(out, cpu && cpu->cpuset ? cpu->cpuset : allowed, allowed);
    if (hwloc_bitmap_iszero(out)) hwloc_bitmap_copy(out, allowed);
    *numa = t->gpus[gpu].numa;
    return 0;
  }
  hwloc_obj_t nodes[AR_MAX_NUMA];
  int k = cpu_numa_nodes(t, nodes, AR_MAX_NUMA);
  if (k == 0) {
    share_of(t, allowed, lr, ln, out);
    *numa = -1;
    return 0;
  }
  int node = (int)((long)lr * k / ln), idx = 0, cnt = 0;
  for (int r = 0; r < ln; r++)
    if ((int)((long)r * k / ln) == node) {
      if (r < lr) idx++;
      cnt++;
    }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_and(set, nodes[node]->cpuset, allowed);
  share_of(t, set, idx, cnt, out);
  hwloc_bitmap_free(set);
  *numa = (int)nodes[node]->os_index;
  return 0;
}

int ar_topo_bind_plan(const struct ar_topo *t, int gpu, int local_rank, int local_n, char *cpus, size_t len,
                      int *numa) {
  int nm = -1;
  if (!t) return -AR_EINVAL;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int rc = plan(t, gpu, local_rank, local_n, set, &nm);
  if (!rc && cpus) hwloc_bitmap_list_snprintf(cpus, len, set);
  if (numa) *numa = nm;
  hwloc_bitmap_free(set);
  return rc;
}

int ar_topo_bind(struct ar_topo *t, int gpu, int local_rank, int local_n, char *desc, size_t len) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  if (!t || !t->thissystem) {
    snprintf(desc, len, "%s local rank %d: not bound (topology %s is not this machine)", host, local_rank,
             t ? t->source : "(none)");
    return -AR_EINVAL;
  }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int numa = -1;
  if (plan(t, gpu, local_rank, local_n, set, &numa)) {
    snprintf(desc, len, "%s local rank %d of %d: not bound (bad GPU %d)", host, local_rank, local_n, gpu);
    hwloc_bitmap_free(set);
    return -AR_EINVAL;
  }
  char cpus[256];
  hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set);
  int rc = hwloc_set_cpubind(t->h, set, HWLOC_CPUBIND_PROCESS);
  int e = errno;
  hwloc_bitmap_free(set);
  if (rc) {
    snprintf(desc, len, "%s local rank %d of %d: binding to PUs %s failed: %s", host, local_rank, local_n, cpus,
             strerror(e));
    return -AR_ERUNTIME;
  }
  if (gpu >= 0)
    snprintf(desc, len, "%s local rank %d of %d -> PUs %s (NUMA %d, local cores of GPU %s)", host, local_rank,
             local_n, cpus, numa, t->gpus[gpu].busid);
  else
    snprintf(desc, len, "%s local rank %d of %d -> PUs %s (NUMA %d, no GPU: NUMA-balanced share of cores)",
             host, local_rank, local_n, cpus, numa);
  return 0;
}

int ar_topo_numa_of_self(struct ar_topo *t) {
  if (!t || !t->thissystem) return -1;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int found = -1, n = 0;
  if (!hwloc_get_cpubind(t->h, set, HWLOC_CPUBIND_PROCESS))
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, NULL); o;
         o = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, o))
      if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, set)) {
        found = (int)o->os_index;
        n++;
      }
  hwloc_bitmap_free(set);
  return n == 1 ? found : -1;
}
