/* table.c — `arbench table FILE...`: sizes x configurations (p50 us, optionally busbw), the best per
 * size marked, crossovers listed, one table per (dtype, ranks, placement, op); markdown or CSV. */
#include "analysis/analysis.h"
#include "ar.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct table_opts {
  int busbw, csv;
  struct ar_filter filter;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench table [options] RESULTS.jsonl...\n"
          "Sizes x configurations: p50 latency (us) per size, the best per size in bold, and the sizes\n"
          "where the winner changes (crossovers). One table per (dtype, ranks, placement, op).\n"
          "A configuration is spec + sweep point (+ [stack] when the files hold several stacks).\n"
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

static void print_csv(const struct ar_grid *g) {
  for (int s = 0; s < g->nsize; s++) {
    int best = ar_grid_best(g, s, NULL);
    for (int c = 0; c < g->ncfg; c++) {
      json_t *r = ar_grid_at(g, s, c);
      if (!r) continue;
      printf("%s,%d,%s,%s,%zu,", g->dtype, g->ranks, g->placement, g->op, g->size[s]);
      csv_field(g->cfg[c]);
      printf(",%.6g,%.6g,%d,%lld\n", ar_rec_p50(r), busbw_of(r), c == best,
             (long long)ar_rec_num(r, "wrong", 0));
    }
  }
}

static void md_cell(json_t *r, int best, int busbw, int *flagged) {
  char us[32];
  if (!r) {
    printf(" - |");
    return;
  }
  ar_fmt_us(ar_rec_p50(r), us, sizeof us);
  int wrong = ar_rec_num(r, "wrong", 0) > 0;
  *flagged |= wrong;
  printf(" %s%s%s", best ? "**" : "", us, best ? "**" : "");
  if (busbw) printf(" / %.2f", busbw_of(r));
  printf("%s |", wrong ? " !" : "");
}

static void print_crossovers(const struct ar_grid *g) {
  int prev = -1, n = 0;
  char from[32], to[32];
  printf("\nCrossovers:");
  for (int s = 0; s < g->nsize; s++) {
    int b = ar_grid_best(g, s, NULL);
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

static void print_md(const struct ar_grid *g, int busbw) {
  int flagged = 0;
  printf("## %s, %d rank%s, %s, %s\n\n", g->dtype, g->ranks, g->ranks == 1 ? "" : "s",
         strcmp(g->placement, "in") ? "out-of-place" : "in-place", g->op);
  printf("p50 us%s; best per size in bold.\n\n| size |", busbw ? " / busbw GB/s" : "");
  for (int c = 0; c < g->ncfg; c++) printf(" %s |", g->cfg[c]);
  printf("\n|---:|");
  for (int c = 0; c < g->ncfg; c++) printf("---:|");
  printf("\n");
  for (int s = 0; s < g->nsize; s++) {
    char sz[32];
    ar_size_format(g->size[s], sz, sizeof sz);
    printf("| %s |", sz);
    int best = ar_grid_best(g, s, NULL);
    for (int c = 0; c < g->ncfg; c++) md_cell(ar_grid_at(g, s, c), c == best, busbw, &flagged);
    printf("\n");
  }
  print_crossovers(g);
  if (flagged) printf("! = wrong elements reported by the correctness check: do not use these numbers.\n");
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

static int parse(int argc, char **argv, struct table_opts *o) {
  static const struct option lo[] = {
    {"busbw", no_argument, 0, 'B'},         {"format", required_argument, 0, 'F'},
    AR_FILTER_OPTIONS,
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  int c, f;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hd:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'B') o->busbw = 1;
    else if (c == 'F') {
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
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_ana a;
  char err[AR_ERRLEN];
  if (ar_ana_load_stats(&a, argc - optind, argv + optind, err, sizeof err) ||
      ar_filter_check(&o.filter, a.results, err, sizeof err)) {
    fprintf(stderr, "arbench table: %s\n", err);
    ar_ana_free(&a);
    return AR_EXIT_USAGE;
  }
  int had = json_array_size(a.results) > 0;
  ar_filter_apply(&o.filter, a.results);
  struct ar_grid *g = NULL;
  int n = 0, status = AR_EXIT_OK;
  if (had && !json_array_size(a.results)) {
    fprintf(stderr, "arbench table: no result records match the filters\n");
    status = AR_EXIT_FAIL;
  } else if (ar_grids_build(a.results, a.runs, &g, &n)) {
    fprintf(stderr, "arbench table: out of memory\n");
    status = AR_EXIT_FAIL;
  } else {
    if (o.csv) printf("dtype,ranks,placement,op,size,config,p50_us,busbw_gbs,best,wrong\n");
    for (int k = 0; k < n; k++) o.csv ? print_csv(&g[k]) : print_md(&g[k], o.busbw);
    if (!o.csv && !n) printf("(no result records)\n\n");
    if (!o.csv) print_notes(a.notes);
  }
  ar_grids_free(g, n);
  ar_ana_free(&a);
  return status;
}
