/* model.h — the topology performance model behind `arbench model`: per-algorithm cost models over the
 * PCIe link graph with max-min fair sharing, their default parameters, fitting and --against. */
#ifndef AR_MODEL_H
#define AR_MODEL_H

#include "topo.h"
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Algorithm families the model predicts, NCCL's and the custom ones. */
enum ar_malgo {
  AR_M_RING_LL = 0, AR_M_RING_SIMPLE, AR_M_TREE_LL, AR_M_TREE_SIMPLE,
  AR_M_ONESHOT_PULL, AR_M_ONESHOT_PUSH, AR_M_TWOSHOT_FLAT, AR_M_TWOSHOT_STAGED, AR_M_ISLANDS,
  AR_M_NALGO
};
const char *ar_malgo_name(enum ar_malgo a);       /* "nccl-ring-ll", "oneshot-pull", ... */
int ar_malgo_parse(const char *s);                /* index, or -1 */
int ar_malgo_is_nccl(enum ar_malgo a);
#define AR_M_NCCL_MASK 0xf                                                /* the four NCCL families */
#define AR_M_ONESHOT_MASK (1 << AR_M_ONESHOT_PULL | 1 << AR_M_ONESHOT_PUSH) /* pull and push */

/* Parameters: every default and its published source is in params.c. */
struct ar_mparams {
  double eff_gen5, eff_gen4, eff_gen3;  /* achievable P2P write bandwidth / link speed, by PCIe speed */
  double socket_gbs_intel, socket_gbs_amd, socket_gbs_other; /* per direction, P2P through the socket link */
  double socket_gbs;                    /* > 0: overrides the vendor default */
  double read_eff;                      /* pull (loads) vs push (stores) under all-to-all load */
  double hop_us[AR_PATH_SYS + 1];       /* one flag/hop latency by path class */
  double custom_fixed_us;               /* launch + kernel entry/exit of a custom kernel */
  double nccl_launch_us;                /* per-call host launch cost on top of NCCL's tuning latencies */
  double nccl_base_us[2][2];            /* [ring, tree][LL, Simple]: NCCL baseLat */
  double nccl_hw_us[2][2];              /* [ring, tree][LL, Simple]: NCCL PCI hwLat per step */
  double nccl_simple_eff;               /* NCCL Simple busbw / link bandwidth on PCIe */
  double nccl_ll_factor;                /* ring LL bandwidth factor (NCCL: 0.5) */
  double nccl_tree_factor;              /* tree Simple factor (NCCL: 0.85) */
  double nccl_tree_ll_factor;           /* tree LL factor (NCCL: 1/3.8) */
  double ring_simple_step_us;           /* the model's ring Simple latency per step (NCCL's estimate: 5.7) */
  double ring_ll_fixed_us, ring_ll_step_us; /* the model's ring LL time of an empty call: fixed + 2(n-1) steps */
  double iter_launch_us;                /* what timing a call alone (timing iter, no graph) adds: launch + wait */
  double nccl_chan_gbs;                 /* busbw one NCCL channel carries (caps NCCL's default by its channels) */
  double gpu_cc;                        /* > 0: the GPUs' compute capability x10 for NCCL's tuning (else by PCI id) */
  double nccl_socket_gbs;               /* > 0: the socket link bandwidth NCCL's search sees (else by CPU) */
  double nccl_shm_ll_gbs;               /* busbw a ring with SHM hops runs LL at, at most (NCCL's default) */
  double nccl_shm_simple_gbs;           /* the same for Simple */
  double nccl_p2p_level;                /* > 0: NCCL_P2P_LEVEL as a number (1 PIX, 2 PXB, 3 PHB, 4/5 SYS); else NCCL's default */
  double nccl_no_p2p;                   /* 1: NVML reports P2P read/write not supported between the GPUs
                                         * (nvidia-smi topo -p2p r, w: NS), so NCCL runs every hop through host memory; 0: stated
                                         * supported; -1 (the default): not stated, supported assumed (named) */
  int nccl_p2p_env;                     /* 1 + the path class NCCL_P2P_LEVEL / NCCL_P2P_DISABLE set in a result's run
                                         * environment (ar_nccl_p2p_env); 0: not set there (not a --calib knob) */
  /* Fitted per-family overrides from --calib: t = fixed + size * us_per_byte, for `ranks` ranks. */
  struct { int set, ranks; double fixed_us, us_per_byte; } fit[AR_M_NALGO];
};
void ar_mparams_default(struct ar_mparams *p);
/* The P2P write efficiency of a PCIe link of gbs (hwloc's GB/s) by its generation; *knob (may be NULL) its name. */
double ar_model_link_eff(const struct ar_mparams *p, double gbs, const char **knob);
/* The socket link's P2P bandwidth (GB/s per direction) the model uses: --calib's socket_gbs, else by CPU vendor. */
double ar_model_socket_gbs(const struct ar_mparams *p, const struct ar_topo *t);
/* Apply a --calib file (from `model --fit`): "params" overrides and "families" fits. 0 or -AR_EINVAL. */
int ar_mparams_load(struct ar_mparams *p, const char *path, char *err, size_t len);
/* The parameters as JSON (for prediction records and --format json). New reference. */
json_t *ar_mparams_json(const struct ar_mparams *p);

