/* model.c — the cost model: the GPUs' PCIe link graph (directed links, each GPU pair's path), max-min
 * fair sharing of concurrent transfers, and the time of each allreduce algorithm as fixed + bytes x cost. */
#include "model/model.h"
#include "ar.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AR_MLINKS 16 /* links above one GPU, at most */
#define AR_MPATH (2 * AR_MLINKS + 1)

static const char *const algo_names[AR_M_NALGO] = {
  "nccl-ring-ll", "nccl-ring-simple", "nccl-tree-ll", "nccl-tree-simple",
  "oneshot-pull", "oneshot-push", "twoshot-flat", "twoshot-staged", "islands"};

const char *ar_malgo_name(enum ar_malgo a) { return a < AR_M_NALGO ? algo_names[a] : "?"; }

int ar_malgo_parse(const char *s) {
  for (int a = 0; a < AR_M_NALGO; a++)
    if (!strcmp(s, algo_names[a])) return a;
  return -1;
}

int ar_malgo_is_nccl(enum ar_malgo a) { return a <= AR_M_TREE_SIMPLE; }

/* One algorithm's cost on this graph under one parameter set, computed once and read for every size. */
struct mcost {
  int valid;
  struct ar_mparams p; /* the parameters it was computed with */
  double fx, ov, pb;
};

struct ar_mgraph {
  int n, nlink, maxlink, nisland;
  unsigned long long *key; /* link identity: hwloc id << 1 | direction, or a socket pair */
  double *cap;             /* GB/s, per direction */
  double *raw;             /* a PCIe link's speed as hwloc reads it (GB/s, before efficiency); < 0: a socket link */
  int *slot, nslot;        /* open-addressing index of key: link + 1, 0 = empty (nslot a power of 2) */
  int *plen, *path;        /* path of pair a*n+b: plen[a*n+b] links at path[(a*n+b)*AR_MPATH] */
  int *nup, *up, *down;    /* GPU i's links toward its CPU (nup[i] at up[i*AR_MLINKS]) and back down (down) */
  int *hsock;              /* ring hop i -> i+1 through host memory: the socket link it crosses, or -1 */
  enum ar_path *cls;
  int *island;
  struct mcost *cost;      /* AR_M_NALGO entries: the memo behind ar_model_time */
};

int ar_mgraph_n(const struct ar_mgraph *g) { return g->n; }
enum ar_path ar_mgraph_class(const struct ar_mgraph *g, int a, int b) { return g->cls[a * g->n + b]; }

int ar_mgraph_islands(const struct ar_mgraph *g, int *island) {
  if (island) memcpy(island, g->island, sizeof(int) * (size_t)g->n);
  return g->nisland;
}

void ar_mgraph_free(struct ar_mgraph *g) {
  if (!g) return;
  free(g->key);
  free(g->cap);
  free(g->slot);
  free(g->cost);
  free(g->plen);
  free(g->path);
  free(g->raw);
  free(g->nup);
  free(g->up);
  free(g->down);
  free(g->hsock);
  free(g->cls);
  free(g->island);
  free(g);
}

double ar_model_link_eff(const struct ar_mparams *p, double gbs, const char **knob) {
  if (knob) *knob = gbs >= 50 ? "eff_gen5" : gbs >= 25 ? "eff_gen4" : "eff_gen3";
  return gbs >= 50 ? p->eff_gen5 : gbs >= 25 ? p->eff_gen4 : p->eff_gen3;
}

double ar_model_socket_gbs(const struct ar_mparams *p, const struct ar_topo *t) {
  if (p->socket_gbs > 0) return p->socket_gbs;
  const char *v = ar_topo_cpu_vendor(t);
  return !strcmp(v, "GenuineIntel") ? p->socket_gbs_intel : !strcmp(v, "AuthenticAMD") ? p->socket_gbs_amd
                                                                                        : p->socket_gbs_other;
}

