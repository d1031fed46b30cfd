/* table.c — `arbench table FILE...`: sizes x configurations (p50 us, optionally busbw), the best per
 * size marked, crossovers listed, one table per (dtype, ranks, placement, op); markdown or CSV;
 * --by stack: each configuration's stacks in adjacent columns. */
#include "analysis/analysis.h"
#include "ar.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table_opts {
  int busbw, csv;
  const char *by; /* --by stack (or a point key): groups side by side */
  struct ar_filter filter;
  struct ar_noise noise;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench table [options] RESULTS.jsonl...\n"
          "Sizes x configurations: p50 latency (us) per size (the median over runs when a measurement\n"
          "has several), the best per size in bold, and the sizes where the winner changes (crossovers).\n"
          "A configuration wins a size only when it is faster beyond the noise: the bootstrap 95%%\n"
          "interval of the p50 ratio (over runs and samples, as in compare) excludes 1. Otherwise the\n"
          "size is a tie, its tied cells marked ~ (csv: tie=1), and the choice keeps the previous size's\n"
          "winner, else the next clear winner, else the simplest algorithm. When a side has a single run\n"
          "its samples cannot show drift between runs: differences below --drift are ties too.\n"
          "One table per (dtype, ranks, placement, op).\n"
          "  --drift PCT          run-to-run drift allowed for single-run measurements (default 5)\n"
          "A configuration is spec + sweep point (+ [stack] when the files hold several stacks).\n"
          "  --by stack           stacks side by side: the stack (sweep --stacks' point key, else the run's\n"
          "                       stack) leaves the configuration, and each configuration gets one column\n"
          "                       per stack, in the files' order. --by KEY does that for a point key (nccl)\n"
          "  --busbw              also show bus bandwidth (GB/s, from p50) in each cell\n"
          "  --format F           markdown (default) or csv (long form: one row per size and config)\n"
          "  --backend LIST       only these backends (comma list; repeatable)\n"
          "  --dtype LIST         only these dtypes (float, half, bfloat16, int32, ...)\n"
          "  --ranks LIST         only these rank counts\n"
          "  --point NAME=V       only results of that sweep point value (repeatable)\n"
          "  --placement out|in   only out-of-place or in-place results\n"
          "Skipped and failed configurations are listed under the tables.\n");
}

static double busbw_of(json_t *r) {
  double b = ar_rec_num(r, "busbw_p50_gbs", NAN);
  return isnan(b) ? ar_rec_num(r, "busbw_gbs", NAN) : b;
}

static void csv_field(const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"') putchar('"');
    putchar(*s);
  }
  putchar('"');
}

/* Choices and ties of a grid (ar_grid_choose); NULL when out of memory. */
struct choices {
  int *choice;
  char *tied;
};

static int choose(const struct ar_grid *g, const struct ar_noise *nz, struct choices *ch) {
  ch->choice = calloc((size_t)g->nsize + 1, sizeof *ch->choice);
  ch->tied = calloc((size_t)g->nsize * (size_t)g->ncfg + 1, 1);
  if (ch->choice && ch->tied && !ar_grid_choose(g, NULL, nz, ch->choice, ch->tied)) return 0;
  free(ch->choice);
  free(ch->tied);
  return -1;
}

static void print_csv(const struct ar_grid *g, const struct choices *ch) {
  for (int s = 0; s < g->nsize; s++) {
    int ties = ar_grid_ties(g, ch->tied, s);
    for (int c = 0; c < g->ncfg; c++) {
      json_t *r = ar_grid_at(g, s, c);
      if (!r) continue;
      printf("%s,%d,%s,%s,%zu,", g->dtype, g->ranks, g->placement, g->op, g->size[s]);
      csv_field(g->cfg[c]);
      printf(",%.6g,%.6g,%d,%lld,%d\n", ar_grid_p50(g, s, c), busbw_of(r), c == ch->choice[s],
             (long long)ar_rec_num(r, "wrong", 0), ties > 1 && ch->tied[(size_t)s * g->ncfg + c]);
    }
  }
}

/* One cell: p50 over runs, bold for the choice, ~ for a configuration tied with the fastest. */
static void md_cell(const struct ar_grid *g, int s, int c, int best, int tie, int busbw, int *flagged) {
  char us[32];
  json_t *r = ar_grid_at(g, s, c);
  if (!r) {
    printf(" - |");
    return;
  }
  ar_fmt_us(ar_grid_p50(g, s, c), us, sizeof us);
  int wrong = ar_rec_num(r, "wrong", 0) > 0;
  /* --buffers cold whose rotation spanned under 2 x the cache (the engine's cold_reached; issue 21) */
  int warm = !strcmp(ar_rec_str(r, "buffers", ""), "cold") && json_is_false(json_object_get(r, "cold_reached"));
  *flagged |= wrong | warm << 1;
  printf(" %s%s%s%s", best ? "**" : "", us, best ? "**" : "", tie ? " ~" : "");
  if (busbw) printf(" / %.2f", busbw_of(r));
  printf("%s%s |", wrong ? " !" : "", warm ? " ^" : "");
}

