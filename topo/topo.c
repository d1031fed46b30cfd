/* topo.c — load a topology with hwloc (live with I/O objects, or an hwloc XML file) and find the
 * NVIDIA GPUs on it, in PCI bus id order; look GPUs up by bus id or CUDA device. */
#include "infile.h"
#include "topo_int.h"
#include "ar.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(AR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define AR_XML_SNIFF 65536

bool ar_topo_is_nvidia_gpu(unsigned vendor, unsigned pci_class) {
  return vendor == 0x10de && (pci_class == 0x0300 || pci_class == 0x0302);
}

const struct hwloc_pcidev_attr_s *ar_topo_pci_attr(hwloc_obj_t o) {
  if (o->type == HWLOC_OBJ_PCI_DEVICE) return &o->attr->pcidev;
  if (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
    return &o->attr->bridge.upstream.pci;
  return NULL;
}

bool ar_topo_is_host_bridge(hwloc_obj_t o) {
  return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

bool ar_topo_is_io(hwloc_obj_t o) {
  return o->type == HWLOC_OBJ_BRIDGE || o->type == HWLOC_OBJ_PCI_DEVICE || o->type == HWLOC_OBJ_OS_DEVICE;
}

hwloc_obj_t ar_topo_cpu_side(hwloc_obj_t o) {
  while (o && (ar_topo_is_io(o) || o->type == HWLOC_OBJ_MISC)) o = o->parent;
  return o;
}

int ar_topo_numa_of_nodeset(hwloc_const_nodeset_t ns) {
  if (!ns || hwloc_bitmap_weight(ns) != 1) return -1;
  return hwloc_bitmap_first(ns);
}

int ar_topo_package_of(hwloc_topology_t h, hwloc_obj_t cpu_side) {
  for (hwloc_obj_t o = cpu_side; o; o = o->parent)
    if (o->type == HWLOC_OBJ_PACKAGE) return o->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int)o->os_index;
  if (!cpu_side || !cpu_side->cpuset || hwloc_bitmap_iszero(cpu_side->cpuset)) return -1;
  for (hwloc_obj_t p = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PACKAGE, NULL); p;
       p = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PACKAGE, p))
    if (hwloc_bitmap_isincluded(cpu_side->cpuset, p->cpuset))
      return p->os_index == HWLOC_UNKNOWN_INDEX ? -1 : (int)p->os_index;
  return -1;
}

void ar_topo_fill_gpu(struct ar_topo *t, hwloc_obj_t o, struct ar_gpu_info *g) {
  const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
  hwloc_obj_t cpu = ar_topo_cpu_side(o);
  memset(g, 0, sizeof *g);
  snprintf(g->busid, sizeof g->busid, "%04x:%02x:%02x.%x", a->domain, a->bus, a->dev, a->func);
  g->vendor = a->vendor_id;
  g->device = a->device_id;
  g->pci_class = a->class_id;
  g->numa = cpu ? ar_topo_numa_of_nodeset(cpu->nodeset) : -1;
  g->package = ar_topo_package_of(t->h, cpu);
  g->link_gbs = a->linkspeed > 0 ? a->linkspeed : 0;
  g->cuda = -1;
  if (cpu && cpu->cpuset) hwloc_bitmap_list_snprintf(g->cpuset, sizeof g->cpuset, cpu->cpuset);
}

static unsigned long long busid_key(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
  return ((unsigned long long)a->domain << 24) | ((unsigned long long)a->bus << 16) |
         ((unsigned long long)a->dev << 8) | a->func;
}

void ar_topo_sort_gpus(struct ar_topo *t) {
  for (int i = 1; i < t->ngpus; i++) /* insertion sort: a few dozen GPUs at most */
    for (int j = i; j > 0 && busid_key(t->gpu_obj[j - 1]) > busid_key(t->gpu_obj[j]); j--) {
      hwloc_obj_t o = t->gpu_obj[j];
      struct ar_gpu_info g = t->gpus[j];
      t->gpu_obj[j] = t->gpu_obj[j - 1];
      t->gpus[j] = t->gpus[j - 1];
      t->gpu_obj[j - 1] = o;
      t->gpus[j - 1] = g;
    }
}

int ar_topo_parse_busid(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn) {
  char tail;
  if (!s) return -AR_EINVAL;
  if (sscanf(s, "%x:%x:%x.%x%c", dom, bus, dev, fn, &tail) == 4) return 0;
  *dom = 0;
  if (sscanf(s, "%x:%x.%x%c", bus, dev, fn, &tail) == 3) return 0;
  return -AR_EINVAL;
}

static int add_gpu(struct ar_topo *t, hwloc_obj_t o) {
  struct ar_gpu_info *g = realloc(t->gpus, (size_t)(t->ngpus + 1) * sizeof *g);
  if (!g) return -AR_ERUNTIME;
  t->gpus = g;
  hwloc_obj_t *objs = realloc(t->gpu_obj, (size_t)(t->ngpus + 1) * sizeof *objs);
  if (!objs) return -AR_ERUNTIME;
  t->gpu_obj = objs;
  t->gpu_obj[t->ngpus] = o;
  ar_topo_fill_gpu(t, o, &t->gpus[t->ngpus]);
  t->ngpus++;
  return 0;
}