static size_t slot_of(unsigned long long key, int nslot) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)(key & (unsigned long long)(nslot - 1));
}

/* Index of link key, added with capacity cap (and speed raw) when new; -1 when out of memory. */
static int link_of(struct ar_mgraph *g, unsigned long long key, double cap, double raw) {
  size_t h = slot_of(key, g->nslot);
  for (; g->slot[h]; h = (h + 1) & (size_t)(g->nslot - 1))
    if (g->key[g->slot[h] - 1] == key) return g->slot[h] - 1;
  if (g->nlink == g->maxlink || 2 * (g->nlink + 1) > g->nslot) return -1; /* sized by the caller */
  g->key[g->nlink] = key;
  g->cap[g->nlink] = cap;
  g->raw[g->nlink] = raw;
  g->slot[h] = g->nlink + 1;
  return g->nlink++;
}

static int in_chain(const struct ar_topo_link *c, int n, unsigned long long id) {
  for (int i = 0; i < n; i++)
    if (c[i].id == id) return 1;
  return 0;
}

/* Append to path: a's links not shared with b (dir). A bridge link of unknown speed counts as the GPU's. */
static int add_side(struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_topo_link *la, int na,
                    const struct ar_topo_link *lb, int nb, int dir, int *path, int *len) {
  for (int i = 0; i < na; i++) {
    double gbs = la[i].gbs > 0 ? la[i].gbs : la[0].gbs;
    if (in_chain(lb, nb, la[i].id)) continue;
    int l = link_of(g, la[i].id << 1 | (unsigned)dir, gbs * ar_model_link_eff(p, gbs, NULL), gbs);
    if (l < 0) return -1;
    path[(*len)++] = l;
  }
  return 0;
}

/* The links above every GPU, read from the topology once. */
struct chains {
  struct ar_topo_link (*l)[AR_MLINKS];
  int *n;
};

static int build_pair(struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p,
                      const struct chains *c, int a, int b, double sock) {
  const struct ar_topo_link *la = c->l[a], *lb = c->l[b];
  int na = c->n[a], nb = c->n[b];
  int *path = &g->path[(a * g->n + b) * AR_MPATH], len = 0;
  g->cls[a * g->n + b] = ar_topo_path(t, a, b, NULL, NULL);
  if (a == b) {
    g->plen[a * g->n + b] = 0;
    return 0;
  }
  if (add_side(g, p, la, na, lb, nb, 0, path, &len)) return -1;
  int pa = ar_topo_gpu(t, a)->package, pb = ar_topo_gpu(t, b)->package;
  if (g->cls[a * g->n + b] == AR_PATH_SYS && pa != pb && pa >= 0 && pb >= 0) {
    int l = link_of(g, 1ULL << 62 | (unsigned long long)pa << 16 | (unsigned long long)pb, sock, -1);
    if (l < 0) return -1;
    path[len++] = l;
  }
  if (add_side(g, p, lb, nb, la, na, 1, path, &len)) return -1;
  g->plen[a * g->n + b] = len;
  return 0;
}

/* GPU i's links up to its CPU and down from it, and the socket link the ring's hop i -> i+1 crosses when it runs
 * through host memory: NCCL's SHM buffer is on the receiver's side (shm.cc NCCL_SHM_LOCALITY, default 2), so the
 * sender's stores cross the socket link and the receiver's loads stay on its own. */
static int build_host(struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p,
                      const struct chains *c, double sock) {
  for (int i = 0; i < g->n; i++) {
    int nu = 0, nd = 0;
    if (add_side(g, p, c->l[i], c->n[i], NULL, 0, 0, &g->up[i * AR_MLINKS], &nu) ||
        add_side(g, p, c->l[i], c->n[i], NULL, 0, 1, &g->down[i * AR_MLINKS], &nd))
      return -1;
    g->nup[i] = nu;
    int j = (i + 1) % g->n, pa = ar_topo_gpu(t, i)->package, pb = ar_topo_gpu(t, j)->package;
    g->hsock[i] = -1;
    if (pa != pb && pa >= 0 && pb >= 0 &&
        (g->hsock[i] = link_of(g, 1ULL << 62 | (unsigned long long)pa << 16 | (unsigned long long)pb, sock, -1)) < 0)
      return -1;
  }
  return 0;
}

