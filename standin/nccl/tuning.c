/* tuning.c — the NCCL stand-in's tuning: which algorithm/protocol pairs an allreduce may use (NCCL_ALGO and
 * NCCL_PROTO read at init with NCCL's list syntax), a cost model, NCCL's pick and its channel partition. */
#include "standin_nccl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The names NCCL_ALGO / NCCL_PROTO accept and their prefixes (2.28.9 init.cc: ncclAlgoStr, ncclProtoStr,
 * ncclFuncStr), and what the tuning line prints (collectives.cc: ncclAlgoToString, ncclProtoToString). */
static const char *const algo_str[SN_NUM_ALGOS] = {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree",
                                                   "PAT"};
static const char *const proto_str[SN_NUM_PROTOS] = {"LL", "LL128", "Simple"};
static const char *const func_str[SN_NUM_FUNCS] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
static const char *const algo_print[SN_NUM_ALGOS] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS",
                                                     "NVLS_TREE", "PAT"};
static const char *const proto_print[SN_NUM_PROTOS] = {"LL", "LL128", "SIMPLE"};

const char *sn_algo_name(int a) { return a >= 0 && a < SN_NUM_ALGOS ? algo_print[a] : "Unknown"; }
const char *sn_proto_name(int p) { return p >= 0 && p < SN_NUM_PROTOS ? proto_print[p] : "Unknown"; }