/* The link graph of n GPUs of a topology: directed links with capacities, and each GPU pair's path. */
struct ar_mgraph;
int ar_mgraph_build(struct ar_mgraph **g, const struct ar_topo *t, int n, const struct ar_mparams *p,
                    char *err, size_t len);
void ar_mgraph_free(struct ar_mgraph *g);
int ar_mgraph_n(const struct ar_mgraph *g);
enum ar_path ar_mgraph_class(const struct ar_mgraph *g, int a, int b);
int ar_mgraph_islands(const struct ar_mgraph *g, int *island); /* island (package) per GPU; count */

/* Max-min fair rates (GB/s) of concurrent flows src[k] -> dst[k]; nf flows. Flows on no link get
 * INFINITY. Exposed for tests. */
void ar_mgraph_maxmin(const struct ar_mgraph *g, int nf, const int *src, const int *dst, double *rate);

/* The share of a link's rate an NCCL family's data moves at: nccl_simple_eff times its protocol and pattern factor. */
double ar_model_nccl_eff(const struct ar_mparams *p, enum ar_malgo a);
/* The slowest hop (GB/s, max-min fair) of the ring GPU i -> i+1 when the hops beyond P2P level `level` run through
 * host memory (NCCL's SHM): the sender's stores up its links to its CPU (and over the socket link to the
 * receiver's), the receiver's loads down its links at read_eff; the other hops on their P2P paths. */
double ar_mgraph_ring_host_gbs(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_path level);

/* NCCL's ring bandwidth (GB/s, its units: a PCIe link width x speed / 80, 48 for Gen5 x16) on the ring GPU i -> i+1:
 * search.cc's followPath takes the ring's speed off every link of each hop's path (through host memory beyond P2P
 * level `level`: the sender's links up, the socket link, the receiver's down), x6/5 on a PHB hop's PCI links through an
 * Intel CPU (intel); the ring's speed is the least link bandwidth over what its hops take from it. */
double ar_mgraph_ring_nccl_gbs(const struct ar_mgraph *g, enum ar_path level, int intel, double socket_gbs,
                               int *overhead); /* *overhead set to 1 when a hop took INTEL_P2P_OVERHEAD (may be NULL) */

/* Predicted time (us) of one allreduce of `bytes` per rank with algorithm a: fixed + bytes x per_byte for
 * the custom algorithms; for NCCL fixed + max(0, bytes x per_byte - step latencies), its pipelined steps
 * hiding under the data time. fixed_us (the time of an empty call) and us_per_byte are returned when not
 * NULL. */
double ar_model_time(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double bytes,
                     double *fixed_us, double *us_per_byte);
/* The same, its data part no faster than min_us_per_byte (a cap the algorithm's links do not show). */
double ar_model_time_capped(const struct ar_mgraph *g, const struct ar_mparams *p, enum ar_malgo a, double bytes,
                            double min_us_per_byte);
/* From this many GPUs on, `model` prints a progress line per step on stderr (the work grows as n^2). */
#define AR_MODEL_PROGRESS_GPUS 128
/* Computes every algorithm of mask once (what ar_model_time then reads for every size); with progress not
 * NULL, one line per step there: the graph's size, then each algorithm, with the seconds since t0. */