static void build_islands(struct ar_mgraph *g, const struct ar_topo *t) {
  int pk[256], np = 0;
  for (int i = 0; i < g->n; i++) {
    int k = ar_topo_gpu(t, i)->package, j = 0;
    while (j < np && pk[j] != k) j++;
    if (j == np && np < 256) pk[np++] = k;
    g->island[i] = j;
  }
  g->nisland = np;
}

int ar_mgraph_build(struct ar_mgraph **out, const struct ar_topo *t, int n, const struct ar_mparams *p, char *err,
                    size_t len) {
  int have = ar_topo_ngpus(t);
  if (have < 2) {
    snprintf(err, len, "the topology has %d NVIDIA GPU%s; the model needs 2 or more", have, have == 1 ? "" : "s");
    return -AR_EINVAL;
  }
  if (n < 2 || n > have) {
    snprintf(err, len, "--np %d: the topology has %d GPUs (allowed: 2..%d)", n, have, have);
    return -AR_EINVAL;
  }
  for (int i = 0; i < n; i++)
    if (!(ar_topo_gpu(t, i)->link_gbs > 0)) {
      snprintf(err, len, "GPU %s: no PCIe link speed in the topology (hwloc XML without pci_link_speed?); "
               "the model needs the GPUs' link speeds", ar_topo_gpu(t, i)->busid);
      return -AR_EINVAL;
    }
  struct ar_mgraph *g = calloc(1, sizeof *g);
  size_t np = (size_t)n * (size_t)n;
  if (!g) return -AR_ERUNTIME;
  g->n = n;
  /* Distinct links: at most the links above each GPU, both directions, plus the socket pairs. */
  g->maxlink = 2 * AR_MLINKS * n + 256 * 256;
  for (g->nslot = 1; g->nslot < 2 * g->maxlink; g->nslot <<= 1) {
  }
  g->key = calloc((size_t)g->maxlink, sizeof *g->key);
  g->cap = calloc((size_t)g->maxlink, sizeof *g->cap);
  g->raw = calloc((size_t)g->maxlink, sizeof *g->raw);
  g->slot = calloc((size_t)g->nslot, sizeof *g->slot);
  g->plen = calloc(np, sizeof *g->plen);
  g->path = calloc(np * AR_MPATH, sizeof *g->path);
  g->cls = calloc(np, sizeof *g->cls);
  g->nup = calloc((size_t)n, sizeof *g->nup);
  g->up = calloc((size_t)n * AR_MLINKS, sizeof *g->up);
  g->down = calloc((size_t)n * AR_MLINKS, sizeof *g->down);
  g->hsock = calloc((size_t)n, sizeof *g->hsock);
  g->island = calloc((size_t)n, sizeof *g->island);
  g->cost = calloc(AR_M_NALGO, sizeof *g->cost);
  struct chains c = {malloc(sizeof *c.l * (size_t)n), calloc((size_t)n, sizeof *c.n)};
  int rc = !g->key || !g->cap || !g->raw || !g->slot || !g->plen || !g->path || !g->cls || !g->island || !g->cost || !c.l ||
           !c.n || !g->nup || !g->up || !g->down || !g->hsock;
  for (int i = 0; !rc && i < n; i++) c.n[i] = ar_topo_gpu_links(t, i, c.l[i], AR_MLINKS);
  double sock = ar_model_socket_gbs(p, t);
  for (int a = 0; a < n && !rc; a++)
    for (int b = 0; b < n && !rc; b++) rc = build_pair(g, t, p, &c, a, b, sock);
  if (!rc) rc = build_host(g, t, p, &c, sock);
  free(c.l);
  free(c.n);
  if (rc) {
    ar_mgraph_free(g);
    snprintf(err, len, "out of memory for the link graph of %d GPUs", n);
    return -AR_ERUNTIME;
  }
  build_islands(g, t);
  *out = g;
  return 0;
}

