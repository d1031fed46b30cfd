/* model.c — the cost model: the GPUs' PCIe link graph (directed links, each GPU pair's path), max-min
 * fair sharing of concurrent transfers, and the time of each allreduce algorithm as fixed + bytes x cost. */
#include "model/model.h"
#include "ar.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

struct ar_mgraph {
  int n, nlink, nisland;
  unsigned long long *key; /* link identity: hwloc id << 1 | direction, or a socket pair */
  double *cap;             /* GB/s, per direction */
  int *plen, *path;        /* path of pair a*n+b: plen[a*n+b] links at path[(a*n+b)*AR_MPATH] */
  enum ar_path *cls;
  int *island;
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
  free(g->plen);
  free(g->path);
  free(g->cls);
  free(g->island);
  free(g);
}

static double link_eff(const struct ar_mparams *p, double gbs) {
  return gbs >= 50 ? p->eff_gen5 : gbs >= 25 ? p->eff_gen4 : p->eff_gen3;
}

static double socket_gbs(const struct ar_mparams *p, const struct ar_topo *t) {
  if (p->socket_gbs > 0) return p->socket_gbs;
  const char *v = ar_topo_cpu_vendor(t);
  return !strcmp(v, "GenuineIntel") ? p->socket_gbs_intel : !strcmp(v, "AuthenticAMD") ? p->socket_gbs_amd
                                                                                        : p->socket_gbs_other;
}

/* Index of link key, added with capacity cap when new. */
static int link_of(struct ar_mgraph *g, unsigned long long key, double cap) {
  for (int i = 0; i < g->nlink; i++)
    if (g->key[i] == key) return i;
  g->key[g->nlink] = key;
  g->cap[g->nlink] = cap;
  return g->nlink++;
}

static int in_chain(const struct ar_topo_link *c, int n, unsigned long long id) {
  for (int i = 0; i < n; i++)
    if (c[i].id == id) return 1;
  return 0;
}

/* Append to path: a's links not shared with b (dir). A bridge link of unknown speed counts as the GPU's. */
static void add_side(struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_topo_link *la, int na,
                     const struct ar_topo_link *lb, int nb, int dir, int *path, int *len) {
  for (int i = 0; i < na; i++) {
    double gbs = la[i].gbs > 0 ? la[i].gbs : la[0].gbs;
    if (!in_chain(lb, nb, la[i].id))
      path[(*len)++] = link_of(g, la[i].id << 1 | (unsigned)dir, gbs * link_eff(p, gbs));
  }
}

static void build_pair(struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p, int a, int b,
                       double sock) {
  struct ar_topo_link la[AR_MLINKS], lb[AR_MLINKS];
  int na = ar_topo_gpu_links(t, a, la, AR_MLINKS), nb = ar_topo_gpu_links(t, b, lb, AR_MLINKS);
  int *path = &g->path[(a * g->n + b) * AR_MPATH], len = 0;
  g->cls[a * g->n + b] = ar_topo_path(t, a, b, NULL, NULL);
  if (a == b) {
    g->plen[a * g->n + b] = 0;
    return;
  }
  add_side(g, p, la, na, lb, nb, 0, path, &len);
  int pa = ar_topo_gpu(t, a)->package, pb = ar_topo_gpu(t, b)->package;
  if (g->cls[a * g->n + b] == AR_PATH_SYS && pa != pb && pa >= 0 && pb >= 0)
    path[len++] = link_of(g, 1ULL << 62 | (unsigned long long)pa << 16 | (unsigned long long)pb, sock);
  add_side(g, p, lb, nb, la, na, 1, path, &len);
  g->plen[a * g->n + b] = len;
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
  size_t np = (size_t)n * (size_t)n, maxl = np * AR_MPATH + 1;
  if (!g) return -AR_ERUNTIME;
  g->n = n;
  g->key = calloc(maxl, sizeof *g->key);
  g->cap = calloc(maxl, sizeof *g->cap);
  g->plen = calloc(np, sizeof *g->plen);
  g->path = calloc(np * AR_MPATH, sizeof *g->path);
  g->cls = calloc(np, sizeof *g->cls);
  g->island = calloc((size_t)n, sizeof *g->island);
  if (!g->key || !g->cap || !g->plen || !g->path || !g->cls || !g->island) {
    ar_mgraph_free(g);
    return -AR_ERUNTIME;
  }
  double sock = socket_gbs(p, t);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) build_pair(g, t, p, a, b, sock);
  build_islands(g, t);
  *out = g;
  return 0;
}

