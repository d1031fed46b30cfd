/* pci.c — doctor's PCI checks from sysfs under a root: the GPUs and the bridges above them, link speed and
 * width (current vs maximum), ACS P2P redirect bits (config space), IOMMU mode, each GPU's NUMA node. */
#include "doctor/doctor.h"
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define G "PCI"

static int is_bdf(const char *s) {
  unsigned a, b, c, f;
  char tail;
  return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &f, &tail) == 4;
}

static unsigned hex_file(const struct ar_doc *d, const char *bdf, const char *name) {
  char p[256], v[64];
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/%s", bdf, name);
  return ar_doc_read(d, p, v, sizeof v) ? 0 : (unsigned)strtoul(v, NULL, 16);
}

/* The bridges above a device: bus ids in its resolved sysfs path, nearest first. */
static void fill_up(const struct ar_doc *d, struct ar_doc_gpu *g) {
  char p[PATH_MAX], real[PATH_MAX], *save = NULL, *comp[64];
  int nc = 0;
  ar_doc_path(d, p, sizeof p, "/sys/bus/pci/devices/%s", g->bdf);
  g->nup = 0;
  if (!realpath(p, real)) return;
  for (char *t = strtok_r(real, "/", &save); t && nc < 64; t = strtok_r(NULL, "/", &save))
    if (is_bdf(t)) comp[nc++] = t;
  for (int i = nc - 2; i >= 0 && g->nup < AR_DOC_MAXUP; i--) snprintf(g->up[g->nup++], 16, "%s", comp[i]);
}

static int by_bdf(const void *a, const void *b) {
  return strcmp(((const struct ar_doc_gpu *)a)->bdf, ((const struct ar_doc_gpu *)b)->bdf);
}

int ar_doc_gpus(const struct ar_doc *d, struct ar_doc_gpu *g, int max) {
  char p[PATH_MAX];
  ar_doc_path(d, p, sizeof p, "/sys/bus/pci/devices");
  DIR *dir = opendir(p);
  int n = 0;
  if (!dir) return 0;
  for (struct dirent *e; (e = readdir(dir)) && n < max;) {
    if (!is_bdf(e->d_name)) continue;
    unsigned cls = hex_file(d, e->d_name, "class") >> 8;
    if (hex_file(d, e->d_name, "vendor") != 0x10de || (cls != 0x0300 && cls != 0x0302)) continue;
    snprintf(g[n].bdf, sizeof g[n].bdf, "%s", e->d_name);
    g[n].device = hex_file(d, e->d_name, "device");
    fill_up(d, &g[n]);
    n++;
  }
  closedir(dir);
  qsort(g, (size_t)n, sizeof *g, by_bdf);
  return n;
}

/* ---- link speed and width ---- */

static void check_link(struct ar_doc *d, const char *what, const char *bdf) {
  char p[256], cs[64], ms[64], cw[32], mw[32];
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/current_link_speed", bdf);
  int rc = ar_doc_read(d, p, cs, sizeof cs);
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/max_link_speed", bdf);
  rc |= ar_doc_read(d, p, ms, sizeof ms);
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/current_link_width", bdf);
  rc |= ar_doc_read(d, p, cw, sizeof cw);
  snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/max_link_width", bdf);
  rc |= ar_doc_read(d, p, mw, sizeof mw);
  if (rc) {
    ar_doc_add(d, G, "link", AR_D_SKIP, "", "%s %s: no link speed/width in sysfs", what, bdf);
    return;
  }
  double c = atof(cs), m = atof(ms);
  int w = atoi(cw), mx = atoi(mw);
  if (w < mx)
    ar_doc_add(d, G, "link", AR_D_WARN,
               "reseat the card, check the riser/cable and the slot's bifurcation setting in the BIOS: the link "
               "caps every transfer of this GPU", "%s %s: trained at x%d of x%d (%.1f GT/s)", what, bdf, w, mx, c);
  if (c < m)
    ar_doc_add(d, G, "link", AR_D_WARN,
               "links train down when idle: re-check under load (nvidia-smi -q -d PCIE while arbench runs); if it "
               "stays low, set the slot's PCIe generation in the BIOS or check the riser",
               "%s %s: running at %.1f GT/s of %.1f GT/s (x%d)", what, bdf, c, m, w);
  if (w >= mx && c >= m)
    ar_doc_add(d, G, "link", AR_D_OK, "", "%s %s: %.1f GT/s x%d (its maximum)", what, bdf, c, w);
}