/* ---- max-min fair sharing (progressive filling) ---- */

/* Links in a binary min-heap by their fair share rem / cnt. A link's share only grows as flows are frozen
 * (each frozen flow takes the smallest share), so a stale entry is re-keyed when it reaches the top. */
struct heap {
  int n, *l;
  double *k;
};

static void heap_push(struct heap *h, int l, double k) {
  int i = h->n++;
  for (; i > 0 && h->k[(i - 1) / 2] > k; i = (i - 1) / 2) {
    h->k[i] = h->k[(i - 1) / 2];
    h->l[i] = h->l[(i - 1) / 2];
  }
  h->k[i] = k;
  h->l[i] = l;
}

static int heap_pop(struct heap *h, double *key) {
  int top = h->l[0], i = 0, l = h->l[--h->n];
  double k = h->k[h->n];
  *key = h->k[0];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->k[c + 1] < h->k[c]) c++;
    if (h->k[c] >= k) break;
    h->k[i] = h->k[c];
    h->l[i] = h->l[c];
    i = c;
  }
  if (h->n) {
    h->k[i] = k;
    h->l[i] = l;
  }
  return top;
}

/* Progressive filling: the link with the smallest fair share freezes its flows at that share, which
 * leaves the other links on their paths; the flows of each link are listed once (CSR), so the work is
 * the paths' total length times log(links). */
static void maxmin_paths(const struct ar_mgraph *g, int nf, const int *const *fp, const int *fl, double *rate) {
  int L = g->nlink;
  double *rem = malloc(sizeof(double) * (size_t)(L + 1));
  int *cnt = calloc((size_t)L + 1, sizeof(int)), *start = calloc((size_t)L + 2, sizeof(int));
  char *done = calloc((size_t)nf + 1, 1);
  struct heap h = {0, malloc(sizeof(int) * (size_t)(L + 1)), malloc(sizeof(double) * (size_t)(L + 1))};
  int *list = NULL;
  for (int f = 0; f < nf; f++) rate[f] = INFINITY;
  if (!rem || !cnt || !start || !done || !h.l || !h.k) goto out;
  memcpy(rem, g->cap, sizeof(double) * (size_t)L);
  size_t total = 0;
  for (int f = 0; f < nf; f++) {
    for (int k = 0; k < fl[f]; k++) start[fp[f][k] + 1]++;
    total += (size_t)fl[f];
  }
  for (int l = 0; l < L; l++) start[l + 1] += start[l];
  if (!(list = malloc(sizeof(int) * (total + 1)))) goto out;
  for (int f = 0; f < nf; f++)
    for (int k = 0; k < fl[f]; k++) {
      int l = fp[f][k];
      list[start[l] + cnt[l]++] = f;
    }
  for (int l = 0; l < L; l++)
    if (cnt[l] > 0) heap_push(&h, l, rem[l] / cnt[l]);
  while (h.n) {
    double key;
    int bl = heap_pop(&h, &key);
    if (cnt[bl] <= 0) continue; /* every flow on it is frozen */
    double share = rem[bl] / cnt[bl];
    if (share > key) { /* its share grew since it was keyed */
      heap_push(&h, bl, share);
      continue;
    }
    for (int i = start[bl]; i < start[bl + 1]; i++) {
      int f = list[i];
      if (done[f]) continue;
      done[f] = 1;
      rate[f] = share;
      for (int k = 0; k < fl[f]; k++) {
        rem[fp[f][k]] -= share;
        cnt[fp[f][k]]--;
      }
    }
  }
out:
  free(rem);
  free(cnt);
  free(start);
  free(done);
  free(list);
  free(h.l);
  free(h.k);
}

