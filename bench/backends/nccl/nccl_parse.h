/* nccl_parse.h — pure-C parsers of the nccl backend: variant text ("algo=Ring,proto=LL,ctas=8")
 * checked against an NCCL version, and NCCL's own INFO log lines (what NCCL really did). */
#ifndef AR_NCCL_PARSE_H
#define AR_NCCL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* NCCL_VERSION_CODE of major.minor.patch (the encoding changed at 2.9). */
int ar_nccl_code(int major, int minor, int patch);
/* "2.28.9" from a version code. */
void ar_nccl_code_str(int code, char *buf, size_t len);

/* One variant of the nccl backend. Empty strings / 0 = NCCL's own choice. */
struct ar_nccl_variant {
  char algo[96];  /* NCCL_ALGO value, NCCL's spelling: "Ring", "Ring,Tree" */
  char proto[48]; /* NCCL_PROTO value: "LL", "LL128", "Simple" */
  int ctas;       /* ncclConfig_t minCTAs = maxCTAs, 0 = default */
  int reg;        /* register buffers with ncclCommRegister */
  int symm;       /* symmetric windows (ncclCommWindowRegister), NCCL >= 2.27 */
  char tuner[224];     /* tuner=FILE: arbench's tuner plugin with these decisions (absolute path), "" none */
  char tuner_lib[512]; /* the plugin library NCCL_TUNER_PLUGIN names (ar_nccl_tuner_lib) */
};

/* Parse "key=val,key=val" (keys algo, proto, ctas, reg, symm, tuner; several algorithms or protocols joined
 * by '+'). Names are matched case-insensitively and checked against version code (the NCCL in use).
 * Returns 0 or -AR_EINVAL with one line naming the bad value and what is allowed. */
int ar_nccl_variant_parse(const char *text, int version, struct ar_nccl_variant *v, char *err,
                          size_t len);

/* The tuner plugin library for tuner=: $ARBENCH_TUNER_PLUGIN, else the build tree's
 * libarbench-tuner.so, else the installed one. 0, or -AR_EINVAL with one line. */
int ar_nccl_tuner_lib(char *out, size_t olen, char *err, size_t len);

#define AR_NCCL_MAX_TUNED 2048
#define AR_NCCL_TUNER_LINES 8

/* What arbench's tuner plugin said through NCCL's logger (tuner/ar_tuner_plugin.c), and which ABI
 * version NCCL took it as. */
struct ar_nccl_tuner_log {
  int ran;             /* the plugin's init line was seen: it loaded a file (or said why not) */
  char abi[8];         /* "v5" from NCCL's "TUNER/Plugin: Using arbench (v5)"; "v3" on 2.22; "" unknown */
  char match[8];       /* "exact", "nearest" or "none": the decisions group of this communicator */
  int group_nranks;    /* the group's nRanks (exact or nearest) */
  int ranges;          /* ranges in that group */
  char error[240];     /* the plugin's WARN line: the file was not loaded, NCCL tuned on its own */
  int applied, unavailable; /* ranges used / left to NCCL (entry unavailable), one line each */
  char lines[AR_NCCL_TUNER_LINES][200]; /* the first ranges' lines, "LO..HI B ...: algo/proto, channels" */
};

/* What NCCL's INFO lines said about one communicator. */
struct ar_nccl_log {
  int init_complete;     /* "... Init COMPLETE" seen */
  int nranks;            /* from the Init COMPLETE line, 0 unknown */
  int coll_channels;     /* "N coll channels, ..." */
  int transports;        /* AR_NCCL_T_* bits from "via P2P/..", "via SHM/..", "via NET/.." */
  char transport[64];    /* first transport detail seen, e.g. "P2P/CUMEM/read" */
  char path_intra[8];    /* intra-node path type of the first graph ("NVL", "PIX", "SYS"...) */
  char env_algo[96];     /* "NCCL_ALGO set by environment to X" */
  char env_proto[48];
  struct ar_nccl_tuner_log tuner;
  int warnings;          /* NCCL WARN lines */
  char first_warning[160];
  int ntuned;            /* per-call tuning decisions (rank 0 only prints them) */
  struct ar_nccl_tuned {
    uint64_t bytes;
    int dtype;           /* enum ar_dtype of the call, -1 until ar_nccl_log_key() matched it */
    int symmetric;       /* "AllReduce [Symmetric]: ... -> Kernel K": NCCL's symmetric kernel ran */
    char algo[24];       /* "RING", "TREE", "NVLS"... as NCCL prints them; "SYMMETRIC" */
    char proto[8];       /* "LL", "LL128", "SIMPLE"; "" for a symmetric kernel */
    char kernel[48];     /* the symmetric kernel's name */
    int channels;        /* Hi - Lo + 1, or the symmetric kernel's nchannels */
  } tuned[AR_NCCL_MAX_TUNED];
};

/* One call of the probe, in the order it was made. */
struct ar_nccl_call {
  uint64_t bytes;
  int dtype;
};

enum { AR_NCCL_T_P2P = 1, AR_NCCL_T_SHM = 2, AR_NCCL_T_NET = 4 };

void ar_nccl_log_init(struct ar_nccl_log *log);
/* Feed one line (with or without the "host:pid:tid [dev] NCCL INFO " prefix). */
void ar_nccl_log_line(struct ar_nccl_log *log, const char *line);
/* Feed a whole file; -1 when it cannot be read. */
int ar_nccl_log_file(struct ar_nccl_log *log, const char *path);
/* NCCL's lines say bytes, not the datatype: give each decision the dtype of the probe call it came
 * from (calls in the order made; rank 0 prints one line per call of 2+ ranks). */
void ar_nccl_log_key(struct ar_nccl_log *log, const struct ar_nccl_call *calls, int ncalls);
/* Last tuning decision for a message of bytes in dtype, NULL when none. */
const struct ar_nccl_tuned *ar_nccl_log_find(const struct ar_nccl_log *log, uint64_t bytes, int dtype);
/* CTAs for ncclConfig_t: the variant's ctas=, else the user's NCCL_MIN_CTAS/NCCL_MAX_CTAS (which
 * the backend clears from the environment, or NCCL would let them override ctas=), meaning in the config
 * what they meant as variables: a minimum alone gets NCCL's default maximum (64). 0 = NCCL's own. */
void ar_nccl_ctas(int ctas, const char *user_min, const char *user_max, int *min, int *max);
/* NCCL_DEBUG_FILE's file name as NCCL expands it (%h host, %p pid, %% percent). */
void ar_nccl_debug_path(const char *pattern, const char *host, int pid, char *out, size_t len);
/* "P2P", "SHM", "P2P+SHM", "NET", "none" for the transport bits. */
const char *ar_nccl_transport_name(int bits);
/* The record's "nccl_tuner" object: which decisions file and plugin a tuner= variant set, whether the
 * plugin ran on this communicator (and as which ABI), the group and ranges it used, its error, and a
 * note when it did not run or ran without tuner= (env_plugin: the user's own NCCL_TUNER_PLUGIN, NULL when
 * unset: then the plugin came from there, not from an earlier tuner= communicator). NULL when neither (a plain
 * variant). New reference. */
struct json_t;
struct json_t *ar_nccl_tuner_json(const struct ar_nccl_tuner_log *t, const char *file, const char *lib,
                                  const char *env_plugin);

/* Is forcing LL128 unsafe on this path? (no NVLink between the ranks: data can be corrupted) */
int ar_nccl_ll128_unsafe(const struct ar_nccl_log *log, int nranks);

#endif