/* ---- ACS ---- */

static void check_acs(struct ar_doc *d, const char *bdf, const char *gpu) {
  char p[PATH_MAX];
  unsigned char cfg[4096];
  ar_doc_path(d, p, sizeof p, "/sys/bus/pci/devices/%s/config", bdf);
  FILE *f = fopen(p, "rb");
  size_t len = f ? fread(cfg, 1, sizeof cfg, f) : 0;
  if (f) fclose(f);
  if (len < 0x108) {
    ar_doc_add(d, G, "ACS", AR_D_SKIP, "run as root to read extended config space",
               "bridge %s: config space beyond 256 bytes not readable (%zu bytes)", bdf, len);
    return;
  }
  for (unsigned off = 0x100, hops = 0; off >= 0x100 && off + 8 <= len && hops < 64; hops++) {
    unsigned hdr = cfg[off] | cfg[off + 1] << 8 | cfg[off + 2] << 16 | (unsigned)cfg[off + 3] << 24;
    if (!hdr) break;
    if ((hdr & 0xffff) == 0x000d) {
      unsigned ctl = cfg[off + 6] | cfg[off + 7] << 8;
      if (ctl & 0x000c)
        ar_doc_add(d, G, "ACS", AR_D_WARN,
                   "P2P below this bridge detours through the root complex (published: P2P 50 -> 103 GB/s "
                   "bidirectional once ACS is off); disable ACS in the BIOS, or `setpci -s BDF ECAP_ACS+6.w=0000` "
                   "(until reboot; only where isolation between devices is not needed)",
                   "bridge %s (above GPU %s): ACS P2P redirect on (control 0x%04x:%s%s)", bdf, gpu, ctl,
                   ctl & 4 ? " request-redirect" : "", ctl & 8 ? " completion-redirect" : "");
      else
        ar_doc_add(d, G, "ACS", AR_D_OK, "", "bridge %s: ACS present, P2P not redirected (control 0x%04x)", bdf, ctl);
      return;
    }
    off = hdr >> 20 & 0xffc;
  }
  ar_doc_add(d, G, "ACS", AR_D_OK, "", "bridge %s: no ACS capability (P2P not redirected)", bdf);
}

/* ---- IOMMU ---- */

static int count_dir(const struct ar_doc *d, const char *rel, const char *prefix) {
  char p[PATH_MAX];
  ar_doc_path(d, p, sizeof p, "%s", rel);
  DIR *dir = opendir(p);
  int n = 0;
  if (!dir) return -1;
  for (struct dirent *e; (e = readdir(dir));)
    n += e->d_name[0] != '.' && !strncmp(e->d_name, prefix, strlen(prefix));
  closedir(dir);
  return n;
}