void ar_mgraph_maxmin(const struct ar_mgraph *g, int nf, const int *src, const int *dst, double *rate) {
  const int **fp = malloc(sizeof *fp * ((size_t)nf + 1));
  int *fl = malloc(sizeof *fl * ((size_t)nf + 1));
  for (int f = 0; f < nf; f++) rate[f] = INFINITY;
  if (fp && fl) {
    for (int f = 0; f < nf; f++) {
      int pr = src[f] * g->n + dst[f];
      fp[f] = &g->path[pr * AR_MPATH];
      fl[f] = g->plen[pr];
    }
    maxmin_paths(g, nf, fp, fl, rate);
  }
  free(fp);
  free(fl);
}

/* The links of the ring's hop r -> r+1 (their count; *links: the pair's P2P path, or buf, AR_MPATH long) and *up: -1
 * for P2P, or, through host memory, how many of them carry the sender's stores (its links up, the socket link when the
 * hop crosses) before the receiver's loads (its links down). */
static int hop_links(const struct ar_mgraph *g, int r, enum ar_path level, int *buf, const int **links, int *up) {
  int n = g->n, d = (r + 1) % n, pr = r * n + d, len = 0;
  *up = -1;
  *links = &g->path[pr * AR_MPATH];
  if (g->cls[pr] <= level) return g->plen[pr];
  for (int k = 0; k < g->nup[r]; k++) buf[len++] = g->up[r * AR_MLINKS + k];
  if (g->hsock[r] >= 0) buf[len++] = g->hsock[r];
  *up = len;
  for (int k = 0; k < g->nup[d]; k++) buf[len++] = g->down[d * AR_MLINKS + k];
  *links = buf;
  return len;
}

double ar_mgraph_ring_nccl_gbs(const struct ar_mgraph *g, enum ar_path level, int intel, double socket_gbs,
                               int *overhead) {
  int n = g->n, buf[AR_MPATH];
  double *use = calloc((size_t)g->nlink + 1, sizeof *use), ring = INFINITY;
  if (!use) return NAN;
  for (int r = 0; r < n; r++) {
    const int *l;
    int up, len = hop_links(g, r, level, buf, &l, &up), host = up >= 0;
    enum ar_path c = g->cls[r * n + (r + 1) % n];
    /* NCCL's type of the hop: P2P keeps the pair's (arbench's PHB and NODE are its PHB); through the CPU it is PHB
     * within a NUMA node's CPU, SYS across them (arbench's SYS) (followPath: INTEL_P2P_OVERHEAD on a PHB hop's PCI links
     * through an Intel CPU). The ring is GPU i -> i+1 in PCI bus order, which keeps the GPUs under a switch together. */
    int phb = host ? c != AR_PATH_SYS : c == AR_PATH_PHB || c == AR_PATH_NODE;
    for (int k = 0; k < len; k++) use[l[k]] += g->raw[l[k]] < 0 ? 1.0 : intel && phb ? 1.2 : 1.0;
    if (intel && phb && overhead) *overhead = 1;
  }
  for (int k = 0; k < g->nlink; k++)
    if (use[k] > 0) ring = fmin(ring, (g->raw[k] < 0 ? socket_gbs : g->raw[k] * 48.0 / 63.015384) / use[k]);
  free(use);
  return ring;
}