static void print_crossovers(const struct ar_grid *g, const struct choices *ch) {
  int prev = -1, n = 0;
  char from[32], to[32];
  printf("\nCrossovers:");
  for (int s = 0; s < g->nsize; s++) {
    int b = ch->choice[s];
    if (b < 0) continue;
    if (prev >= 0 && b != prev) {
      ar_size_format(g->size[s - 1], from, sizeof from);
      ar_size_format(g->size[s], to, sizeof to);
      printf("%s %s -> %s between %s and %s", n ? ";" : "", g->cfg[prev], g->cfg[b], from, to);
      n++;
    }
    prev = b;
  }
  if (!n && prev >= 0) printf(" none (%s is best at every size)", g->cfg[prev]);
  printf("\n");
}

static void print_md(const struct ar_grid *g, const struct choices *ch, int busbw) {
  int flagged = 0, ties = 0;
  printf("## %s, %d rank%s, %s, %s\n\n", g->dtype, g->ranks, g->ranks == 1 ? "" : "s",
         strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->op);
  printf("p50 us%s; best per size in bold (faster beyond the noise, or the choice kept at a tie).\n\n| size |",
         busbw ? " / busbw GB/s" : "");
  for (int c = 0; c < g->ncfg; c++) printf(" %s |", g->cfg[c]);
  printf("\n|---:|");
  for (int c = 0; c < g->ncfg; c++) printf("---:|");
  printf("\n");
  for (int s = 0; s < g->nsize; s++) {
    char sz[32];
    ar_size_format(g->size[s], sz, sizeof sz);
    printf("| %s |", sz);
    int tie = ar_grid_ties(g, ch->tied, s) > 1;
    ties += tie;
    for (int c = 0; c < g->ncfg; c++)
      md_cell(g, s, c, c == ch->choice[s], tie && ch->tied[(size_t)s * g->ncfg + c], busbw, &flagged);
    printf("\n");
  }
  print_crossovers(g, ch);
  if (ties)
    printf("~ = a tie: within the noise of the fastest (bootstrap 95%% interval of the p50 ratio contains 1);\n"
           "the choice keeps the previous size's, else the next clear winner's, else the simplest algorithm.\n");
  if (flagged & 1) printf("! = wrong elements reported by the correctness check: do not use these numbers.\n");
  if (flagged & 2)
    printf("^ = not cold: --buffers cold, but the buffer rotation spanned under twice the cache (rotation_bytes), "
           "so these times include cache hits.\n");
  if (g->dups) printf("Note: %d duplicate records (same configuration and size); the later one is shown.\n", g->dups);
  printf("\n");
}

static void print_notes(json_t *notes) {
  json_t *lines = ar_note_lines(notes), *l;
  size_t i;
  if (json_array_size(lines)) printf("Not measured (skip/error records):\n");
  json_array_foreach(lines, i, l) printf("- %s\n", json_string_value(l));
  json_decref(lines);
}

/* --by: order the columns configuration by configuration, each one's groups in the files' order. */
struct col {
  int c, base, group;
};

static int cmp_col(const void *x, const void *y) {
  const struct col *a = x, *b = y;
  if (a->base != b->base) return a->base - b->base;
  return a->group != b->group ? a->group - b->group : a->c - b->c;
}

static int side_by_side(struct ar_grid *g, const struct ar_by *b) {
  int n = g->ncfg;
  struct col *cols = calloc((size_t)n + 1, sizeof *cols);
  char (*bases)[256] = calloc((size_t)n + 1, sizeof *bases), (*cfg)[256] = calloc((size_t)n + 1, sizeof *cfg);
  json_t **rec = calloc((size_t)n + 1, sizeof *rec);
  json_t **cell = calloc((size_t)(n * g->nsize) + 1, sizeof *cell), **runs = calloc((size_t)(n * g->nsize) + 1, sizeof *runs);
  int rc = cols && bases && cfg && rec && cell && runs ? 0 : -1, nb = 0;
  for (int c = 0; !rc && c < n; c++) {
    char label[256];
    ar_cfg_label(g->cfgrec[c], NULL, 0, label, sizeof label);
    int k = 0;
    while (k < nb && strcmp(bases[k], label)) k++;
    if (k == nb) snprintf(bases[nb++], sizeof bases[0], "%s", label);
    cols[c] = (struct col){c, k, ar_by_index(b, ar_rec_str(g->cfgrec[c], "_by", ""))};
  }
  if (!rc) qsort(cols, (size_t)n, sizeof *cols, cmp_col);
  for (int i = 0; !rc && i < n; i++) {
    int c = cols[i].c;
    memcpy(cfg[i], g->cfg[c], sizeof cfg[0]);
    rec[i] = g->cfgrec[c];
    for (int s = 0; s < g->nsize; s++) {
      cell[s * n + i] = g->cell[s * n + c];
      runs[s * n + i] = g->runs[s * n + c];
    }
  }
  if (!rc) {
    memcpy(g->cfg, cfg, sizeof cfg[0] * (size_t)n);
    memcpy(g->cfgrec, rec, sizeof *rec * (size_t)n);
    memcpy(g->cell, cell, sizeof *cell * (size_t)(n * g->nsize));
    memcpy(g->runs, runs, sizeof *runs * (size_t)(n * g->nsize));
  }
  free(cols);
  free(bases);
  free(cfg);
  free(rec);
  free(cell);
  free(runs);
  return rc;
}

