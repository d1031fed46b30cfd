/* ranks.c — doctor's NUMA locality of ranks: where each rank may run (its CPU affinity, gathered live under
 * mpirun, given by --rank-cpus, or read from a results file's bindings) against the NUMA node of its GPU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "infile.h"
#include "doctor/doctor.h"
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(AR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define G "ranks"
#define AR_MAXCPU 4096

struct cpuset {
  uint64_t w[AR_MAXCPU / 64];
};

/* "0-3,8,10-11" -> set; 0, or -1 on a malformed list. */
static int parse_list(const char *s, struct cpuset *c) {
  memset(c, 0, sizeof *c);
  if (!*s) return -1;
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s || a < 0) return -1;
    s = end;
    if (*s == '-') {
      b = strtol(s + 1, &end, 10);
      if (end == s + 1 || b < a) return -1;
      s = end;
    }
    if (b >= AR_MAXCPU) return -1;
    for (long i = a; i <= b; i++) c->w[i / 64] |= 1ull << (i % 64);
    if (*s == ',') s++;
    else if (*s) return -1;
  }
  return 0;
}

static int has(const struct cpuset *c, int i) { return (int)(c->w[i / 64] >> (i % 64) & 1); }

static int meets(const struct cpuset *a, const struct cpuset *b) {
  for (size_t i = 0; i < AR_MAXCPU / 64; i++)
    if (a->w[i] & b->w[i]) return 1;
  return 0;
}

static void fmt_list(const struct cpuset *c, char *buf, size_t len) {
  size_t k = 0;
  *buf = 0;
  for (int i = 0; i < AR_MAXCPU && k < len; i++) {
    if (!has(c, i)) continue;
    int j = i;
    while (j + 1 < AR_MAXCPU && has(c, j + 1)) j++;
    k += (size_t)snprintf(buf + k, len - k, j > i ? "%s%d-%d" : "%s%d", k ? "," : "", i, j);
    i = j;
  }
}

/* The machine's NUMA nodes: cpulist of root/sys/devices/system/node/nodeN; count found. */
#define AR_MAXNODE 64
static int read_nodes(const struct ar_doc *d, struct cpuset *node, int *have) {
  int n = 0;
  for (int i = 0; i < AR_MAXNODE; i++) {
    char p[128], v[1024];
    snprintf(p, sizeof p, "/sys/devices/system/node/node%d/cpulist", i);
    have[i] = !ar_doc_read(d, p, v, sizeof v) && !parse_list(v, &node[i]);
    n += have[i];
  }
  return n;
}

/* Nodes a cpuset touches, as "0" or "0,1"; count. */
static int nodes_of(const struct cpuset *c, const struct cpuset *node, const int *have, char *buf, size_t len,
                    int *first) {
  int n = 0;
  size_t k = 0;
  *buf = 0;
  *first = -1;
  for (int i = 0; i < AR_MAXNODE; i++)
    if (have[i] && meets(c, &node[i])) {
      k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%d", n ? "," : "", i);
      if (*first < 0) *first = i;
      n++;
    }
  return n;
}

/* A GPU's NUMA node: numa_node, else the one node its local_cpulist lies on; -1 unknown. */
static int gpu_node(const struct ar_doc *d, const char *bdf, const struct cpuset *node, const int *have, char *how,
                    size_t len) {
  char p[256], v[1024];
  struct cpuset local;
  *how = 0;
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/numa_node", bdf);
  if (!ar_doc_read(d, p, v, sizeof v) && atoi(v) >= 0) return atoi(v);
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/local_cpulist", bdf);
  if (ar_doc_read(d, p, v, sizeof v) || parse_list(v, &local)) return -1;
  char list[64];
  int first, k = nodes_of(&local, node, have, list, sizeof list, &first);
  if (k != 1) return -1;
  snprintf(how, len, " (from its local CPUs; numa_node is -1)");
  return first;
}

static const char *const todo_bind =
    "bind each rank next to its GPU: let arbench run bind (its default; drop --no-bind), or launch with "
    "mpirun --bind-to numa and a --map-by/rankfile that puts local rank i on the node of GPU i";