double ar_mgraph_ring_host_gbs(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_path level) {
  int n = g->n, nf = 0;
  const int **fp = calloc(2 * (size_t)n + 1, sizeof *fp);
  int *fl = calloc(2 * (size_t)n + 1, sizeof *fl), *kind = malloc(sizeof *kind * (2 * (size_t)n + 1));
  int *w = malloc(sizeof *w * (size_t)n * AR_MPATH); /* each hop's links through host memory */
  double *rate = malloc(sizeof *rate * (2 * (size_t)n + 1)), m = NAN;
  if (!fp || !fl || !kind || !w || !rate) goto out;
  for (int r = 0; r < n; r++) {
    const int *l;
    int up, len = hop_links(g, r, level, &w[r * AR_MPATH], &l, &up);
    fp[nf] = l; /* P2P: the pair's own path; else the sender's stores into host memory */
    fl[nf] = up < 0 ? len : up;
    kind[nf++] = 0;
    if (up < 0) continue;
    fp[nf] = l + up; /* the receiver's loads from it */
    fl[nf] = len - up;
    kind[nf++] = 1;
  }
  maxmin_paths(g, nf, fp, fl, rate);
  m = INFINITY;
  for (int f = 0; f < nf; f++) m = fmin(m, rate[f] * (kind[f] ? p->read_eff : 1.0));
out:
  free(fp);
  free(fl);
  free(kind);
  free(w);
  free(rate);
  return m;
}

/* ---- flow sets of the algorithms: slowest rate (GB/s) and largest hop latency (us) ---- */

struct flows {
  int n, cap, *src, *dst; /* cap < 0: out of memory (the cost is then NaN, never a silent subset) */
};

static void add_flow(struct flows *f, int s, int d) {
  if (s == d || f->cap < 0) return;
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 64;
    int *ns = realloc(f->src, sizeof(int) * (size_t)cap), *nd = ns ? realloc(f->dst, sizeof(int) * (size_t)cap) : NULL;
    if (ns) f->src = ns;
    if (!ns || !nd) {
      f->cap = -1;
      return;
    }
    f->dst = nd;
    f->cap = cap;
  }
  f->src[f->n] = s;
  f->dst[f->n++] = d;
}

static void flows_free(struct flows *f) {
  free(f->src);
  free(f->dst);
  memset(f, 0, sizeof *f);
}

static double min_rate(const struct ar_mgraph *g, const struct flows *f) {
  if (f->cap < 0) return NAN;
  double *r = malloc(sizeof(double) * ((size_t)f->n + 1)), m = INFINITY;
  if (!r) return NAN;
  ar_mgraph_maxmin(g, f->n, f->src, f->dst, r);
  for (int k = 0; k < f->n; k++) m = fmin(m, r[k]);
  free(r);
  return m;
}

static double max_hop(const struct ar_mgraph *g, const struct ar_mparams *p, const struct flows *f) {
  double m = 0;
  for (int k = 0; k < f->n; k++) m = fmax(m, p->hop_us[ar_mgraph_class(g, f->src[k], f->dst[k])]);
  return m;
}

/* us per byte when every flow of f carries `share` bytes per byte of the message, at efficiency eff. */
static double cost(const struct ar_mgraph *g, const struct flows *f, double share, double eff) {
  if (f->cap < 0) return NAN;
  double r = min_rate(g, f);
  return isinf(r) || f->n == 0 ? 0 : share / (r * eff * 1e3);
}

static void all_pairs(const struct ar_mgraph *g, struct flows *f, int island) {
  flows_free(f);
  for (int a = 0; a < g->n; a++)
    for (int b = 0; b < g->n; b++)
      if (island < 0 || (g->island[a] == g->island[b])) add_flow(f, a, b);
}

static void ring(const struct ar_mgraph *g, struct flows *f, int step, int both) {
  flows_free(f);
  for (int r = 0; r < g->n; r++) {
    add_flow(f, r, (r + step) % g->n);
    if (both) add_flow(f, (r + step) % g->n, r);
  }
}

double ar_model_nccl_eff(const struct ar_mparams *p, enum ar_malgo a) {
  int tree = a == AR_M_TREE_LL || a == AR_M_TREE_SIMPLE, ll = a == AR_M_RING_LL || a == AR_M_TREE_LL;
  return p->nccl_simple_eff * (tree ? (ll ? p->nccl_tree_ll_factor : p->nccl_tree_factor)
                                    : (ll ? p->nccl_ll_factor : 1.0));
}