void ar_model_prepare(const struct ar_mgraph *g, const struct ar_mparams *p, int mask, FILE *progress, double t0);
double ar_model_clock(void); /* monotonic seconds */
int ar_mgraph_nlinks(const struct ar_mgraph *g);
/* For tests: the links of pair a -> b (their count; *links points into the graph) and a link's capacity. */
int ar_mgraph_path(const struct ar_mgraph *g, int a, int b, const int **links);
double ar_mgraph_cap(const struct ar_mgraph *g, int link);

/* busbw (GB/s) of `bytes` in t us on n ranks, as nccl-tests computes it. */
double ar_model_busbw(double bytes, double us, int n);

/* Smallest size (bytes, from the list) at which the best NCCL algorithm beats the best one-shot;
 * 0 when NCCL never wins in the list. */
size_t ar_model_crossover(const struct ar_mgraph *g, const struct ar_mparams *p, const size_t *sizes,
                          int nsizes, int custom_mask, int nccl_mask);

/* How a measured result was taken (method.c), from its "graph" and "timing": graph replays (graph K > 0), plain
 * launches back to back timed as one interval (--timing loop, nccl-tests), or each call timed alone (--timing iter).
 * The model's parameters are from back-to-back launches; ar_model_method_us is what the record's method adds to a
 * call: 0 under loop timing, iter_launch_us for a call timed alone, iter_launch_us / K for a replay of K calls. */
enum ar_mmethod { AR_MM_LOOP = 0, AR_MM_GRAPH, AR_MM_ITER };
const char *ar_mmethod_name(enum ar_mmethod m); /* "loop", "graph", "iter" */
enum ar_mmethod ar_model_method_of(json_t *rec);
double ar_model_method_us(const struct ar_mparams *p, json_t *rec);

/* Which family a measured result record is (backend, variant, nccl_algo/proto); -1 when none. */
int ar_model_family_of(json_t *rec);

/* What NCCL runs by default (nccltune.c, read from NCCL v2.29.2-1): its ring graph on this topology (search.cc) and
 * the transport on each of its hops (paths.cc), then per size the (algorithm, protocol) its tuning model (tuning.cc) estimates
 * fastest and the channels enqueue.cc gives it. */
struct ar_nccl_graph {
  int cc;              /* compute capability x10 used for NCCL's per-architecture constants */
  int channels;        /* the ring graph's channels (after ncclTopoDupChannels) */
  double bw_intra;     /* GB/s per channel, NCCL's units */
  int comm_channels;   /* comm->nChannels: twice the graph's */
  int fallback;        /* 1: no ring found at any speed (NCCL's "simple order", 0.1 GB/s) */
  double socket_gbs;   /* NCCL's socket link bandwidth on the ring, 0 when one socket */
  int intel_phb;       /* 1: Intel CPU and a ring hop through its root complex: search.cc's INTEL_P2P_OVERHEAD (x6/5) */
  int ring_hops;       /* hops of the ring (GPU i to i+1, the model's ring order) */
  int shm_hops;        /* of them, the hops NCCL runs through host memory (SHM) rather than P2P (paths.cc) */
  double shm_link_gbs; /* with shm_hops: the ring's slowest hop through the links (ar_mgraph_ring_host_gbs) */
  enum ar_path p2p_level; /* the worst path class NCCL uses P2P on (arbench's classes; NCCL's PHB = PHB and NODE) */
  const char *p2p_how; /* what set it: NCCL's default, its AMD two-GPU rule, or --calib */
  int p2p_by_env;      /* 1: the run's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE set it */
};
struct ar_nccl_choice {
  enum ar_malgo family; /* nccl-ring-ll, ... */
  int channels;         /* channels at that size */
  double nccl_us;       /* NCCL's own estimate of the time */
  double model_us;      /* the model's time for it (set by ar_nccl_default_time's callers that keep it) */
};
int ar_nccl_cc(const struct ar_topo *t, const struct ar_mparams *p, const char **how);
/* us per byte an NCCL family runs no faster than on a ring with hops through host memory (ng->shm_hops): the SHM rate
 * by protocol (params.c, fitted on a Gen5 box) and the links' rate of those hops (shm_link_gbs) at the family's share
 * (ar_model_nccl_eff); 0 for a ring that is P2P everywhere, a custom algorithm or ng NULL. */