static void one(struct ar_doc *d, const struct ar_doc_rank *r, const struct cpuset *node, const int *have) {
  char who[128], list[256], nodes[128], how[64];
  struct cpuset c;
  int first;
  snprintf(who, sizeof who, "rank %d%s%s", r->rank, *r->host ? " on " : "", r->host);
  if (!*r->cpus) {
    ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "%s: %s", who, *r->note ? r->note : "CPU affinity unknown");
    return;
  }
  if (parse_list(r->cpus, &c)) {
    ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "%s: CPU list '%s' not understood", who, r->cpus);
    return;
  }
  fmt_list(&c, list, sizeof list);
  int k = nodes_of(&c, node, have, nodes, sizeof nodes, &first);
  if (!*r->gpu) {
    ar_doc_add(d, G, "NUMA", AR_D_INFO, "", "%s (PUs %s) runs on NUMA node%s %s; no GPU for it", who, list,
               k > 1 ? "s" : "", k ? nodes : "?");
    return;
  }
  int gn = gpu_node(d, r->gpu, node, have, how, sizeof how);
  if (gn < 0 || !k)
    ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "%s (PUs %s): NUMA node of %s unknown", who, list,
               gn < 0 ? "its GPU" : "its CPUs");
  else if (k > 1)
    ar_doc_add(d, G, "NUMA", AR_D_INFO,
               "arbench run binds itself unless --no-bind; other programs launched this way (nccl-tests) float: "
               "mpirun --bind-to numa",
               "%s may run on NUMA nodes %s (PUs %s: not bound to one node), its GPU %s is on node %d%s", who,
               nodes, list, r->gpu, gn, how);
  else if (first != gn)
    ar_doc_add(d, G, "NUMA", AR_D_WARN, todo_bind, "%s runs on NUMA node %d (PUs %s), its GPU %s is on node %d%s",
               who, first, list, r->gpu, gn, how);
  else
    ar_doc_add(d, G, "NUMA", AR_D_OK, "", "%s runs on NUMA node %d (PUs %s), its GPU %s is on node %d%s", who,
               first, list, r->gpu, gn, how);
}

void ar_doctor_ranks(struct ar_doc *d, const struct ar_doc_gpu *g, int n, struct ar_doc_rank *r, int nr,
                     const char *none) {
  static struct cpuset node[AR_MAXNODE];
  int have[AR_MAXNODE];
  if (!nr) {
    ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "%s", none);
    return;
  }
  int nn = read_nodes(d, node, have);
  if (nn == 1) {
    ar_doc_add(d, G, "NUMA", AR_D_OK, "", "one NUMA node: where the %d rank%s run does not matter", nr,
               nr > 1 ? "s" : "");
    return;
  }
  if (!nn) {
    ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "no sys/devices/system/node/node*/cpulist: NUMA nodes unknown");
    return;
  }
  for (int i = 0; i < nr; i++) {
    if (!*r[i].gpu && !*r[i].note && n && r[i].local_rank >= 0)
      snprintf(r[i].gpu, sizeof r[i].gpu, "%s", g[r[i].local_rank % n].bdf);
    one(d, &r[i], node, have);
  }
}

/* --rank-cpus "0-15;16-31;...": local rank i's CPUs. */
int ar_doc_ranks_inject(const char *arg, struct ar_doc_rank *r, int max, char *err, size_t len) {
  char buf[4096], *save = NULL;
  int n = 0;
  struct cpuset c;
  snprintf(buf, sizeof buf, "%s", arg);
  for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
    if (parse_list(t, &c) || n >= max) {
      snprintf(err, len, "--rank-cpus %s: '%s' is not a CPU list (allowed: lists like 0-15,32-47 separated by ';', "
               "one per local rank, at most %d)", arg, t, max);
      return -1;
    }
    memset(&r[n], 0, sizeof r[n]);
    r[n].rank = r[n].local_rank = n;
    snprintf(r[n].cpus, sizeof r[n].cpus, "%s", t);
    n++;
  }
  if (!n) snprintf(err, len, "--rank-cpus '%s': no CPU list (allowed: lists like 0-15 separated by ';')", arg);
  return n ? n : -1;
}

/* One rank's binding text from a run record: "... -> PUs 0-15 (NUMA 0, local cores of GPU 0000:01:00.0)". */
static void from_binding(struct ar_doc_rank *r, const char *b) {
  const char *p = strstr(b, "-> PUs "), *q = strstr(b, "local cores of GPU ");
  if (!p) {
    snprintf(r->note, sizeof r->note, "where it ran is not recorded (run record: %.150s)", b);
    return;
  }
  p += 7;
  snprintf(r->cpus, sizeof r->cpus, "%.*s", (int)strcspn(p, " ("), p);
  if (q) snprintf(r->gpu, sizeof r->gpu, "%.*s", (int)strcspn(q + 19, ")"), q + 19);
}

/* The bus id of CUDA device `dev` from the run record's topology (gpus[].cuda); "" when none. */
static void gpu_of_device(json_t *run, json_t *dev, char *buf, size_t len) {
  json_t *gpus = json_object_get(json_object_get(run, "topology"), "gpus"), *g;
  size_t i;
  if (!json_is_integer(dev) || json_integer_value(dev) < 0) return;
  json_array_foreach(gpus, i, g) {
    json_t *c = json_object_get(g, "cuda");
    const char *bus = json_string_value(json_object_get(g, "busid"));
    if (json_is_integer(c) && json_integer_value(c) == json_integer_value(dev) && bus) snprintf(buf, len, "%s", bus);
  }
}