/* NCCL's latency as its tuning model has it (launch + base + 2(n-1) steps x hop latency), except that the
 * steps' hop latencies are paid while chunks flow (pipelining): they overlap the data time (*ov). Ring LL's fixed
 * part and step and ring Simple's step are fitted on published rows (params.c), not NCCL's estimates. */
static void nccl_cost(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double *fx,
                      double *ov, double *pb) {
  int n = g->n, tree = a == AR_M_TREE_LL || a == AR_M_TREE_SIMPLE, ll = a == AR_M_RING_LL || a == AR_M_TREE_LL;
  struct flows f = {0};
  if (tree) { /* NCCL's intra-node tree is a chain: reduce up, broadcast down */
    for (int r = 0; r + 1 < n; r++) {
      add_flow(&f, r, r + 1);
      add_flow(&f, r + 1, r);
    }
  } else
    ring(g, &f, 1, 0);
  double eff = ar_model_nccl_eff(p, a);
  *fx = !tree && ll ? p->ring_ll_fixed_us : p->nccl_launch_us + p->nccl_base_us[tree][!ll];
  *ov = 2.0 * (n - 1) * (tree ? p->nccl_hw_us[tree][!ll] : ll ? p->ring_ll_step_us : p->ring_simple_step_us);
  *pb = cost(g, &f, 2.0 * (n - 1) / n, eff);
  flows_free(&f);
}

static void staged_cost(const struct ar_mgraph *g, const struct ar_mparams *p, double *fx, double *pb) {
  struct flows f = {0};
  *fx = p->custom_fixed_us;
  *pb = 0;
  for (int pass = 0; pass + 1 < g->n; pass++) { /* reduce-scatter pass and its all-gather twin */
    ring(g, &f, pass + 1, 0);
    *fx += 2 * max_hop(g, p, &f);
    *pb += 2 * cost(g, &f, 1.0 / g->n, 1.0);
  }
  flows_free(&f);
}

static void islands_cost(const struct ar_mgraph *g, const struct ar_mparams *p, double *fx, double *pb) {
  struct flows in = {0}, x = {0};
  int size[256] = {0}, m = 0, *local = malloc(sizeof(int) * (size_t)g->n);
  if (!local) {
    *fx = *pb = NAN;
    return;
  }
  for (int i = 0; i < g->n; i++) local[i] = size[g->island[i]]++; /* index of a GPU inside its island */
  for (int k = 0; k < g->nisland; k++) m = size[k] > m ? size[k] : m;
  all_pairs(g, &in, 0);
  /* rank l of each island exchanges its 1/m slice with rank l of every other island */
  for (int a = 0; a < g->n; a++)
    for (int b = 0; b < g->n; b++)
      if (g->island[a] != g->island[b] && local[a] == local[b]) add_flow(&x, a, b);
  *fx = p->custom_fixed_us + 3 * max_hop(g, p, &in) + max_hop(g, p, &x);
  *pb = 2 * cost(g, &in, 1.0 / m, 1.0) + cost(g, &x, 1.0 / m, 1.0);
  free(local);
  flows_free(&in);
  flows_free(&x);
}

/* The cost of algorithm a: fixed part, the step latencies that overlap the data (NCCL), us per byte. */
static void algo_cost(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double *fx, double *ov,
                      double *pb) {
  struct flows f = {0};
  *fx = *ov = *pb = 0;
  if (p->fit[a].set && p->fit[a].ranks == g->n) {
    *fx = p->fit[a].fixed_us;
    *pb = p->fit[a].us_per_byte;
  } else if (ar_malgo_is_nccl(a)) {
    nccl_cost(g, p, a, fx, ov, pb);
  } else if (a == AR_M_ONESHOT_PULL || a == AR_M_ONESHOT_PUSH) {
    all_pairs(g, &f, -1);
    *fx = p->custom_fixed_us + 2 * max_hop(g, p, &f);
    *pb = cost(g, &f, 1.0, a == AR_M_ONESHOT_PULL ? p->read_eff : 1.0);
  } else if (a == AR_M_TWOSHOT_FLAT || (a == AR_M_ISLANDS && g->nisland < 2)) {
    all_pairs(g, &f, -1);
    *fx = p->custom_fixed_us + 3 * max_hop(g, p, &f);
    *pb = 2 * cost(g, &f, 1.0 / g->n, 1.0);
  } else if (a == AR_M_TWOSHOT_STAGED) {
    staged_cost(g, p, fx, pb);
  } else {
    islands_cost(g, p, fx, pb);
  }
  flows_free(&f);
}

