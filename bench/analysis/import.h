/* import.h — the pieces of `arbench import nccl-tests` shared by its files: one test of a log as it is
 * read (import.c: lines, header facts, tests), its table's columns and rows (import_rows.c). */
#ifndef AR_IMPORT_H
#define AR_IMPORT_H

#include "ar.h"
#include "import_ranks.h"
#include <jansson.h>

/* Where a table's numbers are: per half (out-of-place 0, in-place 1) time, algbw, busbw, #wrong|error. */
struct ar_nt_layout {
  int known;        /* from a header line, or inferred from the first row */
  int ncols;        /* tokens of a row */
  int redop, root;  /* column index, -1 when the table has none */
  int col[2][4];    /* [half][time, algbw, busbw, wrong]; -1 when that half is not printed */
  int iter[2][4];   /* [half][i_min, i_max, i_p99, i_cv%] of nccl-tests >= 2.19.2 -I 1; -1 when not printed */
  int error_col;    /* old logs: the wrong column is 'error' (max abs error), not '#wrong' */
  int timestamp;    /* a trailing timestamp column (nccl-tests -T): two tokens in a row */
  int cputime;      /* 'cputime' columns (nccl-tests -C): launch time, not the collective's */
  double time_scale; /* 1000 when the units line says (ms) */
};

/* One test of the log: one all_reduce_perf (or other) run, from its first header line to its footer. */
struct ar_nt_test {
  json_t *run;           /* the run record being filled */
  json_t *rows;          /* its result records */
  json_t *ranks_seen;    /* Rank line index -> host */
  char name[64];         /* the program named ("all_reduce_perf_mpi"), "" when unnamed */
  int line;              /* first line */
  int sized;             /* rows of more than 0 bytes read */
  int cycle;             /* the repeat (nccl-tests -N, arbench --repeat) the rows belong to */
  unsigned long long last_size; /* of the last row of more than 0 bytes */
  int done;              /* its footer ("# Out of bounds values", "# Avg bus bandwidth") came */
  int other;             /* not all_reduce output: why says so */
  char why[160];
  int other_line;
  struct ar_nt_layout lay;
  struct ar_nt_evidence ev;
  int placements;        /* arbench's own logs: 1 out, 2 in, 3 both (0: nccl-tests, both) */
};

/* The reader's state that rows need. */
struct ar_nt_ctx {
  const char *path;
  int line;
  char err[AR_ERRLEN];
  int short_row; /* the failed row had fewer columns than its table: torn, if nothing of a table follows */
};

/* Column layout from a header line's tokens ("size count type redop root time algbw busbw #wrong ..."),
 * after its leading '#'. -AR_EINVAL (one line in c->err) for a layout no result can be read from. */
int ar_nt_import_header(struct ar_nt_ctx *c, struct ar_nt_layout *l, char **tok, int n);
/* One table row of test t (tokens of the line): result records appended to t->rows, or t->other set when
 * the row is another collective's. -AR_EINVAL with one line in c->err for a row that cannot be read. */
int ar_nt_import_row(struct ar_nt_ctx *c, struct ar_nt_test *t, char **tok, int n);
/* Is name an all_reduce_perf program ("all_reduce_perf", "all_reduce_perf_mpi")? */
int ar_nt_is_allreduce(const char *name);
/* nccl-tests' type name ("float", "int", "bfloat16", ...) -> arbench's dtype and its bytes; -1 when unknown. */
int ar_nt_type(const char *name, const char **dtype, int *bytes);
/* `import nccl-tests-json FILE` (import_json.c): the -J file of one all_reduce_perf run -> its run record and
 * results appended to out; -AR_EINVAL with one line in err. */
int ar_nt_import_json(const char *path, const char *stack, int forced_ranks, json_t *out, char *err, size_t len);

#endif
