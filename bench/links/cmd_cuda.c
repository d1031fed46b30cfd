/* cmd_cuda.c — the GPU parts of the `arbench links` command: a device per rank as `run` picks it and the
 * methods of the run (refused in one line without GPUs), and where a GPU pair's records stand in the topology
 * (bus ids, path class, bottleneck link, per-link score). In every build (the CUDA calls go through gpu.h). */
#include "device/gpu.h"
#include "links/cuda_plan.h"
#include "links/cmd_cuda.h"
#include "links/measure_cuda.h"
#include "run/runenv.h"
#include "topo.h"
#include <math.h>
#include <stdio.h>

int ar_links_gpu_setup(struct ar_env *env, struct ar_links_opts *o) {
  char msg[AR_ERRLEN] = "", why[AR_ERRLEN] = "", nosm[AR_ERRLEN] = "";
  int rc = ar_gpu_select(env, msg, sizeof msg);
  if (ar_agree_print(env->comm, rc, msg)) return rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  int have = env->device >= 0, all;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, env->comm);
  if (!all) {
    if (!ar_gpu_count(why, sizeof why)) { /* why says: no device, no driver, built without CUDA */
    } else snprintf(why, sizeof why, "a rank got no GPU (more ranks than GPUs on a node: --devices, --shared-gpu)");
  }
  int sm = ar_lgpu_kernels(nosm, sizeof nosm);
  unsigned m = o->methods;
  rc = ar_links_resolve_methods(o->methods, o->methods_given, all, sm, why, nosm, &m, msg, sizeof msg);
  if (ar_agree_print(env->comm, rc, msg)) return AR_EXIT_USAGE;
  o->methods = m;
  return 0;
}

void ar_links_gpu_where(json_t *rec, struct ar_topo *t, const char *sbus, const char *dbus, double gbs) {
  json_object_set_new(rec, "src_id", json_string(sbus && *sbus ? sbus : "?"));
  json_object_set_new(rec, "dst_id", json_string(dbus && *dbus ? dbus : "?"));
  int i = t && sbus && *sbus ? ar_topo_gpu_of_busid(t, sbus) : -1;
  int j = t && dbus && *dbus ? ar_topo_gpu_of_busid(t, dbus) : -1;
  const char *path = "?";
  double bn = NAN;
  if (i >= 0 && j >= 0) {
    bool same = false;
    double b = 0;
    enum ar_path p = ar_topo_path(t, i, j, &b, &same);
    path = ar_path_name(p);
    bn = i != j && b > 0 ? b : NAN; /* one GPU shared by two ranks: no link between them */
  }
  json_object_set_new(rec, "path", json_string(path));
  json_object_set_new(rec, "bottleneck_gbs", isfinite(bn) ? json_real(bn) : json_null());
  double sc = ar_links_score(gbs, bn);
  json_object_set_new(rec, "score", isfinite(sc) ? json_real(sc) : json_null());
}