double ar_model_time(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double bytes,
                     double *fixed_us, double *us_per_byte) {
  struct mcost *c = &g->cost[a]; /* the cost does not depend on the size: computed once per parameters */
  if (!c->valid || memcmp(&c->p, p, sizeof *p)) {
    algo_cost(g, p, a, &c->fx, &c->ov, &c->pb);
    c->p = *p;
    c->valid = 1;
  }
  if (fixed_us) *fixed_us = c->fx + c->ov;
  if (us_per_byte) *us_per_byte = c->pb;
  return c->fx + fmax(c->ov, bytes * c->pb);
}

double ar_model_time_capped(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double bytes,
                            double min_us_per_byte) {
  ar_model_time(g, p, a, bytes, NULL, NULL); /* fills the memo */
  const struct mcost *c = &g->cost[a];
  return c->fx + fmax(c->ov, bytes * fmax(c->pb, min_us_per_byte));
}

double ar_model_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ar_mgraph_nlinks(const struct ar_mgraph *g) { return g->nlink; }

int ar_mgraph_path(const struct ar_mgraph *g, int a, int b, const int **links) {
  *links = &g->path[(a * g->n + b) * AR_MPATH];
  return g->plen[a * g->n + b];
}

double ar_mgraph_cap(const struct ar_mgraph *g, int link) { return g->cap[link]; }

void ar_model_prepare(const struct ar_mgraph *g, const struct ar_mparams *p, int mask, FILE *progress, double t0) {
  int total = 0, k = 0;
  for (int a = 0; a < AR_M_NALGO; a++) total += (mask >> a) & 1;
  if (progress)
    fprintf(progress, "arbench model: %d GPUs: link graph of %d directed links and %d paths (%.1f s)\n", g->n,
            g->nlink, g->n * (g->n - 1), ar_model_clock() - t0);
  for (int a = 0; a < AR_M_NALGO; a++) {
    if (!(mask & 1 << a)) continue;
    ar_model_time(g, p, (enum ar_malgo)a, 0, NULL, NULL);
    if (progress) {
      fprintf(progress, "arbench model: %d GPUs: %s costed (%d of %d, %.1f s)\n", g->n, ar_malgo_name(a), ++k, total,
              ar_model_clock() - t0);
      fflush(progress);
    }
  }
}

double ar_model_busbw(double bytes, double us, int n) {
  return us > 0 ? bytes / us / 1e3 * 2.0 * (n - 1) / n : 0;
}

static double best_of(const struct ar_mgraph *g, const struct ar_mparams *p, int mask, double bytes) {
  double m = INFINITY;
  for (int a = 0; a < AR_M_NALGO; a++)
    if (mask & 1 << a) m = fmin(m, ar_model_time(g, p, a, bytes, NULL, NULL));
  return m;
}

size_t ar_model_crossover(const struct ar_mgraph *g, const struct ar_mparams *p, const size_t *sizes, int nsizes,
                          int custom_mask, int nccl_mask) {
  for (int s = 0; s < nsizes; s++)
    if (best_of(g, p, nccl_mask, (double)sizes[s]) < best_of(g, p, custom_mask, (double)sizes[s])) return sizes[s];
  return 0;
}