/* ---- max-min fair sharing (progressive filling) ---- */

void ar_mgraph_maxmin(const struct ar_mgraph *g, int nf, const int *src, const int *dst, double *rate) {
  double *rem = malloc(sizeof(double) * (size_t)(g->nlink + 1));
  int *cnt = calloc((size_t)g->nlink + 1, sizeof(int)), *done = calloc((size_t)nf + 1, sizeof(int));
  if (!rem || !cnt || !done) goto out;
  memcpy(rem, g->cap, sizeof(double) * (size_t)g->nlink);
  for (int f = 0; f < nf; f++) {
    int pr = src[f] * g->n + dst[f];
    for (int k = 0; k < g->plen[pr]; k++) cnt[g->path[pr * AR_MPATH + k]]++;
    rate[f] = INFINITY;
  }
  for (;;) {
    int bl = -1;
    for (int l = 0; l < g->nlink; l++)
      if (cnt[l] > 0 && (bl < 0 || rem[l] / cnt[l] < rem[bl] / cnt[bl])) bl = l;
    if (bl < 0) break;
    double share = rem[bl] / cnt[bl];
    for (int f = 0; f < nf; f++) {
      int pr = src[f] * g->n + dst[f], on = 0;
      if (done[f]) continue;
      for (int k = 0; k < g->plen[pr]; k++) on |= g->path[pr * AR_MPATH + k] == bl;
      if (!on) continue;
      done[f] = 1;
      rate[f] = share;
      for (int k = 0; k < g->plen[pr]; k++) {
        int l = g->path[pr * AR_MPATH + k];
        rem[l] -= share;
        cnt[l]--;
      }
    }
  }
out:
  free(rem);
  free(cnt);
  free(done);
}

/* ---- flow sets of the algorithms: slowest rate (GB/s) and largest hop latency (us) ---- */

struct flows {
  int n, src[4096], dst[4096];
};

static void add_flow(struct flows *f, int s, int d) {
  if (f->n < 4096 && s != d) {
    f->src[f->n] = s;
    f->dst[f->n++] = d;
  }
}

static double min_rate(const struct ar_mgraph *g, const struct flows *f) {
  double r[4096], m = INFINITY;
  ar_mgraph_maxmin(g, f->n, f->src, f->dst, r);
  for (int k = 0; k < f->n; k++) m = fmin(m, r[k]);
  return m;
}

static double max_hop(const struct ar_mgraph *g, const struct ar_mparams *p, const struct flows *f) {
  double m = 0;
  for (int k = 0; k < f->n; k++) m = fmax(m, p->hop_us[ar_mgraph_class(g, f->src[k], f->dst[k])]);
  return m;
}

/* us per byte when every flow of f carries `share` bytes per byte of the message, at efficiency eff. */
static double cost(const struct ar_mgraph *g, const struct flows *f, double share, double eff) {
  double r = min_rate(g, f);
  return isinf(r) || f->n == 0 ? 0 : share / (r * eff * 1e3);
}

static void all_pairs(const struct ar_mgraph *g, struct flows *f, int island) {
  f->n = 0;
  for (int a = 0; a < g->n; a++)
    for (int b = 0; b < g->n; b++)
      if (island < 0 || (g->island[a] == g->island[b])) add_flow(f, a, b);
}

static void ring(const struct ar_mgraph *g, struct flows *f, int step, int both) {
  f->n = 0;
  for (int r = 0; r < g->n; r++) {
    add_flow(f, r, (r + step) % g->n);
    if (both) add_flow(f, (r + step) % g->n, r);
  }
}

/* NCCL's latency as its tuning model has it (launch + base + 2(n-1) steps x hop latency), except that the
 * steps' hop latencies are paid while chunks flow (pipelining): they overlap the data time (*ov). */
