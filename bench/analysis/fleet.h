/* fleet.h — `arbench fleet`: many boxes' results read into one compact model (boxes grouped by GPU model,
 * GPU count and stack; cells of allreduce results and of link records), each box against its group's fleet. */
#ifndef AR_FLEET_H
#define AR_FLEET_H

#include <jansson.h>
#include <stddef.h>

#define AR_FLEET_MARGIN 0.10 /* default --margin: slower than the fleet by more than 10% */

/* A group: boxes bought to be identical (GPU model, GPU count, stack). */
struct ar_fl_group {
  char key[256];   /* "NVIDIA RTX PRO 6000 x 8, stack cu130" */
  char model[128]; /* GPU model ("no GPU" for CPU ranks) */
  int gpus;
  char stack[64];
};

/* A box: one host within one group; its topology (the first run record's summary, own reference). */
struct ar_fl_box {
  char host[128];
  int group;
  json_t *topo;
  char run_src[160]; /* file:line of the run record that first named it */
  char slurm_job[64]; /* the Slurm job of that run, "" when none */
  long long wrong;    /* wrong elements (words) in its result and link records: a finding by itself */
  char wrong_what[200]; /* the first record with wrong ones */
};

/* A cell: what is compared across the boxes of a group. Results: (configuration, dtype, size, placement, op,
 * ranks, method); links: (method, direction, pattern, flow, bytes, flows at once). Values are times (us):
 * links in GB/s become bytes / GB/s, so "slower" is "larger" for both kinds. */
enum ar_fl_kind { AR_FL_RESULT, AR_FL_LINK };
struct ar_fl_cell {
  char key[512];   /* identity (group included) */
  char label[256]; /* "shm-oneshot float 2 ranks" / "link read uni pairs 3->5" */
  char what[96];   /* the configuration alone ("shm-oneshot"; "link 3->5 read") for findings */
  char path[16];   /* link records: the pair's path class ("" for results) */
  int kind, group;
  size_t size;     /* bytes */
  char unit_gbs;   /* links measured in GB/s (the finding prints GB/s), else us */
};

/* One box's measurements of one cell: the log time of each run (each (run_id, repeat) of a result; each
 * repeat of a link record), and for a result measured in one run the sorted window of its samples. */
struct ar_fl_meas {
  int box, cell;
  int nv, cap;
  double *v;          /* log us per run */
  char (*run)[48];    /* run keys (duplicates of a run are dropped) */
  double *win;        /* single-run results: sorted samples of ranks woff .. woff + nwin of wn (us) */
  int nwin, woff, wn;
};

struct ar_fleet {
  struct ar_fl_group *g;
  struct ar_fl_box *b;
  struct ar_fl_cell *c;
  struct ar_fl_meas *m;
  int ng, nb, nc, nm, capg, capb, capc, capm;
  json_t *gidx, *bidx, *cidx, *midx; /* key -> index */
  json_t *runs;                      /* run_id -> [box index] (as an integer) */
  long records, left_out;            /* result/link records read; records of runs that are not one box */
  json_t *notes;                     /* one line per kind of record left out (strings) */
};

/* Read every file into f. 0, or -AR_EINVAL with one line in err (FILE:LINE and why), -AR_ERUNTIME. */
int ar_fleet_read(struct ar_fleet *f, int nfiles, char **paths, char *err, size_t len);
void ar_fleet_free(struct ar_fleet *f);

/* ---- the comparison (fleet_test.c) ---- */

/* Per measurement: the fleet's time of its cell (the median over the group's boxes of each box's median),
 * the box's ratio to it, and the p-value of "this box is no slower than (1 + margin) x the fleet". */
struct ar_fl_verdict {
  double ref_us, box_us, ratio; /* ratio = box / fleet (time) */
  double p;                     /* NAN: cannot be tested (one value and no samples) */
  char slow;                    /* flagged: Holm over every (box, cell) test of the call rejects */
  char within;                  /* shown within the margin (one-sided test at 5%: the box is no slower than
                                 * (1 + margin) x the fleet), for the box's equivalent/undecided verdict */
};
/* Tests every measurement of cells with two or more boxes; v[nm]. fam_tests = Holm's m. */
int ar_fleet_compare(const struct ar_fleet *f, double margin, double alpha, struct ar_fl_verdict *v, int *fam_tests);

/* ---- topology differences within a group (fleet_topo.c) ---- */

/* One line per difference between a box's topology and its group's (the most common value of each GPU's
 * link rate, the path between each GPU pair, the GPU count the topology shows), appended to out (objects
 * {"box": index, "text": "..."}). Returns how many. */
int ar_fleet_topo_findings(const struct ar_fleet *f, json_t *out);

/* The command (fleet.c). */
int ar_cmd_fleet(int argc, char **argv);

#endif