json_t *ar_doc_last_run(const char *file, char *err, size_t len) {
  FILE *f;
  char line[1 << 16];
  json_t *run = NULL;
  if (ar_infile_open(file, "--results file", 0, &f, err, len)) return NULL;
  while (fgets(line, sizeof line, f)) {
    json_t *j = json_loads(line, 0, NULL);
    if (j && !strcmp(json_string_value(json_object_get(j, "type")) ?: "", "run")) {
      json_decref(run);
      run = j;
    } else
      json_decref(j);
  }
  fclose(f);
  if (!run) snprintf(err, len, "--results %s: no run record (a results file of arbench run is needed)", file);
  return run;
}

/* The ranks of the last run record of a results file: host, local rank, and where its binding put it. */
int ar_doc_ranks_results(const char *file, int live, struct ar_doc_rank *r, int max, char *err, size_t len) {
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  json_t *run = ar_doc_last_run(file, err, len), *map, *bind, *it;
  size_t i;
  int n = 0;
  if (!run) return -1;
  map = json_object_get(run, "rank_map");
  bind = json_object_get(run, "binding");
  json_array_foreach(map, i, it) {
    if (n >= max) break;
    memset(&r[n], 0, sizeof r[n]);
    r[n].rank = (int)json_integer_value(json_object_get(it, "rank"));
    r[n].local_rank = -1;
    snprintf(r[n].host, sizeof r[n].host, "%s", json_string_value(json_object_get(it, "host")) ?: "");
    const char *b = json_string_value(json_array_get(bind, i));
    if (b) from_binding(&r[n], b);
    if (b && !*r[n].gpu) gpu_of_device(run, json_object_get(it, "device"), r[n].gpu, sizeof r[n].gpu);
    else snprintf(r[n].note, sizeof r[n].note, "the run record has no binding for it");
    n++;
  }
  json_decref(run);
  if (!n) snprintf(err, len, "--results %s: its last run record has no rank_map", file);
  for (int k = 0; k < n && live; k++)
    if (strcmp(r[k].host, host)) {
      r[k].cpus[0] = 0;
      snprintf(r[k].note, sizeof r[k].note, "ran on another host than this one (%.60s): run doctor there", host);
    }
  return n ? n : -1;
}

/* Launched by mpirun (or another PMI launcher)? */
int ar_doc_under_mpirun(void) {
  const char *v = getenv("OMPI_COMM_WORLD_SIZE");
  if (!v) v = getenv("PMI_SIZE");
  if (!v) v = getenv("PMIX_SIZE");
  return v != NULL;
}

/* Live: the bus id of CUDA device local_rank mod count (as arbench run picks when every rank sees the same
 * GPUs), so CUDA's device order and CUDA_VISIBLE_DEVICES are honoured; "" without CUDA or a device. */
static void cuda_gpu(int live, int local_rank, char *buf, size_t len) {
  *buf = 0;
#if defined(AR_HAVE_CUDA)
  int count = 0;
  if (!live || cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) return;
  if (cudaDeviceGetPCIBusId(buf, (int)len, local_rank % count) != cudaSuccess) *buf = 0;
  for (char *c = buf; *c; c++) *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
#else
  (void)live;
  (void)local_rank;
  (void)len;
#endif
}

/* Every rank's host, local rank, CPU affinity (sched_getaffinity) and, live, its GPU, gathered at rank 0.
 * Collective; returns the count at rank 0, 0 elsewhere. *me is this rank. */
int ar_doc_ranks_mpi(struct ar_doc_rank *r, int max, int *me, int live) {
  struct ar_doc_rank mine;
  cpu_set_t cs;
  struct cpuset c = {{0}};
  int size;
  MPI_Comm node;
  memset(&mine, 0, sizeof mine);
  MPI_Comm_rank(MPI_COMM_WORLD, me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *me, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &mine.local_rank);
  MPI_Comm_free(&node);
  mine.rank = *me;
  gethostname(mine.host, sizeof mine.host - 1);
  cuda_gpu(live, mine.local_rank, mine.gpu, sizeof mine.gpu);
  if (!sched_getaffinity(0, sizeof cs, &cs)) {
    for (int i = 0; i < CPU_SETSIZE && i < AR_MAXCPU; i++)
      if (CPU_ISSET(i, &cs)) c.w[i / 64] |= 1ull << (i % 64);
    fmt_list(&c, mine.cpus, sizeof mine.cpus);
  } else
    snprintf(mine.note, sizeof mine.note, "sched_getaffinity failed");
  struct ar_doc_rank *all = *me == 0 ? calloc((size_t)size, sizeof *all) : NULL;
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (*me) return 0;
  int n = size < max ? size : max;
  memcpy(r, all, (size_t)n * sizeof *r);
  free(all);
  for (int i = 0; i < n; i++)
    if (strcmp(r[i].host, mine.host)) {
      r[i].cpus[0] = 0;
      snprintf(r[i].note, sizeof r[i].note, "on another host than rank 0 (%.60s): run doctor there", mine.host);
    }
  return n;
}
