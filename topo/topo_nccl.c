/* topo_nccl.c — NCCL's own topology dump (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE, <system version="1">) as an
 * hwloc XML buffer, so the rest of topo/ reads it like an lstopo file: each <cpu> becomes a group with its
 * NUMA node and PUs (affinity) and one host bridge; nested <pci> become bridges, leaves PCI devices. */
#include "topo_int.h"
#include "ar.h"
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct conv {
  FILE *out;
  unsigned gp;  /* next gp_index */
  char *err;
  size_t errlen;
  const char *path;
};

static const char *attr(xmlNode *n, const char *name, char *buf, size_t len) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) return NULL;
  snprintf(buf, len, "%s", (const char *)v);
  xmlFree(v);
  return buf;
}

static bool is(xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* NCCL's affinity "0000,000fffff,ff000000,0fffffff": 32-bit hex words, most significant first. */
static int parse_affinity(const char *s, hwloc_bitmap_t b) {
  int words = 1;
  for (const char *p = s; *p; p++) words += *p == ',';
  int k = words - 1;
  for (const char *p = s; k >= 0; k--) {
    char *end;
    unsigned long w = strtoul(p, &end, 16);
    if (end == p || (*end && *end != ',') || w > 0xffffffffUL) return -1;
    for (int bit = 0; bit < 32; bit++)
      if (w >> bit & 1) hwloc_bitmap_set(b, (unsigned)(k * 32 + bit));
    p = *end ? end + 1 : end;
  }
  return hwloc_bitmap_iszero(b) ? -1 : 0;
}

/* GB/s of a link as hwloc computes it: GT/s x lanes x encoding / 8 (8b/10b up to 5 GT/s, 128b/130b up to
 * 32 GT/s, 242/256 FLIT at 64 GT/s); 0 when the speed or width is unknown (empty, 0). */
double ar_topo_nccl_link_gbs(const char *speed, const char *width) {
  double gts = speed ? strtod(speed, NULL) : 0;
  int lanes = width ? atoi(width) : 0;
  if (gts <= 0 || lanes <= 0) return 0;
  double enc = gts <= 5.0 ? 8.0 / 10 : gts <= 32.0 ? 128.0 / 130 : 242.0 / 256;
  return gts * lanes * enc / 8;
}

static bool has_child(xmlNode *n, const char *name) {
  for (xmlNode *c = n->children; c; c = c->next)
    if (is(c, name)) return true;
  return false;
}

static void indent(struct conv *c, int d) { fprintf(c->out, "%*s", 2 * d, ""); }

static int put_port(struct conv *c, xmlNode *n, int depth, int bdepth);

/* One <pci>: a bridge when it has <pci> children, else a device (a GPU when it has <gpu> or a display class). */
static int put_pci(struct conv *c, xmlNode *n, int depth, int bdepth) {
  char b[128], cl[32], v[32], d[32], sv[32], sd[32], sp[64], wd[16];
  unsigned dom, bus, dev, fn;
  if (!attr(n, "busid", b, sizeof b) || ar_topo_parse_busid(b, &dom, &bus, &dev, &fn)) {
    snprintf(c->err, c->errlen, "NCCL topology '%s': a <pci> node without a valid busid ('%s')", c->path,
             attr(n, "busid", b, sizeof b) ? b : "");
    return -AR_EINVAL;
  }
  unsigned long cls = attr(n, "class", cl, sizeof cl) ? strtoul(cl, NULL, 16) : 0;
  bool bridge = has_child(n, "pci");
  bool gpu = has_child(n, "gpu") || (cls >> 8) == 0x0300 || (cls >> 8) == 0x0302;
  if (bridge) cls = 0x060400;
  unsigned long vid = attr(n, "vendor", v, sizeof v) ? strtoul(v, NULL, 16) : 0;
  if (gpu && !vid) vid = 0x10de; /* NCCL lists NVIDIA GPUs only; some files leave the vendor out */
  unsigned long did = attr(n, "device", d, sizeof d) ? strtoul(d, NULL, 16) : 0;
  unsigned long svid = attr(n, "subsystem_vendor", sv, sizeof sv) ? strtoul(sv, NULL, 16) : 0;
  unsigned long sdid = attr(n, "subsystem_device", sd, sizeof sd) ? strtoul(sd, NULL, 16) : 0;
  double gbs = ar_topo_nccl_link_gbs(attr(n, "link_speed", sp, sizeof sp), attr(n, "link_width", wd, sizeof wd));
  indent(c, depth);
  if (bridge)
    fprintf(c->out, "<object type=\"Bridge\" gp_index=\"%u\" bridge_type=\"1-1\" depth=\"%d\" bridge_pci=\"%04x:[00-ff]\"",
            c->gp++, bdepth, dom);
  else
    fprintf(c->out, "<object type=\"PCIDev\" gp_index=\"%u\"", c->gp++);
  fprintf(c->out, " pci_busid=\"%04x:%02x:%02x.%01x\" pci_type=\"%04lx [%04lx:%04lx] [%04lx:%04lx] 00\"", dom, bus, dev,
          fn, (cls >> 8) & 0xffff, vid & 0xffff, did & 0xffff, svid & 0xffff, sdid & 0xffff);
  if (gbs > 0) fprintf(c->out, " pci_link_speed=\"%f\"", gbs);
  if (!bridge) {
    fprintf(c->out, "/>\n");
    return 0;
  }
  fprintf(c->out, ">\n");
  for (xmlNode *k = n->children; k; k = k->next)
    if (is(k, "pci")) {
      int rc = put_port(c, k, depth + 1, bdepth + 1);
      if (rc) return rc;
    }
  indent(c, depth);
  fprintf(c->out, "</object>\n");
  return 0;
}

/* NCCL leaves a switch's downstream ports out (a device is a child of the switch's upstream bridge); hwloc
 * has them, and the path classes count them (PIX: one port below the common switch). So each child of an
 * NCCL bridge gets a downstream port, named by the child's bus id, its link the child's. */
static int put_port(struct conv *c, xmlNode *n, int depth, int bdepth) {
  char b[128], sp[64], wd[16];
  unsigned dom, bus, dev, fn;
  if (!attr(n, "busid", b, sizeof b) || ar_topo_parse_busid(b, &dom, &bus, &dev, &fn)) return put_pci(c, n, depth, bdepth);
  double gbs = ar_topo_nccl_link_gbs(attr(n, "link_speed", sp, sizeof sp), attr(n, "link_width", wd, sizeof wd));
  indent(c, depth);
  fprintf(c->out, "<object type=\"Bridge\" gp_index=\"%u\" bridge_type=\"1-1\" depth=\"%d\" bridge_pci=\"%04x:[00-ff]\""
                  " pci_busid=\"%04x:%02x:%02x.%01x\" pci_type=\"0604 [0000:0000] [0000:0000] 00\"", c->gp++, bdepth, dom,
          dom, bus, dev, fn);
  if (gbs > 0) fprintf(c->out, " pci_link_speed=\"%f\"", gbs);
  fprintf(c->out, ">\n");
  int rc = put_pci(c, n, depth + 1, bdepth + 1);
  indent(c, depth);
  fprintf(c->out, "</object>\n");
  return rc;
}

static void put_sets(struct conv *c, hwloc_const_bitmap_t cpus, hwloc_const_bitmap_t nodes, bool allowed) {
  char *cs = NULL, *ns = NULL;
  hwloc_bitmap_asprintf(&cs, cpus);
  hwloc_bitmap_asprintf(&ns, nodes);
  fprintf(c->out, " cpuset=\"%s\" complete_cpuset=\"%s\"", cs, cs);
  if (allowed) fprintf(c->out, " allowed_cpuset=\"%s\"", cs);
  fprintf(c->out, " nodeset=\"%s\" complete_nodeset=\"%s\"", ns, ns);
  if (allowed) fprintf(c->out, " allowed_nodeset=\"%s\"", ns);
  free(cs);
  free(ns);
}

/* One <cpu>: a group (its PUs, its NUMA node) with a host bridge holding its <pci> subtrees. */
static int put_cpu(struct conv *c, xmlNode *n, int index, hwloc_const_bitmap_t cpus, int numa) {
  hwloc_bitmap_t ns = hwloc_bitmap_alloc();
  hwloc_bitmap_set(ns, (unsigned)numa);
  indent(c, 2);
  fprintf(c->out, "<object type=\"Group\" gp_index=\"%u\"", c->gp++);
  put_sets(c, cpus, ns, false);
  fprintf(c->out, ">\n");
  indent(c, 3);
  fprintf(c->out, "<object type=\"NUMANode\" os_index=\"%d\" gp_index=\"%u\"", numa, c->gp++);
  put_sets(c, cpus, ns, false);
  fprintf(c->out, " local_memory=\"0\"/>\n");
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  unsigned pu;
  hwloc_bitmap_foreach_begin(pu, cpus) {
    hwloc_bitmap_only(one, pu);
    indent(c, 3);
    fprintf(c->out, "<object type=\"Core\" os_index=\"%u\" gp_index=\"%u\"", pu, c->gp++);
    put_sets(c, one, ns, false);
    fprintf(c->out, ">\n");
    indent(c, 4);
    fprintf(c->out, "<object type=\"PU\" os_index=\"%u\" gp_index=\"%u\"", pu, c->gp++);
    put_sets(c, one, ns, false);
    fprintf(c->out, "/>\n");
    indent(c, 3);
    fprintf(c->out, "</object>\n");
  }
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_free(one);
  hwloc_bitmap_free(ns);
  int rc = 0;
  if (has_child(n, "pci")) {
    indent(c, 3);
    fprintf(c->out, "<object type=\"Bridge\" gp_index=\"%u\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[00-ff]\">\n",
            c->gp++);
    for (xmlNode *k = n->children; k && !rc; k = k->next)
      if (is(k, "pci")) rc = put_pci(c, k, 4, 1);
    indent(c, 3);
    fprintf(c->out, "</object>\n");
  }
  (void)index;
  indent(c, 2);
  fprintf(c->out, "</object>\n");
  return rc;
}

/* The <cpu> nodes' PU sets and NUMA ids; -AR_EINVAL naming the first bad one. */
static int read_cpus(struct conv *c, xmlNode *sys, hwloc_bitmap_t *sets, int *numa, int max, int *n,
                     hwloc_bitmap_t all, hwloc_bitmap_t nodes) {
  char buf[1024];
  *n = 0;
  for (xmlNode *k = sys->children; k; k = k->next) {
    if (!is(k, "cpu")) continue;
    if (*n == max) {
      snprintf(c->err, c->errlen, "NCCL topology '%s': more than %d <cpu> nodes", c->path, max);
      return -AR_EINVAL;
    }
    int i = (*n)++;
    sets[i] = hwloc_bitmap_alloc();
    const char *aff = attr(k, "affinity", buf, sizeof buf);
    if (!aff || parse_affinity(aff, sets[i])) {
      snprintf(c->err, c->errlen, "NCCL topology '%s': <cpu> %d has no valid affinity ('%s'; expected hex "
               "words like 0000,ffffffff)", c->path, i, aff ? aff : "");
      return -AR_EINVAL;
    }
    if (hwloc_bitmap_intersects(all, sets[i])) {
      snprintf(c->err, c->errlen, "NCCL topology '%s': <cpu> %d shares CPUs with another <cpu>", c->path, i);
      return -AR_EINVAL;
    }
    hwloc_bitmap_or(all, all, sets[i]);
    char *end;
    const char *id = attr(k, "numaid", buf, sizeof buf);
    long v = id ? strtol(id, &end, 10) : -1;
    if (!id || *end || v < 0 || v > 4095 || hwloc_bitmap_isset(nodes, (unsigned)v)) {
      snprintf(c->err, c->errlen, "NCCL topology '%s': <cpu> %d has no valid, distinct numaid ('%s')", c->path, i,
               id ? id : "");
      return -AR_EINVAL;
    }
    numa[i] = (int)v;
    hwloc_bitmap_set(nodes, (unsigned)v);
  }
  if (!*n) {
    snprintf(c->err, c->errlen, "NCCL topology '%s': no <cpu> node under <system>", c->path);
    return -AR_EINVAL;
  }
  return 0;
}

#define AR_NCCL_MAXCPU 64

int ar_topo_nccl_to_hwloc(const char *path, const char *text, size_t ntext, char **xml, size_t *len, char *err,
                          size_t errlen) {
  *xml = NULL;
  *len = 0;
  if (ntext > (size_t)INT_MAX) { /* libxml2 takes an int size */
    snprintf(err, errlen, "'%s' is larger than any NCCL topology dump arbench reads (at most 2 GiB)", path);
    return -AR_EINVAL;
  }
  /* from the text read once (bench/infile.c: up to the size the file had when checked), never by name again */
  xmlDoc *doc = xmlReadMemory(text, (int)ntext, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  xmlNode *sys = doc ? xmlDocGetRootElement(doc) : NULL;
  if (!sys || !is(sys, "system")) {
    snprintf(err, errlen, "'%s' is not a well-formed NCCL topology file (malformed XML or no <system> root)", path);
    if (doc) xmlFreeDoc(doc);
    return -AR_EINVAL;
  }
  struct conv c = {.gp = 1, .err = err, .errlen = errlen, .path = path};
  hwloc_bitmap_t sets[AR_NCCL_MAXCPU] = {0}, all = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
  int numa[AR_NCCL_MAXCPU], n = 0;
  int rc = read_cpus(&c, sys, sets, numa, AR_NCCL_MAXCPU, &n, all, nodes);
  c.out = rc ? NULL : open_memstream(xml, len);
  if (!rc && !c.out) {
    snprintf(err, errlen, "out of memory converting NCCL topology '%s'", path);
    rc = -AR_ERUNTIME;
  }
  if (!rc) {
    fprintf(c.out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
                   "<topology version=\"2.0\">\n  <object type=\"Machine\" os_index=\"0\" gp_index=\"%u\"", c.gp++);
    put_sets(&c, all, nodes, true);
    fprintf(c.out, ">\n    <info name=\"Backend\" value=\"NCCL topology dump\"/>\n");
    int i = 0;
    for (xmlNode *k = sys->children; k && !rc; k = k->next)
      if (is(k, "cpu")) {
        rc = put_cpu(&c, k, i, sets[i], numa[i]);
        i++;
      }
    fprintf(c.out, "  </object>\n</topology>\n");
    fclose(c.out);
  }
  for (int i = 0; i < n; i++) hwloc_bitmap_free(sets[i]);
  hwloc_bitmap_free(all);
  hwloc_bitmap_free(nodes);
  xmlFreeDoc(doc);
  if (rc) {
    free(*xml);
    *xml = NULL;
    *len = 0;
  }
  return rc;
}