static int parse(int argc, char **argv, struct table_opts *o) {
  static const struct option lo[] = {
    {"busbw", no_argument, 0, 'B'},         {"format", required_argument, 0, 'F'},
    {"drift", required_argument, 0, 'D'},   {"by", required_argument, 0, 'Y'},
    AR_FILTER_OPTIONS,
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  int c, f;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hd:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'B') o->busbw = 1;
    else if (c == 'D') {
      char err[AR_ERRLEN];
      if (ar_noise_drift_parse(&o->noise, optarg, err, sizeof err)) {
        fprintf(stderr, "arbench table: %s\n", err);
        return -AR_EINVAL;
      }
    }
    else if (c == 'Y') {
      if (!*optarg || strpbrk(optarg, ",= ")) {
        fprintf(stderr, "arbench table: bad --by '%s' (expected stack or a sweep point key, e.g. nccl)\n", optarg);
        return -AR_EINVAL;
      }
      o->by = optarg;
    } else if (c == 'F') {
      if (strcmp(optarg, "markdown") && strcmp(optarg, "md") && strcmp(optarg, "csv")) {
        fprintf(stderr, "arbench table: bad --format '%s' (expected markdown or csv)\n", optarg);
        return -AR_EINVAL;
      }
      o->csv = !strcmp(optarg, "csv");
    } else if ((f = ar_filter_opt(&o->filter, "table", c, optarg)) < 0) {
      return -AR_EINVAL;
    } else if (!f) return ar_ana_badopt("table", c, argv[optind - 1]), -AR_EINVAL;
  }
  if (optind >= argc) {
    fprintf(stderr, "arbench table: no results files given (usage: arbench table [options] FILE...)\n");
    return -AR_EINVAL;
  }
  return 0;
}

int ar_cmd_table(int argc, char **argv) {
  struct table_opts o = {0};
  ar_noise_defaults(&o.noise);
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_ana a;
  char err[AR_ERRLEN];
  if (ar_ana_load(&a, argc - optind, argv + optind, err, sizeof err) ||
      ar_filter_check(&o.filter, a.results, err, sizeof err)) {
    fprintf(stderr, "arbench table: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  int had = json_array_size(a.results) > 0;
  ar_filter_apply(&o.filter, a.results);
  struct ar_grid *g = NULL;
  struct ar_by by = {0};
  int n = 0, status = AR_EXIT_OK;
  json_t *results = a.results, *runs = a.runs;
  if (o.by && ar_by_split(&by, a.results, a.runs, o.by, err, sizeof err)) {
    fprintf(stderr, "arbench table: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  if (o.by) {
    results = by.results;
    runs = by.runs;
  }
  if (had && !json_array_size(a.results)) {
    fprintf(stderr, "arbench table: no result records match the filters\n");
    status = AR_EXIT_FAIL;
  } else if (ar_grids_build(results, runs, &g, &n)) {
    fprintf(stderr, "arbench table: out of memory\n");
    status = AR_EXIT_FAIL;
  } else {
    if (o.csv) printf("dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong,tie\n");
    for (int k = 0; k < n && !status; k++) {
      struct choices ch;
      if ((o.by && side_by_side(&g[k], &by)) || choose(&g[k], &o.noise, &ch)) {
        fprintf(stderr, "arbench table: out of memory\n");
        status = AR_EXIT_FAIL;
        break;
      }
      if (o.csv) print_csv(&g[k], &ch);
      else print_md(&g[k], &ch, o.busbw);
      free(ch.choice);
      free(ch.tied);
    }
    if (!o.csv && !n) printf("(no result records)\n\n");
    if (!o.csv) print_notes(a.notes);
  }
  ar_grids_free(g, n);
  ar_by_free(&by);
  ar_ana_free(&a);
  return status;
}