double ar_nccl_shm_floor(const struct ar_mparams *p, const struct ar_nccl_graph *ng, int n, enum ar_malgo a);
/* The model's time for family a: with P2P where NCCL_P2P_LEVEL could give it (what forcing NCCL_P2P_LEVEL=SYS and
 * the family would run), but where NCCL has no P2P at any level (ng's p2p_level X: --calib nccl_no_p2p, a run's
 * NCCL_P2P_DISABLE) bounded by its hops through host memory as the default is (ar_nccl_shm_floor); a family fitted
 * by --calib for this rank count: the fit. */
double ar_nccl_family_time(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                           enum ar_malgo a, double bytes);
/* The us per byte ar_nccl_family_time holds family a to (0: none, its P2P cost). */
double ar_nccl_family_floor(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                            enum ar_malgo a);
double ar_nccl_socket_gbs(const struct ar_topo *t, const struct ar_mparams *p, const char **how);
void ar_nccl_graph(const struct ar_mgraph *g, const struct ar_topo *t, const struct ar_mparams *p,
                   struct ar_nccl_graph *out);
/* The P2P level a run's environment sets (NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL as paths.cc reads it: a name or its
 * legacy number), as nccl_p2p_env's value; 0 when it sets none or an unknown value. */
int ar_nccl_p2p_env(json_t *env);
/* "P2P on all 4 ring hops (...)" or "2 of 4 ring hops through host memory (SHM), ...": NCCL's transport on the ring. */
void ar_nccl_transport_words(const struct ar_nccl_graph *ng, char *buf, size_t len);
void ar_nccl_choose(const struct ar_nccl_graph *ng, const struct ar_mparams *p, int n, double bytes,
                    struct ar_nccl_choice *c);
/* The model's time (us) of what NCCL runs by default at `bytes`: its family's time, its data part no faster than
 * the chosen channels carry (nccl_chan_gbs each). The choice is returned in *c. */
double ar_nccl_default_time(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                            double bytes, struct ar_nccl_choice *c);

/* Smallest size (from the list) at which what NCCL runs by default beats the best of custom_mask; 0 when none. */
size_t ar_model_crossover_default(const struct ar_mgraph *g, const struct ar_mparams *p, const struct ar_nccl_graph *ng,
                                  const size_t *sizes, int nsizes, int custom_mask);

/* A parameter the topology does not give, with the value the model uses and where that came from (assume.c).
 * Every one is printed (text: '# assumed:' lines; json: the run record's "assumptions"). */
struct ar_massume {
  char name[32];    /* "socket_gbs", "gpu_cc", ... (the --calib knob that overrides it) */
  char value[48];   /* "10 GB/s" */
  char why[480];    /* what the topology lacks, and the source of the value */
};
#define AR_MAX_ASSUME 10
int ar_model_assumptions(const struct ar_topo *t, const struct ar_mgraph *g, const struct ar_mparams *p,
                         struct ar_massume *out);
/* Names iter_launch_us (appended to a[n]) for results timed call by call; returns the new count. */
int ar_model_assume_method(const struct ar_mparams *p, struct ar_massume *a, int n);
json_t *ar_model_assumptions_json(const struct ar_massume *a, int n);
void ar_model_print_assumed(const struct ar_massume *a, int n); /* '# assumed: name = value: why' lines */

/* `arbench model` subcommand (cmd.c), its --fit (fit.c) and --against (against.c) parts. */
int ar_model_fit(int nfiles, char **files, const char *out, char *err, size_t len);
int ar_model_against(const struct ar_mparams *p, const struct ar_topo *t, int nfiles, char **files, int json,
                     char *err, size_t len);
/* The diagnosis for a result far below its prediction ("" when none applies); ng: NCCL's default graph for a NCCL
 * result that recorded nothing of what it ran (its transport then comes from NCCL's rules), else NULL. */
void ar_model_diagnose(json_t *rec, const struct ar_topo *t, const struct ar_nccl_graph *ng, double measured_busbw,
                       double predicted_busbw, char *buf, size_t len);

#endif