static void check_iommu(struct ar_doc *d, const struct ar_doc_gpu *g, int n) {
  char cmd[1024] = "", p[PATH_MAX], link[PATH_MAX], type[64];
  ar_doc_read(d, "/proc/cmdline", cmd, sizeof cmd);
  if (count_dir(d, "/sys/class/iommu", "") <= 0) {
    ar_doc_add(d, G, "IOMMU", AR_D_OK, "", "no IOMMU enabled (sys/class/iommu empty); kernel command line: %s",
               *cmd ? cmd : "(unreadable)");
    return;
  }
  for (int i = 0; i < n; i++) {
    ar_doc_path(d, p, sizeof p, "/sys/bus/pci/devices/%s/iommu_group", g[i].bdf);
    ssize_t k = readlink(p, link, sizeof link - 1);
    if (k <= 0) {
      ar_doc_add(d, G, "IOMMU", AR_D_SKIP, "", "GPU %s: no iommu_group link", g[i].bdf);
      continue;
    }
    link[k] = 0;
    const char *grp = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
    snprintf(p, sizeof p, "/sys/kernel/iommu_groups/%.64s/type", grp);
    if (ar_doc_read(d, p, type, sizeof type))
      ar_doc_add(d, G, "IOMMU", AR_D_SKIP, "", "GPU %s: IOMMU group %s has no type file (kernel < 5.11)", g[i].bdf, grp);
    else if (!strcmp(type, "identity"))
      ar_doc_add(d, G, "IOMMU", AR_D_OK, "", "GPU %s: IOMMU group %s in passthrough (identity)", g[i].bdf, grp);
    else
      ar_doc_add(d, G, "IOMMU", AR_D_WARN,
                 "boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt) so GPU DMA and P2P skip "
                 "translation", "GPU %s: IOMMU translates its DMA (group %s, type %s); kernel command line: %s",
                 g[i].bdf, grp, type, *cmd ? cmd : "(unreadable)");
  }
}

/* ---- NUMA ---- */

static void check_numa(struct ar_doc *d, const struct ar_doc_gpu *g, int n) {
  int nodes = count_dir(d, "/sys/devices/system/node", "node");
  for (int i = 0; i < n; i++) {
    char p[256], node[32], cpus[256] = "";
    snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/numa_node", g[i].bdf);
    int rc = ar_doc_read(d, p, node, sizeof node);
    snprintf(p, sizeof p, "/sys/bus/pci/devices/%s/local_cpulist", g[i].bdf);
    ar_doc_read(d, p, cpus, sizeof cpus);
    if (rc)
      ar_doc_add(d, G, "NUMA", AR_D_SKIP, "", "GPU %s: no numa_node in sysfs", g[i].bdf);
    else if (atoi(node) < 0 && nodes > 1)
      ar_doc_add(d, G, "NUMA", AR_D_WARN,
                 "ranks cannot be placed next to this GPU: enable NUMA reporting (ACPI SRAT) in the BIOS, or bind "
                 "by hand (mpirun --bind-to) to the socket the GPU hangs from",
                 "GPU %s: firmware reports no NUMA node on a %d-node machine (local CPUs %s)", g[i].bdf, nodes,
                 *cpus ? cpus : "?");
    else
      ar_doc_add(d, G, "NUMA", AR_D_OK, "", "GPU %s: NUMA node %s, local CPUs %s (arbench run binds its rank there)",
                 g[i].bdf, node, *cpus ? cpus : "?");
  }
}

void ar_doctor_pci(struct ar_doc *d, const struct ar_doc_gpu *g, int n) {
  char seen[256][16];
  int nseen = 0;
  if (!n) {
    ar_doc_add(d, G, "GPUs", AR_D_SKIP, "", "no NVIDIA GPU under %s/sys/bus/pci/devices: PCI checks skipped",
               *d->root ? d->root : "");
    return;
  }
  for (int i = 0; i < n; i++) check_link(d, "GPU", g[i].bdf);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < g[i].nup; k++) {
      int dup = 0;
      for (int s = 0; s < nseen; s++) dup |= !strcmp(seen[s], g[i].up[k]);
      if (dup || nseen >= 256) continue;
      snprintf(seen[nseen++], 16, "%s", g[i].up[k]);
      check_link(d, "bridge", g[i].up[k]);
      check_acs(d, g[i].up[k], g[i].bdf);
    }
  check_iommu(d, g, n);
  check_numa(d, g, n);
  ar_doctor_persistence(d, g, n);
}