const char *sn_datatype_name(ncclDataType_t t) {
  static const char *const names[ncclNumTypes] = {"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64",
                                                  "ncclUint64", "ncclFloat16", "ncclFloat32", "ncclFloat64",
                                                  "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
  return (unsigned)t < ncclNumTypes ? names[t] : "Unknown";
}

int sn_type_size(ncclDataType_t t) {
  static const int size[ncclNumTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return (unsigned)t < ncclNumTypes ? size[t] : 0;
}

/* One ';'-separated entry "[prefix:][^]a,b": the functions it names get exactly its elements (or all but them). */
static ncclResult_t list_entry(char *entry, int first, const char *all, const char *const *elems, int nelems,
                               int *list) {
  char *save = NULL, *prefix = strtok_r(entry, ":", &save), *elem_list = strtok_r(NULL, ":", &save);
  if (!prefix) return ncclSuccess;
  if (!elem_list) {
    if (!first) {
      SN_WARN("All entries except the first must have a prefix: \"%s\"", all);
      return ncclInvalidUsage;
    }
    elem_list = prefix;
    prefix = NULL;
  }
  int set = *elem_list != '^';
  elem_list += !set;
  int found = 0;
  for (int f = 0; f < SN_NUM_FUNCS; f++) {
    if (prefix && strcasecmp(prefix, func_str[f])) continue;
    found = 1;
    for (int e = 0; e < nelems; e++) list[f * nelems + e] = !set;
    char *dup = strdup(elem_list), *s2 = NULL;
    for (char *tok = dup ? strtok_r(dup, ",", &s2) : NULL; tok; tok = strtok_r(NULL, ",", &s2)) {
      int e = 0;
      while (e < nelems && strcasecmp(tok, elems[e])) e++;
      if (e == nelems) {
        SN_WARN("Unrecognized element token \"%s\" when parsing \"%s\"", tok, all);
        free(dup);
        return ncclInvalidUsage;
      }
      list[f * nelems + e] = set;
    }
    free(dup);
  }
  if (!found) {
    SN_WARN("Unrecognized prefix token \"%s\" when parsing \"%s\"", prefix, all);
    return ncclInvalidUsage;
  }
  return ncclSuccess;
}

static ncclResult_t parse_list(const char *str, const char *const *elems, int nelems, int *list) {
  char *dup = strdup(str), *save = NULL;
  ncclResult_t rc = ncclSuccess;
  int first = 1;
  for (char *tok = dup ? strtok_r(dup, ";", &save) : NULL; tok && rc == ncclSuccess; tok = strtok_r(NULL, ";", &save)) {
    char *entry = strdup(tok);
    rc = entry ? list_entry(entry, first, str, elems, nelems, list) : ncclSystemError;
    free(entry);
    first = 0;
  }
  free(dup);
  return rc;
}

/* The stand-in's machine: one node, every GPU pair over PCIe (NCCL path type PIX), no NVLink, NVSwitch or
 * network; a ring search that finds 2 channels of 12 GB/s. Latencies and bandwidths are the stand-in's own
 * round numbers (a model, not NCCL's constants): what matters is the shape NCCL shows on such a machine:
 * Ring/LL for small messages, Ring/Simple for large ones, Tree slower, LL128 off unless forced. */
#define SN_BW_PER_CHANNEL 12.0f
static const float base_lat[2][SN_NUM_PROTOS] = {{4.5f, 9.5f, 7.5f}, {4.0f, 9.0f, 7.0f}}; /* Tree, Ring */
static const float hop_lat[SN_NUM_PROTOS] = {0.8f, 1.5f, 2.5f};

static void model_numbers(struct sn_model *m) {
  int n = m->nranks;
  float bus = SN_BW_PER_CHANNEL * (float)m->nchannels, ratio = n > 1 ? (float)n / (2.0f * (float)(n - 1)) : 1.0f;
  for (int a = SN_ALGO_TREE; a <= SN_ALGO_RING; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) m->lat[a][p] = base_lat[a][p] + 2.0f * (float)(n - 1) * hop_lat[p];
  m->bw[SN_ALGO_RING][SN_PROTO_LL] = bus * 0.5f * ratio;
  m->bw[SN_ALGO_RING][SN_PROTO_LL128] = bus * 0.92f * ratio;
  m->bw[SN_ALGO_RING][SN_PROTO_SIMPLE] = bus * ratio;
  m->bw[SN_ALGO_TREE][SN_PROTO_LL] = bus / 3.8f * ratio;
  m->bw[SN_ALGO_TREE][SN_PROTO_LL128] = bus * 7.0f / 9.0f * ratio;
  m->bw[SN_ALGO_TREE][SN_PROTO_SIMPLE] = bus * 0.85f * ratio;
  for (int a = 0; a < SN_NUM_ALGOS; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) {
      m->max_threads[a][p] = p == SN_PROTO_LL ? 512 : p == SN_PROTO_LL128 ? 640 : 256; /* Simple: 256 on PCIe */
      m->thread_threshold[a][p] = p == SN_PROTO_SIMPLE ? 64 : 8;
    }
  m->thread_threshold[SN_ALGO_RING][SN_PROTO_LL] *= n;
}

/* ncclTopoTuneModel (graph/tuning.cc): every protocol on (LL128 "on where safe", off over PCIe) and every algorithm,
 * then NCCL_PROTO and NCCL_ALGO, then what this machine cannot run: NVLS and NVLSTree (no NVSwitch, one node),
 * CollNet (no collnet network), PAT (not an allreduce algorithm). */
ncclResult_t sn_model_init(struct sn_model *m, int nranks, int nchannels, int rank) {
  int proto[SN_NUM_FUNCS * SN_NUM_PROTOS], algo[SN_NUM_FUNCS * SN_NUM_ALGOS];
  memset(m, 0, sizeof *m);
  m->nranks = nranks;
  m->nchannels = nchannels;
  for (int f = 0; f < SN_NUM_FUNCS; f++) {
    for (int p = 0; p < SN_NUM_PROTOS; p++) proto[f * SN_NUM_PROTOS + p] = p == SN_PROTO_LL128 ? 2 : 1;
    for (int a = 0; a < SN_NUM_ALGOS; a++) algo[f * SN_NUM_ALGOS + a] = 1;
  }
  const char *ps = sn_getenv("NCCL_PROTO"), *as;
  if (ps) {
    SN_INFO(SN_ENV, "NCCL_PROTO set by environment to %s", ps);
    ncclResult_t rc = parse_list(ps, proto_str, SN_NUM_PROTOS, proto);
    if (rc) return rc;
  }
  if ((as = sn_getenv("NCCL_ALGO"))) {
    SN_INFO(SN_ENV, "NCCL_ALGO set by environment to %s", as);
    ncclResult_t rc = parse_list(as, algo_str, SN_NUM_ALGOS, algo);
    if (rc) return rc;
  }
  model_numbers(m);
  const int *pa = proto + SN_FUNC_ALLREDUCE * SN_NUM_PROTOS, *aa = algo + SN_FUNC_ALLREDUCE * SN_NUM_ALGOS;
  for (int a = 0; a < SN_NUM_ALGOS; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) {
      int on = aa[a] && pa[p] && (a == SN_ALGO_TREE || a == SN_ALGO_RING);
      if (pa[p] == 2) on = 0; /* LL128 by default: only up to NVB paths; PIX here */
      m->enabled[a][p] = on;
      if (!on) m->bw[a][p] = 0.0f;
    }
  if (rank == 0) SN_INFO(SN_TUNING, "arbench NCCL stand-in: cost model (us + bytes/GB/s) for %d ranks, %d channels: "
                         "Ring %.1f/%.1f/%.1f us, Tree %.1f/%.1f/%.1f us (LL/LL128/Simple)", nranks, nchannels,
                         m->lat[1][0], m->lat[1][1], m->lat[1][2], m->lat[0][0], m->lat[0][1], m->lat[0][2]);
  return ncclSuccess;
}

/* updateCollCostTable: -1 everywhere, then lat + bytes / (1000 x bw) us where the pair can run. */
void sn_model_costs(const struct sn_model *m, size_t bytes, float *table) {
  for (int a = 0; a < SN_NUM_ALGOS; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) {
      float bw = m->bw[a][p];
      table[a * SN_NUM_PROTOS + p] = bw > 0.0f ? m->lat[a][p] + (float)bytes / (1000.0f * bw) : SN_COST_IGNORE;
    }
}

/* topoGetAlgoInfo: the smallest entry >= 0 wins; entries of -1 are never taken. */
int sn_model_pick(const float *table, int *algo, int *proto) {
  float best = 3600000000.0f;
  *algo = *proto = -1;
  for (int a = 0; a < SN_NUM_ALGOS; a++)
    for (int p = 0; p < SN_NUM_PROTOS; p++) {
      float t = table[a * SN_NUM_PROTOS + p];
      if (t == SN_COST_IGNORE || t < 0.0f || t >= best) continue;
      best = t;
      *algo = a;
      *proto = p;
    }
  return *algo < 0 ? -1 : 0;
}

/* Ring/Tree: fewer channels while the message is below channels x threads x threshold. */
int sn_model_channels(const struct sn_model *m, size_t bytes, int algo, int proto) {
  int nc = m->nchannels;
  size_t per = (size_t)m->max_threads[algo][proto] * (size_t)m->thread_threshold[algo][proto];
  while (nc >= 2 && bytes < (size_t)nc * per) nc--;
  return nc;
}

static size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

/* scheduleCollTasksToPlan (enqueue.cc), for a plan of one allreduce: its traffic (2 x bytes, at least 16 KiB) spread
 * over min(task, communicator) channels; cells of 16 KiB of traffic (LL moves 4x the bytes); the first channel
 * takes a channel's share, the middle ones as much, the last the rest; never more channels than the communicator
 * has (the overflow is folded into the last one). */
void sn_channel_range(size_t count, int es, int proto, int task_max, int comm_channels, int *lo, int *hi) {
  const size_t min_traffic = 16 << 10;
  size_t per_byte = 2 * (proto == SN_PROTO_LL ? 4 : 1), bytes = count * (size_t)es;
  int nch = task_max < comm_channels ? task_max : comm_channels;
  if (nch < 1) nch = 1;
  size_t per_channel = max_sz(min_traffic, max_sz(min_traffic, 2 * bytes) / (size_t)nch);
  size_t cell = div_up(div_up(min_traffic, per_byte), 16) * 16, per_cell = cell * per_byte;
  size_t cells = div_up(bytes, cell);
  size_t per = min_sz(cells, div_up(per_channel, per_cell));
  size_t first = comm_channels == 1 ? cells : min_sz(cells, div_up(per_channel, per_cell));
  size_t mid = (cells - first) / per, last = (cells - first) % per;
  if ((size_t)comm_channels < (first ? 1 : 0) + mid + (last ? 1 : 0)) {
    mid = (size_t)comm_channels - 2;
    per = (cells - first) / (mid + 1);
    last = per + (cells - first) % (mid + 1);
  }
  if (!last && mid) {
    last = per;
    mid--;
  }
  *lo = 0;
  *hi = (int)((first ? 1 : 0) + mid + (last ? 1 : 0)) - 1;
}