static void nccl_cost(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double *fx,
                      double *ov, double *pb) {
  int n = g->n, tree = a == AR_M_TREE_LL || a == AR_M_TREE_SIMPLE, ll = a == AR_M_RING_LL || a == AR_M_TREE_LL;
  struct flows f;
  if (tree) { /* NCCL's intra-node tree is a chain: reduce up, broadcast down */
    f.n = 0;
    for (int r = 0; r + 1 < n; r++) {
      add_flow(&f, r, r + 1);
      add_flow(&f, r + 1, r);
    }
  } else
    ring(g, &f, 1, 0);
  double eff = p->nccl_simple_eff * (tree ? (ll ? p->nccl_tree_ll_factor : p->nccl_tree_factor)
                                          : (ll ? p->nccl_ll_factor : 1.0));
  *fx = p->nccl_launch_us + p->nccl_base_us[tree][!ll];
  *ov = 2.0 * (n - 1) * p->nccl_hw_us[tree][!ll];
  *pb = cost(g, &f, 2.0 * (n - 1) / n, eff);
}

static void staged_cost(const struct ar_mgraph *g, const struct ar_mparams *p, double *fx, double *pb) {
  struct flows f;
  *fx = p->custom_fixed_us;
  *pb = 0;
  for (int pass = 0; pass + 1 < g->n; pass++) { /* reduce-scatter pass and its all-gather twin */
    ring(g, &f, pass + 1, 0);
    *fx += 2 * max_hop(g, p, &f);
    *pb += 2 * cost(g, &f, 1.0 / g->n, 1.0);
  }
}

static void islands_cost(const struct ar_mgraph *g, const struct ar_mparams *p, double *fx, double *pb) {
  struct flows in, x;
  int size[256] = {0}, m = 0;
  for (int i = 0; i < g->n; i++) size[g->island[i]]++;
  for (int k = 0; k < g->nisland; k++) m = size[k] > m ? size[k] : m;
  all_pairs(g, &in, 0);
  x.n = 0; /* rank l of each island exchanges its 1/m slice with rank l of every other island */
  for (int a = 0; a < g->n; a++)
    for (int b = 0; b < g->n; b++) {
      int la = 0, lb = 0;
      for (int i = 0; i < a; i++) la += g->island[i] == g->island[a];
      for (int i = 0; i < b; i++) lb += g->island[i] == g->island[b];
      if (g->island[a] != g->island[b] && la == lb) add_flow(&x, a, b);
    }
  *fx = p->custom_fixed_us + 3 * max_hop(g, p, &in) + max_hop(g, p, &x);
  *pb = 2 * cost(g, &in, 1.0 / m, 1.0) + cost(g, &x, 1.0 / m, 1.0);
}

double ar_model_time(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double bytes,
                     double *fixed_us, double *us_per_byte) {
  double fx = 0, ov = 0, pb = 0;
  struct flows f;
  if (p->fit[a].set && p->fit[a].ranks == g->n) {
    fx = p->fit[a].fixed_us;
    pb = p->fit[a].us_per_byte;
  } else if (ar_malgo_is_nccl(a)) {
    nccl_cost(g, p, a, &fx, &ov, &pb);
  } else if (a == AR_M_ONESHOT_PULL || a == AR_M_ONESHOT_PUSH) {
    all_pairs(g, &f, -1);
    fx = p->custom_fixed_us + 2 * max_hop(g, p, &f);
    pb = cost(g, &f, 1.0, a == AR_M_ONESHOT_PULL ? p->read_eff : 1.0);
  } else if (a == AR_M_TWOSHOT_FLAT || (a == AR_M_ISLANDS && g->nisland < 2)) {
    all_pairs(g, &f, -1);
    fx = p->custom_fixed_us + 3 * max_hop(g, p, &f);
    pb = 2 * cost(g, &f, 1.0 / g->n, 1.0);
  } else if (a == AR_M_TWOSHOT_STAGED) {
    staged_cost(g, p, &fx, &pb);
  } else {
    islands_cost(g, p, &fx, &pb);
  }
  if (fixed_us) *fixed_us = fx + ov;
  if (us_per_byte) *us_per_byte = pb;
  return fx + fmax(ov, bytes * pb);
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