static int find_gpus(struct ar_topo *t) {
  for (hwloc_obj_t o = hwloc_get_next_pcidev(t->h, NULL); o; o = hwloc_get_next_pcidev(t->h, o))
    if (ar_topo_is_nvidia_gpu(o->attr->pcidev.vendor_id, o->attr->pcidev.class_id) && add_gpu(t, o))
      return -AR_ERUNTIME;
  ar_topo_sort_gpus(t);
  return 0;
}

/* Refuse what hwloc cannot read before it tries (its own messages are not one line): unreadable
 * files, files without a <topology> element, and NCCL topology dumps (<system>). */
/* infile's line, with origin (" (from HWLOC_XMLFILE)") right after the quoted path it names. */
static void with_origin(const char *why, const char *path, const char *origin, char *err, size_t len) {
  char q[AR_ERRLEN];
  snprintf(q, sizeof q, "'%s'", path);
  const char *at = strstr(why, q);
  if (!at || !*origin) {
    snprintf(err, len, "%s", why);
    return;
  }
  snprintf(err, len, "%.*s%s%s%s", (int)(at - why), why, q, origin, at + strlen(q));
}

static int check_xml(const char *path, const char *origin, char *err, size_t len) {
  FILE *f;
  char why[AR_ERRLEN];
  if (ar_infile_open(path, "topology XML", 0, &f, why, sizeof why)) { /* a device, FIFO, /proc file, ... */
    with_origin(why, path, origin, err, len);
    return -AR_EINVAL;
  }
  char *buf = malloc(AR_XML_SNIFF + 1);
  size_t n = buf ? fread(buf, 1, AR_XML_SNIFF, f) : 0;
  int rd = ferror(f) ? errno : 0;
  fclose(f);
  if (!buf || rd) {
    snprintf(err, len, "cannot read topology XML '%s'%s: %s", path, origin, strerror(rd ? rd : ENOMEM));
    free(buf);
    return -AR_EINVAL;
  }
  buf[n] = 0;
  for (size_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
  int rc = 0;
  if (!strstr(buf, "<topology")) {
    if (strstr(buf, "<system"))
      rc = 1; /* an NCCL topology dump: converted by topo_nccl.c */
    else {
      snprintf(err, len, "'%s'%s is not an hwloc XML topology (no <topology> element) nor an NCCL topology "
               "dump (no <system> element)", path, origin);
      rc = -AR_EINVAL;
    }
  }
  free(buf);
  return rc;
}

static int load_hwloc(struct ar_topo *t, const char *path, const char *origin, const char *buf, size_t buflen,
                      char *err, size_t len) {
  if (hwloc_topology_init(&t->h)) {
    t->h = NULL;
    snprintf(err, len, "hwloc_topology_init failed: %s", strerror(errno));
    return -AR_ERUNTIME;
  }
  /* No PCI objects at all unless asked for before loading. OS devices (cuda0, nvml0, mlx5_0, ...) are
   * not needed, and dropping them keeps hwloc's CUDA/NVML/OpenCL plugins from initializing drivers. */
  hwloc_topology_set_io_types_filter(t->h, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_type_filter(t->h, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (buf && hwloc_topology_set_xmlbuffer(t->h, buf, (int)buflen + 1)) {
    snprintf(err, len, "hwloc cannot parse topology XML '%s'%s (malformed or truncated)", path, origin);
    return -AR_EINVAL;
  }
  if (!buf && path && hwloc_topology_set_xml(t->h, path)) {
    snprintf(err, len, "hwloc cannot parse topology XML '%s'%s (malformed or truncated)", path, origin);
    return -AR_EINVAL;
  }
  if (hwloc_topology_load(t->h)) {
    if (path) snprintf(err, len, "hwloc cannot load topology XML '%s'%s (malformed or truncated?)", path, origin);
    else snprintf(err, len, "hwloc cannot discover this machine's topology: %s", strerror(errno));
    return path ? -AR_EINVAL : -AR_ERUNTIME;
  }
  return 0;
}

/* hwloc 2.9 crashes (SIGSEGV) on some malformed XML, e.g. a Machine without complete_cpuset (found by
 * tests/fuzz/fuzz_topo; the input is kept in tests/fuzz/crashers/topo/). So a file is first loaded in
 * a child process: a crash there becomes one line about the file instead of taking arbench down. */
static int trial_load(const char *path, const char *origin, const char *buf, size_t buflen, char *err, size_t len) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 0; /* cannot try: load it for real */
  if (pid == 0) {
    struct ar_topo t = {0};
    char e[64];
    load_hwloc(&t, path, origin, buf, buflen, e, sizeof e);
    _exit(0); /* hwloc's own errors are reported by the real load; the half-built handle is left */
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  /* A signal, or a sanitizer's exit status after it caught one. */
  snprintf(err, len, "hwloc crashed (%s %d) reading topology XML '%s'%s: the file is malformed; "
           "give one written by lstopo --of xml", WIFSIGNALED(st) ? "signal" : "exit status",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), path, origin);
  return -AR_EINVAL;
}

int ar_topo_load(struct ar_topo **out, const char *xml, char *err, size_t len) {
  *out = NULL;
  const char *env = getenv("HWLOC_XMLFILE");
  const char *path = xml && *xml ? xml : (env && *env ? env : NULL);
  const char *origin = xml && *xml ? "" : " (from HWLOC_XMLFILE)";
  int rc = path ? check_xml(path, origin, err, len) : 0;
  char *nccl = NULL; /* an NCCL topology dump, as hwloc XML */
  size_t nccl_len = 0;
  if (rc >= 0 && path) { /* hwloc and libxml2 read the text as it was when checked: a file that grows is read to there */
    char why[AR_ERRLEN], *text = NULL;
    size_t n = 0;
    if (ar_infile_slurp(path, "topology XML", 0, &text, &n, why, sizeof why)) {
      with_origin(why, path, origin, err, len);
      return -AR_EINVAL;
    }
    if (rc == 1) { /* an NCCL topology dump, converted to hwloc XML */
      rc = ar_topo_nccl_to_hwloc(path, text, n, &nccl, &nccl_len, err, len);
      free(text);
    } else {
      nccl = text, nccl_len = n;
      rc = trial_load(path, origin, nccl, nccl_len, err, len);
    }
  }
  if (rc) {
    free(nccl);
    return rc;
  }
  struct ar_topo *t = calloc(1, sizeof *t);
  if (!t) {
    free(nccl);
    snprintf(err, len, "out of memory loading the topology");
    return -AR_ERUNTIME;
  }
  rc = load_hwloc(t, path, origin, nccl, nccl_len, err, len);
  free(nccl);
  if (!rc) {
    snprintf(t->source, sizeof t->source, "%s", path ? path : "live");
    t->thissystem = !path && hwloc_topology_is_thissystem(t->h);
    rc = find_gpus(t);
    if (rc) snprintf(err, len, "out of memory listing GPUs");
  }
  if (rc) {
    ar_topo_destroy(t);
    return rc;
  }
  *out = t;
  return 0;
}

void ar_topo_destroy(struct ar_topo *t) {
  if (!t) return;
  if (t->h) hwloc_topology_destroy(t->h);
  free(t->gpus);
  free(t->gpu_obj);
  free(t);
}

int ar_topo_ngpus(const struct ar_topo *t) { return t ? t->ngpus : 0; }

const struct ar_gpu_info *ar_topo_gpu(const struct ar_topo *t, int i) {
  return t && i >= 0 && i < t->ngpus ? &t->gpus[i] : NULL;
}

int ar_topo_nnuma(const struct ar_topo *t) {
  int n = t ? hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE) : 0;
  return n > 0 ? n : 1;
}

const char *ar_topo_source(const struct ar_topo *t) { return t ? t->source : ""; }

int ar_topo_gpu_of_busid(const struct ar_topo *t, const char *busid) {
  unsigned d, b, v, f;
  if (!t || ar_topo_parse_busid(busid, &d, &b, &v, &f)) return -1;
  for (int i = 0; i < t->ngpus; i++) {
    const struct hwloc_pcidev_attr_s *a = &t->gpu_obj[i]->attr->pcidev;
    if (a->domain == d && a->bus == b && a->dev == v && a->func == f) return i;
  }
  return -1;
}

/* PCI bus id of CUDA device dev, 0 or -1 (no CUDA, no such device). */
static int cuda_busid(int dev, char *buf, int len) {
#if defined(AR_HAVE_CUDA)
  return cudaDeviceGetPCIBusId(buf, len, dev) == cudaSuccess ? 0 : -1;
#else
  (void)dev;
  (void)buf;
  (void)len;
  return -1;
#endif
}

static int cuda_count(void) {
#if defined(AR_HAVE_CUDA)
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#else
  return 0;
#endif
}

int ar_topo_gpu_of_cuda(const struct ar_topo *t, int dev) {
  char busid[64];
  if (!t || !t->thissystem || dev < 0 || cuda_busid(dev, busid, (int)sizeof busid)) return -1;
  return ar_topo_gpu_of_busid(t, busid);
}

int ar_topo_map_cuda(struct ar_topo *t) {
  if (!t || !t->thissystem) return 0;
  int n = cuda_count(), mapped = 0;
  for (int dev = 0; dev < n; dev++) {
    char busid[64];
    unsigned d, b, v, f;
    if (cuda_busid(dev, busid, (int)sizeof busid) || ar_topo_parse_busid(busid, &d, &b, &v, &f)) continue;
    int i = ar_topo_gpu_of_busid(t, busid);
    if (i < 0) { /* a CUDA device hwloc lists with another class: take it by bus id */
      hwloc_obj_t o = hwloc_get_pcidev_by_busid(t->h, d, b, v, f);
      if (!o || add_gpu(t, o)) continue;
      i = t->ngpus - 1;
    }
    t->gpus[i].cuda = dev;
    mapped++;
  }
  ar_topo_sort_gpus(t);
  return mapped;
}
