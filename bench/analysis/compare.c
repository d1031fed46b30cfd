/* compare.c — `arbench compare A B`: match results on (backend, variant, point, dtype, size, ranks,
 * placement, op); per match p50(B)/p50(A) with a bootstrap 95% interval and a verdict (faster, slower,
 * equivalent, undecided; between launches the launch is the replicate); unmatched.
 * `--by stack` (several stacks in any files): each stack against one baseline, side by side. */
#include "analysis/analysis.h"
#include "analysis/compare_links.h"
#include "links/links.h"
#include "links/records.h"
#include "ar.h"
#include "commands.h"
#include "opts.h"
#include "results.h"
#include "stats.h"
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define AR_CMP_RESAMPLES AR_NOISE_RESAMPLES
#define AR_CMP_SEED AR_NOISE_SEED

/* The launches a side a one-launch row names as what would decide it (with the measured launch spread, what they would
 * detect). */
#define AR_LAUNCHES_SUGGESTED 3

struct cmp_opts {
  int json, resamples, explain;
  double margin, drift; /* --margin, --drift (compare: none assumed by default: one run a side decides nothing) */
  unsigned long long seed;
  struct ar_filter filter;
  const char *a, *b;
  const char *by, *baseline; /* grouped mode: --by KEY (stack), --baseline GROUP */
  int nfiles;
  char **files;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench compare [options] A.jsonl B.jsonl\n"
          "       arbench compare --by stack [--baseline NAME] [options] FILE...\n"
          "Matches result records on (backend, variant, point, dtype, size, ranks, placement, op) and\n"
          "reports ratio = p50(B) / p50(A) per match: below 1 means B is faster.\n"
          "The launch is the replicate: runs inside one launch (--repeat) share its placement, caches and\n"
          "neighbours, so when the two sides come from different launches (two files, two stacks) each\n"
          "launch is one value (the mean of its runs' log p50s) and a t test on those values decides\n"
          "(Student's pooled at equal launch counts, else Welch's); B/A is then the ratio of the launches'\n"
          "geometric means and the interval the t test's. Every interval is at the level Holm judged its\n"
          "row (95%% family-wise), the one the verdict is judged on (--explain says how). A side\n"
          "with one launch decides nothing: record several launches a side, A and B interleaved (arbench\n"
          "sweep --repeat N launches a command N times; or arbench run ... -J A.jsonl; arbench run ... -J\n"
          "B.jsonl; again: each run appends one launch). The same launches\n"
          "on both sides: bootstrap over runs and their samples (samples_us, %d resamples by default, a\n"
          "fixed seed) and the runs' t test, as table does for configurations of one launch. Verdicts, after\n"
          "Holm-Bonferroni over every match of the call (5%% family-wise): 'equivalent' (shown within\n"
          "--margin by two one-sided tests), else 'faster' / 'slower' (B differs beyond the noise), else\n"
          "'undecided' (the data cannot tell: 'repeat N' is the runs per side that would decide, by a power\n"
          "calculation on the measured spread, 'N launches a side' between launches), 'no samples'.\n"
          "Every row also gets the smallest ratio its data could detect (detectable_ratio).\n"
          "Then what exists in only one file, and per backend the geometric mean ratio and counts.\n"
          "With --by stack the results of all FILEs are grouped by stack (the sweep's point key stack of\n"
          "sweep --stacks, else the stack the run records), and every other stack is compared with one\n"
          "baseline: per match its ratio, interval and verdict side by side, one column group per stack.\n"
          "  --by KEY             group by stack, or by a sweep point key (e.g. nccl for sweep --nccl)\n"
          "  --baseline NAME      the group the others are divided by (default: the first in the files);\n"
          "                       implies --by stack. More or fewer than two files imply --by stack too\n"
          "  --format F           text (default, markdown tables) or json (for plots/arbench-plot)\n"
          "  --margin PCT         the practical margin of equivalence (default 5)\n"
          "  --explain            say how the verdicts and their intervals are decided (in place of one line)\n"
          "  --drift PCT          run-to-run drift to allow for when a side has one run inside the same\n"
          "                       launches (default: none assumed, so such a match is undecided); between\n"
          "                       launches one launch a side decides nothing\n"

          "  --resamples N        bootstrap resamples (100..100000, default %d)\n"
          "  --seed N             bootstrap seed (default %llu)\n"
          "  --backend, --dtype, --ranks, --point NAME=V, --placement out|in: filters, as in table\n",
          AR_CMP_RESAMPLES, AR_CMP_RESAMPLES, AR_CMP_SEED);
}

/* ---- matching ---- */

static void match_key(json_t *r, char *buf, size_t len, int with_size) {
  char point[200], meth[80];
  ar_rec_point(r, point, sizeof point);
  ar_rec_method(r, meth, sizeof meth); /* part of the cell: different methods never match */
  int n = snprintf(buf, len, "%s|%s|%s|%s|%s|%s|%d|%s|%s", ar_rec_str(r, "type", "result"), ar_rec_str(r, "backend", ""),
                   ar_rec_str(r, "variant", ""), point, meth, ar_rec_str(r, "dtype", ""), ar_rec_ranks(r),
                   ar_rec_placement(r), ar_rec_str(r, "op", "sum"));
  if (with_size && n > 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, "|%lld", (long long)json_integer_value(json_object_get(r, "size")));
}

static json_t *last_of(json_t *runs);

/* nccl-tests' all_reduce_perf (an import) runs NCCL with its defaults, as arbench's nccl backend without a
 * variant does: the key of the same measurement from the other tool, "" for any other record. The two are
 * matched across sides only (within a side they stay apart), and only with the same method. */
static void counterpart_key(json_t *r, char *buf, size_t len, int with_size) {
  const char *be = ar_rec_str(r, "backend", "");
  const char *other = !strcmp(be, "nccl-tests") ? "nccl" : !strcmp(be, "nccl") ? "nccl-tests" : NULL;
  buf[0] = 0;
  if (!other || *ar_rec_str(r, "variant", "")) return;
  json_t *c = json_copy(r);
  json_object_set_new(c, "backend", json_string(other));
  match_key(c, buf, len, with_size);
  json_decref(c);
}

/* The runs of the other side that match key k (whose runs are these): the same key, or its counterpart. */
static json_t *matching(json_t *other, const char *k, json_t *runs) {
  json_t *m = json_object_get(other, k);
  char ck[512];
  if (m || !runs) return m;
  counterpart_key(last_of(runs), ck, sizeof ck, 1);
  return *ck ? json_object_get(other, ck) : NULL;
}

/* The bootstrap's seed key of a match: its configuration and size without type and method (so the
 * draws of a match do not change with the fields the match key gained). */
static void seed_key(json_t *r, char *buf, size_t len) {
  char point[200];
  ar_rec_point(r, point, sizeof point);
  snprintf(buf, len, "%s|%s|%s|%s|%d|%s|%s|%lld", ar_rec_str(r, "backend", ""), ar_rec_str(r, "variant", ""), point,
           ar_rec_str(r, "dtype", ""), ar_rec_ranks(r), ar_rec_placement(r), ar_rec_str(r, "op", "sum"),
           (long long)json_integer_value(json_object_get(r, "size")));
}

/* key -> array of runs (a run's later record replaces a duplicate), plus the keys in order. */
static json_t *index_by_key(json_t *results, json_t *order, int *dups) {
  json_t *idx = json_object();
  size_t i;
  json_t *r;
  json_array_foreach(results, i, r) {
    char key[512];
    match_key(r, key, sizeof key, 1);
    json_t *runs = json_object_get(idx, key);
    if (!runs) {
      json_object_set_new(idx, key, runs = json_array());
      json_array_append_new(order, json_string(key));
    }
    ar_runs_add(runs, r, dups);
  }
  return idx;
}

/* The latest record of a key's runs (for labels). */
static json_t *last_of(json_t *runs) { return json_array_get(runs, json_array_size(runs) - 1); }

struct summary {
  char backend[64];
  int n, v[AR_PV_UNDECIDED + 1]; /* matches, and per verdict (AR_PV_*) */
  double logsum;
};

static struct summary *summary_of(struct summary *s, int *ns, const char *backend) {
  for (int i = 0; i < *ns; i++)
    if (!strcmp(s[i].backend, backend)) return &s[i];
  memset(&s[*ns], 0, sizeof s[0]);
  snprintf(s[*ns].backend, sizeof s[0].backend, "%s", backend);
  return &s[(*ns)++];
}

static void count(struct summary *s, const char *v, double ratio) {
  s->n++;
  s->logsum += log(ratio);
  for (int k = 0; k <= AR_PV_UNDECIDED; k++)
    if (!strcmp(v, ar_pair_verdict_name(k))) s->v[k]++;
}

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *match_json(json_t *a, json_t *b, const struct ar_pair *t, int have) {
  json_t *ra = last_of(a);
  char point[200], meth[80];
  const char *v = have ? "" : "no samples"; /* set by the family's correction (finish_family) */
  ar_rec_point(ra, point, sizeof point);
  ar_rec_method(ra, meth, sizeof meth);
  json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:I, s:f, s:f, s:f, s:s}", "backend",
                        ar_rec_str(ra, "backend", ""), "variant", ar_rec_str(ra, "variant", ""), "spec",
                        ar_rec_str(ra, "spec", ar_rec_str(ra, "backend", "")), "point", point, "dtype",
                        ar_rec_str(ra, "dtype", ""), "ranks", ar_rec_ranks(ra), "placement", ar_rec_placement(ra),
                        "op", ar_rec_str(ra, "op", "sum"), "size", json_integer_value(json_object_get(ra, "size")),
                        "a_p50_us", ar_runs_p50(a), "b_p50_us", ar_runs_p50(b), "ratio", t->ratio, "verdict", v);
  json_object_set_new(m, "runs_a", json_integer(t->runs_a));
  json_object_set_new(m, "runs_b", json_integer(t->runs_b));
  json_object_set_new(m, "samples", json_boolean(!t->unsampled)); /* false: the runs' t test alone (no samples) */
  json_object_set_new(m, "lo", have ? json_real(t->lo) : json_null());
  json_object_set_new(m, "hi", have ? json_real(t->hi) : json_null());
  json_object_set_new(m, "unit", json_string(t->between ? "launch" : "run")); /* the replicate tested */
  json_object_set_new(m, "launches_a", json_integer(t->launches_a));
  json_object_set_new(m, "launches_b", json_integer(t->launches_b));
  /* between launches: each side's geometric mean over its launches (B/A is their ratio; a/b_p50_us stay the medians) */
  json_object_set_new(m, "a_launches_us", num_or_null(t->level_a));
  json_object_set_new(m, "b_launches_us", num_or_null(t->level_b));
  json_object_set_new(m, "p", have ? json_real(t->p_diff) : json_null());
  json_object_set_new(m, "p_equiv", have ? json_real(t->p_equiv) : json_null());
  json_object_set_new(m, "run_spread", num_or_null(t->sd));
  json_object_set_new(m, "method", json_string(meth));
  return m;
}

/* What the match's interval at its Holm level is made of (struct ar_iv), kept in the match until finish_family:
 * "_iv", raw doubles (d, se, df, tok, nospread, w, nlo, nhi, n, then the bootstrap's (rank, value) pairs). */
static void keep_iv(json_t *m, const struct ar_pair *t) {
  int k = t->iv.tail ? t->iv.nlo + t->iv.nhi : 0;
  double *v = malloc(sizeof *v * (size_t)(9 + 2 * k));
  if (!v) return;
  double head[9] = {t->iv.d, t->iv.se, t->iv.df, t->iv.tok, t->iv.nospread, t->iv.w, t->iv.nlo, t->iv.nhi, t->iv.n};
  memcpy(v, head, sizeof head);
  if (k) memcpy(v + 9, t->iv.tail, sizeof *v * (size_t)(2 * k));
  json_object_set_new(m, "_iv", json_stringn_nocheck((const char *)v, sizeof *v * (size_t)(9 + 2 * k)));
  free(v);
}

/* The kept ingredients back into t->iv (a copy of the pairs: ar_pair_judge releases them). */
static void read_iv(json_t *m, struct ar_pair *t) {
  json_t *s = json_object_get(m, "_iv");
  if (!s || json_string_length(s) < 9 * sizeof(double)) return;
  double head[9];
  memcpy(head, json_string_value(s), sizeof head);
  t->iv = (struct ar_iv){head[0], head[1], head[2], (int)head[3], (int)head[4], head[5], NULL, (int)head[6], (int)head[7],
                         (int)head[8]};
  size_t k = (size_t)(t->iv.nlo + t->iv.nhi);
  if (k && json_string_length(s) >= (9 + 2 * k) * sizeof(double) && (t->iv.tail = malloc(sizeof(double) * 2 * k)))
    memcpy(t->iv.tail, json_string_value(s) + 9 * sizeof(double), sizeof(double) * 2 * k);
  if (!t->iv.tail) t->iv.nlo = t->iv.nhi = 0;
}

/* Configurations (keys without size) present only in `from`, with their sizes. */
static json_t *only_in(json_t *order, json_t *from, json_t *other) {
  json_t *out = json_array(), *byconf = json_object();
  size_t i;
  json_t *k;
  json_array_foreach(order, i, k) {
    if (matching(other, json_string_value(k), json_object_get(from, json_string_value(k)))) continue;
    json_t *r = last_of(json_object_get(from, json_string_value(k)));
    char ck[512];
    match_key(r, ck, sizeof ck, 0);
    json_t *e = json_object_get(byconf, ck);
    if (!e) {
      char point[200];
      ar_rec_point(r, point, sizeof point);
      e = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:[]}", "spec", ar_rec_str(r, "spec", ar_rec_str(r, "backend", "")),
                    "point", point, "dtype", ar_rec_str(r, "dtype", ""), "ranks", ar_rec_ranks(r), "placement",
                    ar_rec_placement(r), "op", ar_rec_str(r, "op", "sum"), "sizes");
      json_object_set_new(byconf, ck, e);
      json_array_append(out, e);
    }
    json_array_append_new(json_object_get(e, "sizes"), json_integer(json_integer_value(json_object_get(r, "size"))));
  }
  json_decref(byconf);
  return out;
}


/* Stacks and hosts of one side, for the header. */
static json_t *side_json(const char *path, struct ar_ana *a, int dups) {
  json_t *stacks = json_array(), *hosts = json_array(), *seen = json_object();
  const char *id;
  json_t *run;
  json_object_foreach(a->runs, id, run) {
    json_t *st = json_object_get(run, "stack");
    const char *name = json_string_value(json_object_get(st, "name"));
    const char *nccl = json_string_value(json_object_get(st, "nccl_loaded"));
    char label[200];
    snprintf(label, sizeof label, "%s%s%s%s", name ? name : "unknown", nccl ? " (NCCL " : "", nccl ? nccl : "",
             nccl ? ")" : "");
    if (!json_object_get(seen, label)) json_array_append_new(stacks, json_string(label));
    json_object_set_new(seen, label, json_true());
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(run, "hosts"), i, h) {
      char hk[300];
      snprintf(hk, sizeof hk, "host:%s", json_string_value(h) ? json_string_value(h) : "?");
      if (!json_object_get(seen, hk)) json_array_append(hosts, h);
      json_object_set_new(seen, hk, json_true());
    }
  }
  json_decref(seen);
  return json_pack("{s:s, s:o, s:o, s:i, s:i, s:o}", "file", path, "stacks", stacks, "hosts", hosts, "results",
                   (int)json_array_size(a->results), "duplicates", dups, "not_measured", ar_note_lines(a->notes));
}

/* Matched keys of two sides with samples on both: the size of the family one call tests. */
static int family_size(struct ar_ana *A, struct ar_ana *B) {
  json_t *oa = json_array(), *ob = json_array();
  int d = 0, m = 0;
  json_t *ia = index_by_key(A->results, oa, &d), *ib = index_by_key(B->results, ob, &d);
  size_t i;
  json_t *k;
  json_array_foreach(oa, i, k) {
    json_t *ra = json_object_get(ia, json_string_value(k)), *rb = matching(ib, json_string_value(k), ra);
    m += rb && ar_runs_sampled(rb) && ar_runs_sampled(ra);
  }
  json_decref(ia);
  json_decref(ib);
  json_decref(oa);
  json_decref(ob);
  return m;
}

static json_t *compare(struct ar_ana *A, struct ar_ana *B, const struct cmp_opts *o) {
  json_t *oa = json_array(), *ob = json_array();
  int da = 0, db = 0;
  json_t *ia = index_by_key(A->results, oa, &da), *ib = index_by_key(B->results, ob, &db);
  json_t *sa = side_json(o->a, A, da), *sb = side_json(o->b, B, db);
  json_t *matches = json_array();
  size_t i;
  json_t *k;
  json_array_foreach(oa, i, k) {
    json_t *ra = json_object_get(ia, json_string_value(k)), *rb = matching(ib, json_string_value(k), ra);
    if (!rb) continue;
    struct ar_noise nz;
    ar_noise_defaults(&nz);
    nz.resamples = o->resamples;
    nz.seed = o->seed;
    nz.margin = o->margin;
    nz.drift = o->drift;
    nz.tails = 1; /* the interval at the match's Holm level, once the family is known (finish_family) */
    char sk[512];
    seed_key(last_of(ra), sk, sizeof sk);
    struct ar_pair t;
    int have = !ar_pair_test(ra, rb, sk, &nz, 1, &t);
    json_t *mj = match_json(ra, rb, &t, have);
    keep_iv(mj, &t);
    ar_pair_release(&t);
    json_array_append_new(matches, mj);
  }
  json_t *out = json_pack("{s:o, s:o, s:s, s:i, s:I, s:f, s:o, s:o, s:o}", "a", sa, "b", sb, "ratio",
                          "p50(B)/p50(A)", "resamples", o->resamples, "seed", (json_int_t)o->seed, "margin", o->margin,
                          "matches", matches, "only_a", only_in(oa, ia, ib), "only_b", only_in(ob, ib, ia));
  json_decref(ia);
  json_decref(ib);
  json_decref(oa);
  json_decref(ob);
  return out;
}

static json_t *summary_json(json_t *matches) {
  struct summary *sum = calloc(json_array_size(matches) + 1, sizeof *sum);
  int ns = 0;
  size_t i;
  json_t *m;
  json_array_foreach(matches, i, m)
    count(summary_of(sum, &ns, ar_rec_str(m, "backend", "")), ar_rec_str(m, "verdict", ""), ar_rec_num(m, "ratio", NAN));
  json_t *summ = json_array();
  for (int s = 0; s < ns; s++)
    json_array_append_new(summ, json_pack("{s:s, s:i, s:f, s:i, s:i, s:i, s:i, s:i}", "backend", sum[s].backend,
                                          "matches", sum[s].n, "geomean_ratio", exp(sum[s].logsum / sum[s].n),
                                          "faster", sum[s].v[AR_PV_FASTER], "slower", sum[s].v[AR_PV_SLOWER],
                                          "equivalent", sum[s].v[AR_PV_EQUIVALENT], "undecided",
                                          sum[s].v[AR_PV_UNDECIDED], "no_samples", sum[s].v[AR_PV_NOSAMPLES]));
  free(sum);
  return summ;
}

static int launch_unit(json_t *x) { return !strcmp(ar_rec_str(x, "unit", ""), "launch"); }

/* The replicates of a match a side: its launches between launches, else its runs. */
static int reps(json_t *x, int side_b) {
  return (int)ar_rec_num(x, launch_unit(x) ? side_b ? "launches_b" : "launches_a" : side_b ? "runs_b" : "runs_a", 0);
}

/* The smallest ratio na and nb replicates with spread sd (log) would detect at 80% power at level alpha. */
static double detect_at(double sd, double na, double nb, double alpha) {
  double se = sd * sqrt(1.0 / na + 1.0 / nb), df = na + nb - 2;
  return exp(se * (ar_t_quantile(1 - alpha / 2, df) + ar_t_quantile(AR_POWER, df)));
}

/* The smallest ratio a match could detect at 80% power at the per-comparison level alpha: from its replicates'
 * spread (two or more a side: the t test's standard error) else, inside the same launches, from its interval's
 * half-width; NAN when neither (between launches with one launch a side). */
static double detectable(json_t *x, double alpha) {
  double sd = ar_rec_num(x, "run_spread", NAN), lo = ar_rec_num(x, "lo", NAN), hi = ar_rec_num(x, "hi", NAN);
  int na = reps(x, 0), nb = reps(x, 1);
  if (!isnan(sd) && na >= 2 && nb >= 2) return detect_at(sd, na, nb, alpha);
  if (launch_unit(x) || !(lo > 0 && hi > 0)) return NAN;
  double lvl = ar_rec_num(x, "level", 0.05), se = (log(hi) - log(lo)) / (2 * ar_t_quantile(1 - lvl / 2, 1e6));
  return exp(se * (ar_t_quantile(1 - alpha / 2, 1e6) + ar_t_quantile(AR_POWER, 1e6)));
}

/* The family of one call: every match of every comparison in comps. Holm–Bonferroni at family-wise
 * error 5% over their p-values of a difference and, separately, of an equivalence (ar_pair_verdicts),
 * then verdicts, adjusted p, the runs an undecided match needs, and summaries. */
static int finish_family(json_t *comps, json_t *top, double margin) {
  int m = 0;
  size_t i, j;
  json_t *c, *x;
  json_array_foreach(comps, i, c) m += (int)json_array_size(json_object_get(c, "matches"));
  struct ar_pair *t = calloc((size_t)m + 1, sizeof *t);
  double *padj = calloc((size_t)m + 1, sizeof *padj);
  int *v = calloc((size_t)m + 1, sizeof *v), k = 0, rc = t && padj && v ? 0 : -1, tested = 0;
  json_array_foreach(comps, i, c) json_array_foreach(json_object_get(c, "matches"), j, x) if (!rc) {
    json_t *p = json_object_get(x, "p");
    t[k] = (struct ar_pair){.ratio = ar_rec_num(x, "ratio", NAN), .shift = 1,
                            .p_diff = json_is_number(p) ? json_number_value(p) : NAN,
                            .p_equiv = ar_rec_num(x, "p_equiv", NAN), .sd = ar_rec_num(x, "run_spread", NAN),
                            .between = launch_unit(x)};
    read_iv(x, &t[k]);
    json_object_del(x, "_iv");
    tested += json_is_number(p);
    k++;
  }
  if (!rc) rc = ar_pair_judge(t, m, AR_FAMILY_ALPHA, v, padj); /* verdicts, and the intervals they are judged on */
  k = 0;
  json_array_foreach(comps, i, c) {
    json_array_foreach(json_object_get(c, "matches"), j, x) {
      if (rc) break;
      json_object_set_new(x, "lo", num_or_null(t[k].lo));
      json_object_set_new(x, "hi", num_or_null(t[k].hi));
      json_object_set_new(x, "level", num_or_null(t[k].level)); /* the two-sided error level of lo..hi */
      json_object_set_new(x, "p_holm", num_or_null(padj[k]));
      json_object_set_new(x, "verdict", json_string(ar_pair_verdict_name(v[k])));
      int need = v[k] != AR_PV_UNDECIDED ? 0
                                        : ar_runs_needed(log(t[k].ratio / t[k].shift), t[k].sd, margin,
                                                         AR_FAMILY_ALPHA / (tested > 1 ? tested : 1));
      int have = reps(x, 0) < reps(x, 1) ? reps(x, 0) : reps(x, 1);
      if (need > 0 && need <= have) need = have + 1; /* never the runs (launches) already there */
      json_object_set_new(x, "runs_needed", need < 0 ? json_null() : json_integer(need));
      double lvl = AR_FAMILY_ALPHA / (tested > 1 ? tested : 1), det = detectable(x, lvl);
      json_object_set_new(x, "detectable_ratio", isnan(det) ? json_null() : json_real(det));
      if (launch_unit(x) && have < 2) { /* one launch a side: what AR_LAUNCHES_SUGGESTED a side would detect, when the
                                         * launch spread was measured (a side with two or more launches) */
        double s3 = isnan(t[k].sd) ? NAN : detect_at(t[k].sd, AR_LAUNCHES_SUGGESTED, AR_LAUNCHES_SUGGESTED, lvl);
        json_object_set_new(x, "suggested_launches", json_integer(AR_LAUNCHES_SUGGESTED));
        json_object_set_new(x, "suggested_detectable_ratio", isnan(s3) ? json_null() : json_real(s3));
      }
      k++;
    }
    json_object_set_new(c, "summary", summary_json(json_object_get(c, "matches")));
  }
  char how[800];
  snprintf(how, sizeof how, "Holm-Bonferroni over the %d matches tested (family-wise error %.0f%%), for the "
           "differences and, separately, for the equivalences: a match is equivalent when shown within %.3g%% by two "
           "one-sided tests, else faster/slower when its difference survives the correction, else undecided (p: the "
           "t test on the launches' log p50s between launches (each launch one replicate), inside the same launches the "
           "larger of the bootstrap's and, with two or more runs a side, a t test on the runs' log p50s: Student's "
           "pooled at equal counts, else Welch's)", tested, AR_FAMILY_ALPHA * 100, margin * 100);
  json_object_set_new(top, "correction", json_string(how));
  json_object_set_new(top, "family", json_integer(tested));
  free(t);
  free(padj);
  free(v);
  return rc;
}

/* ---- text output ---- */

static void print_side(const char *name, json_t *s) {
  printf("%s: %s: %d results; stack", name, json_string_value(json_object_get(s, "file")),
         (int)json_integer_value(json_object_get(s, "results")));
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(s, "stacks"), i, v) printf("%s %s", i ? "," : "", json_string_value(v));
  printf("; hosts");
  json_array_foreach(json_object_get(s, "hosts"), i, v) printf("%s %s", i ? "," : "", json_string_value(v));
  int d = (int)json_integer_value(json_object_get(s, "duplicates"));
  if (d) printf("; %d duplicate records (the later one used)", d);
  printf("\n");
}

static void print_ratio(json_t *v, const char *fmt) {
  if (json_is_number(v)) printf(fmt, json_number_value(v));
  else printf("-");
}

/* Do the matches hold more than one method (then each row names its method)? */
static int methods_vary(json_t *matches) {
  size_t i;
  json_t *m;
  json_array_foreach(matches, i, m) if (strcmp(ar_rec_str(m, "method", ""), ar_rec_str(json_array_get(matches, 0), "method", "")))
    return 1;
  return 0;
}

/* A match's verdict as the text tables show it: an undecided one says what would decide it. */
static void print_verdict(json_t *m) {
  const char *v = ar_rec_str(m, "verdict", "");
  json_t *need = json_object_get(m, "runs_needed");
  if (ar_rec_predicted(m)) { /* `arbench model`'s predictions: no launch, nothing to test */
    printf("%s (predictions: no test)", v);
    return;
  }
  printf("%s", v);
  if (strcmp(v, "undecided")) return;
  int la = reps(m, 0), lb = reps(m, 1);
  if (launch_unit(m) && (la < 2 || lb < 2)) { /* nothing between launches can be tested */
    double x = ar_rec_num(m, "suggested_detectable_ratio", NAN);
    printf(" (%s: cannot tell a change from launch-to-launch spread; ", la < 2 && lb < 2 ? "one launch a side"
                                                                        : la < 2 ? "one launch in A" : "one launch in B");
    if (x > 0) printf("%d launches a side would detect %.0f%%)", (int)ar_rec_num(m, "suggested_launches", 0), (x - 1) * 100);
    else printf("its spread is unmeasured: record %d+ launches a side, A and B interleaved)", AR_LAUNCHES_SUGGESTED);
    return;
  }
  const char *unit = launch_unit(m) ? "launches" : "runs";
  if (!json_is_integer(need)) printf(" (measure 2+ %s a side)", unit);
  else if (launch_unit(m) && json_integer_value(need) > AR_REPEAT_CAP)
    printf(" (over %d launches a side to decide; detectable %.3f)", AR_REPEAT_CAP, ar_rec_num(m, "detectable_ratio", NAN));
  else if (launch_unit(m)) printf(" (%lld launches a side)", (long long)json_integer_value(need));
  else if (json_integer_value(need) > AR_REPEAT_CAP) printf(" (over %d runs to decide; detectable %.3f)", AR_REPEAT_CAP,
                                                           ar_rec_num(m, "detectable_ratio", NAN));
  else printf(" (repeat %lld)", (long long)json_integer_value(need));
}

static void print_matches(json_t *matches) {
  int mv = methods_vary(matches);
  printf("\n| backend | variant%s | point | dtype | ranks | place | size | runs A/B | A p50 us | B p50 us | B/A | 95%% interval | verdict |\n",
         mv ? " (method)" : "");
  printf("|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
  size_t i;
  json_t *m;
  json_array_foreach(matches, i, m) {
    char sz[32], ua[32], ub[32], var[300];
    snprintf(var, sizeof var, "%s%s%s%s", ar_rec_str(m, "variant", ""), mv ? " (" : "", mv ? ar_rec_str(m, "method", "") : "",
             mv ? ")" : "");
    ar_size_format((size_t)json_integer_value(json_object_get(m, "size")), sz, sizeof sz);
    int lu = launch_unit(m); /* between launches: the launches' geometric means, whose ratio B/A is */
    ar_fmt_us(json_number_value(json_object_get(m, lu ? "a_launches_us" : "a_p50_us")), ua, sizeof ua);
    ar_fmt_us(json_number_value(json_object_get(m, lu ? "b_launches_us" : "b_p50_us")), ub, sizeof ub);
    char runs[80];
    int ra = (int)ar_rec_num(m, "runs_a", 0), rb = (int)ar_rec_num(m, "runs_b", 0);
    int la = (int)ar_rec_num(m, "launches_a", 0), lb = (int)ar_rec_num(m, "launches_b", 0);
    if (launch_unit(m) && (la != ra || lb != rb)) snprintf(runs, sizeof runs, "%d/%d in %d/%d launches", ra, rb, la, lb);
    else snprintf(runs, sizeof runs, "%d/%d", ra, rb);
    printf("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %.3f | ", ar_rec_str(m, "backend", ""), var, ar_rec_str(m, "point", ""), ar_rec_str(m, "dtype", ""), ar_rec_ranks(m),
           ar_rec_str(m, "placement", ""), sz, runs, ua, ub, json_number_value(json_object_get(m, "ratio")));
    if (json_is_number(json_object_get(m, "lo"))) {
      print_ratio(json_object_get(m, "lo"), "[%.3f, ");
      print_ratio(json_object_get(m, "hi"), "%.3f]");
    } else printf("-");
    printf(" | ");
    print_verdict(m);
    printf(" |\n");
  }
}

static void print_only(const char *side, json_t *only) {
  if (!json_array_size(only)) return;
  printf("\nOnly in %s:\n", side);
  size_t i;
  json_t *e;
  json_array_foreach(only, i, e) {
    json_t *sizes = json_object_get(e, "sizes");
    char lo[32], hi[32];
    size_t n = json_array_size(sizes);
    ar_size_format((size_t)json_integer_value(json_array_get(sizes, 0)), lo, sizeof lo);
    ar_size_format((size_t)json_integer_value(json_array_get(sizes, n - 1)), hi, sizeof hi);
    const char *pt = ar_rec_str(e, "point", "");
    printf("- %s%s%s%s %s, %d ranks, %s: %zu size%s (%s%s%s)\n", ar_rec_str(e, "spec", ""), *pt ? " {" : "", pt,
           *pt ? "}" : "", ar_rec_str(e, "dtype", ""), ar_rec_ranks(e), ar_rec_str(e, "placement", ""), n,
           n == 1 ? "" : "s", lo, n == 1 ? "" : "..", n == 1 ? "" : hi);
  }
}

static void print_notes(const char *side, json_t *s) {
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(s, "not_measured"), i, v) {
    if (!i) printf("\nNot measured in %s:\n", side);
    printf("- %s\n", json_string_value(v));
  }
}

static int count_verdict(json_t *matches, const char *v) {
  int n = 0;
  size_t i;
  json_t *m;
  json_array_foreach(matches, i, m) n += !strcmp(ar_rec_str(m, "verdict", ""), v);
  return n;
}

/* The header line of rows tested between launches: the unit, and how many rows have one launch on a side. */
static void print_unit(json_t *matches, const char *who) {
  size_t i;
  json_t *m;
  int n = 0, one = 0;
  json_array_foreach(matches, i, m) {
    if (!launch_unit(m)) continue;
    n++;
    one += reps(m, 0) < 2 || reps(m, 1) < 2;
  }
  if (!n) return;
  printf("%s%sBetween launches (%d match%s: the sides' launches differ): the launch is the replicate; each launch is one value "
         "(the mean of its runs' log p50s), the A and B columns the geometric means over a side's launches and B/A "
         "their ratio, the 95%% interval a t test's "
         "on the launches alone, the one each verdict is judged on.", who, *who ? ": " : "", n, n == 1 ? "" : "es");
  if (one) printf(" %d with one launch on a side: undecided (a change cannot be told from launch-to-launch spread).", one);
  printf("\n");
}

/* --explain: how the verdicts and their intervals are decided; else one line saying where that is. */
static void print_explain(int explain) {
  char hint[300];
  ar_explain_hint("compare", hint, sizeof hint);
  if (!explain) {
    printf("\n%s\n", hint);
    return;
  }
  printf("\nIntervals and verdicts: one definition. Holm-Bonferroni orders the matches by p; the k-th smallest is shown\n"
         "different while p <= 5%% / (m - k) (m the matches tested). Each row's interval is at the level Holm judged it:\n"
         "a difference shown at step k at 5%% / (m - k), so it excludes 1 on its side; a match not shown different at\n"
         "5%% / (m - R), R the ones shown (Strassburger & Bretz's compatible levels), so it holds 1; an equivalent one\n"
         "the two one-sided tests' interval at its own Holm level, inside the margin; an undecided one holds 1 and is\n"
         "not inside the margin. So faster = the interval below 1, slower = above 1, equivalent = inside the margin.\n"
         "Inside the same launches the interval is the hull of the bootstrap's percentiles and the runs' t interval\n"
         "(both tests must reject); between launches the launches' t interval (each launch one value).\n");
}

static void print_text(json_t *r, int explain) {
  print_side("A", json_object_get(r, "a"));
  print_side("B", json_object_get(r, "b"));
  printf("ratio = p50(B) / p50(A): below 1 means B is faster. 95%% interval: family-wise, each row's at the level Holm\n"
         "judged it (the interval its verdict is judged on): bootstrap, %d resamples of each side's runs and their\n"
         "samples (ratio of medians), seed %lld, hulled with the runs' t test; between launches the launches' t test.\n"
         "Verdicts say how B does against A.\n",
         (int)json_integer_value(json_object_get(r, "resamples")),
         (long long)json_integer_value(json_object_get(r, "seed")));
  json_t *mm;
  size_t mi;
  int unsampled = 0;
  json_array_foreach(json_object_get(r, "matches"), mi, mm) unsampled += json_is_false(json_object_get(mm, "samples"));
  if (unsampled)
    printf("%d match%s without samples (nccl-tests imports, -N runs: one time per size per log): each run (log) is one "
           "launch, the replicate; their 95%% interval and p come from a t test on the runs' log times alone (2+ runs a "
           "side needed).\n", unsampled, unsampled == 1 ? "" : "es");
  printf("Correction: %s.\n", ar_rec_str(r, "correction", ""));
  print_unit(json_object_get(r, "matches"), "");
  json_t *matches = json_object_get(r, "matches");
  if (json_array_size(matches)) print_matches(matches);
  else printf("\nNo matching configurations.\n");
  double dlo = INFINITY, dhi = 0;
  json_array_foreach(matches, mi, mm) {
    double x = ar_rec_num(mm, "detectable_ratio", NAN);
    if (x > 0) dlo = x < dlo ? x : dlo, dhi = x > dhi ? x : dhi;
  }
  char range[64];
  if (dlo == dhi) snprintf(range, sizeof range, "%.3f", dlo);
  else snprintf(range, sizeof range, "%.3f to %.3f", dlo, dhi);
  if (dhi > 0)
    printf("\nSmallest ratio these data could detect (80%% power, Holm's strictest level): %s over the matches (a B/A "
           "beyond it, or below its inverse, would be called).\n", range);
  if (count_verdict(matches, "undecided") && explain)
    printf("\nundecided: neither a difference nor an equivalence within the margin is shown; 'repeat N' is the runs per\n"
           "side that would decide (80%% power); a side with one run cannot separate the two sides from run-to-run\n"
           "drift: measure several runs per side (arbench run --repeat N); between launches 'N launches a side' is what\n"
           "would decide: append launches to each file, A and B interleaved.\n");
  print_explain(explain);
  print_only("A", json_object_get(r, "only_a"));
  print_only("B", json_object_get(r, "only_b"));
  print_notes("A", json_object_get(r, "a"));
  print_notes("B", json_object_get(r, "b"));
  json_t *summ = json_object_get(r, "summary");
  if (!json_array_size(summ)) return;
  printf("\nSummary per backend:\n\n| backend | matches | geomean B/A | faster | slower | equivalent | undecided | no samples |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  size_t i;
  json_t *s;
  json_array_foreach(summ, i, s)
    printf("| %s | %d | %.3f | %d | %d | %d | %d | %d |\n", ar_rec_str(s, "backend", ""),
           (int)ar_rec_num(s, "matches", 0), ar_rec_num(s, "geomean_ratio", NAN), (int)ar_rec_num(s, "faster", 0),
           (int)ar_rec_num(s, "slower", 0), (int)ar_rec_num(s, "equivalent", 0), (int)ar_rec_num(s, "undecided", 0),
           (int)ar_rec_num(s, "no_samples", 0));
}

/* ---- --by stack: every group against one baseline ---- */

/* The records of one group as a side: its results and only the runs they name. */
static void group_side(const struct ar_by *b, const char *g, struct ar_ana *side) {
  side->results = json_array();
  side->runs = json_object();
  side->notes = json_array();
  size_t i;
  json_t *r;
  json_array_foreach(b->results, i, r) {
    if (strcmp(ar_rec_str(r, "_by", ""), g)) continue;
    json_array_append(side->results, r);
    const char *rid = ar_rec_str(r, "run_id", "");
    json_object_set(side->runs, rid, json_object_get(b->runs, rid));
  }
}

static json_t *compare_groups(const struct ar_by *b, int base, const struct cmp_opts *o) {
  const char *bname = json_string_value(json_array_get(b->groups, (size_t)base));
  struct ar_ana A = {0};
  group_side(b, bname, &A);
  json_t *comps = json_array(), *files = json_array();
  for (int f = 0; f < o->nfiles; f++) json_array_append_new(files, json_string(o->files[f]));
  int fam = 0;
  for (size_t g = 0; g < json_array_size(b->groups); g++) {
    if ((int)g == base) continue;
    struct ar_ana B = {0};
    group_side(b, json_string_value(json_array_get(b->groups, g)), &B);
    fam += family_size(&A, &B);
    ar_ana_free(&B);
  }
  int resamples = ar_family_resamples(o->resamples, fam, AR_FAMILY_ALPHA);
  for (size_t g = 0; g < json_array_size(b->groups); g++) {
    if ((int)g == base) continue;
    const char *gname = json_string_value(json_array_get(b->groups, g));
    struct ar_ana B = {0};
    group_side(b, gname, &B);
    struct cmp_opts oo = *o;
    oo.resamples = resamples;
    oo.a = bname;
    oo.b = gname;
    json_t *c = compare(&A, &B, &oo);
    json_object_set_new(c, "group", json_string(gname));
    json_array_append_new(comps, c);
    ar_ana_free(&B);
  }
  ar_ana_free(&A);
  json_t *top = json_pack("{s:s, s:s, s:O, s:o, s:i, s:s, s:i, s:I, s:o}", "by", o->by, "baseline", bname, "groups",
                          b->groups, "files", files, "without_key", b->without, "ratio", "p50(X)/p50(baseline)",
                          "resamples", resamples, "seed", (json_int_t)o->seed, "comparisons", comps);
  finish_family(comps, top, o->margin);
  return top;
}

static void row_key(json_t *m, char *buf, size_t len) {
  snprintf(buf, len, "%s|%s|%s|%s|%d|%s|%s|%lld", ar_rec_str(m, "backend", ""), ar_rec_str(m, "variant", ""),
           ar_rec_str(m, "point", ""), ar_rec_str(m, "dtype", ""), ar_rec_ranks(m), ar_rec_str(m, "placement", ""),
           ar_rec_str(m, "op", "sum"), (long long)json_integer_value(json_object_get(m, "size")));
}

/* One row per match key over all comparisons (first appearance), one column group per stack. */
static void print_group_matches(json_t *r) {
  json_t *comps = json_object_get(r, "comparisons"), *rows = json_array(), *seen = json_object(), *c, *m;
  const char *base = ar_rec_str(r, "baseline", "");
  size_t i, j;
  json_array_foreach(comps, i, c) json_array_foreach(json_object_get(c, "matches"), j, m) {
    char k[700];
    row_key(m, k, sizeof k);
    if (!json_object_get(seen, k)) json_array_append(rows, m);
    json_object_set_new(seen, k, json_true());
  }
  printf("\n| backend | variant | point | dtype | ranks | place | size | %s p50 us |", base);
  json_array_foreach(comps, i, c) {
    const char *g = ar_rec_str(c, "group", "");
    printf(" %s/%s | %s 95%% interval | %s verdict |", g, base, g, g);
  }
  printf("\n|---|---|---|---|---:|---|---:|---:|");
  json_array_foreach(comps, i, c) printf("---:|---|---|");
  printf("\n");
  json_t *row;
  json_array_foreach(rows, i, row) {
    char sz[32], ua[32], k[700];
    row_key(row, k, sizeof k);
    ar_size_format((size_t)json_integer_value(json_object_get(row, "size")), sz, sizeof sz);
    ar_fmt_us(json_number_value(json_object_get(row, "a_p50_us")), ua, sizeof ua);
    printf("| %s | %s | %s | %s | %d | %s | %s | %s |", ar_rec_str(row, "backend", ""), ar_rec_str(row, "variant", ""),
           ar_rec_str(row, "point", ""), ar_rec_str(row, "dtype", ""), ar_rec_ranks(row),
           ar_rec_str(row, "placement", ""), sz, ua);
    json_array_foreach(comps, j, c) {
      json_t *hit = NULL;
      size_t q;
      json_array_foreach(json_object_get(c, "matches"), q, m) {
        char mk[700];
        row_key(m, mk, sizeof mk);
        if (!strcmp(mk, k)) hit = m;
      }
      if (!hit) {
        printf(" - | - | - |");
        continue;
      }
      printf(" %.3f | ", json_number_value(json_object_get(hit, "ratio")));
      if (json_is_number(json_object_get(hit, "lo"))) {
        print_ratio(json_object_get(hit, "lo"), "[%.3f, ");
        print_ratio(json_object_get(hit, "hi"), "%.3f]");
      } else printf("-");
      printf(" | ");
      print_verdict(hit);
      printf(" |");
    }
    printf("\n");
  }
  json_decref(rows);
  json_decref(seen);
}

/* Nothing matched: one line on what a match needs, exit 3 (nothing to compare). */
static int no_match(const char *a, const char *b) {
  fprintf(stderr, "arbench compare: no configuration of %s matches one of %s (a match has the same backend, variant, "
          "sweep point, dtype, ranks, placement, op and method): nothing to compare\n", a, b);
  return AR_EXIT_NOTHING;
}

static void print_groups(json_t *r, int explain) {
  json_t *comps = json_object_get(r, "comparisons"), *c, *v;
  const char *base = ar_rec_str(r, "baseline", "");
  size_t i, j;
  printf("Grouped by %s: ", ar_rec_str(r, "by", ""));
  json_array_foreach(json_object_get(r, "groups"), i, v) printf("%s%s", i ? ", " : "", json_string_value(v));
  printf("; baseline %s; files", base);
  json_array_foreach(json_object_get(r, "files"), i, v) printf("%s %s", i ? "," : "", json_string_value(v));
  printf("\n");
  int without = (int)ar_rec_num(r, "without_key", 0);
  if (without) printf("%d result records have no %s and are left out.\n", without, ar_rec_str(r, "by", ""));
  printf("ratio = p50(X) / p50(%s): below 1 means X is faster. 95%% interval: family-wise, each row's at the level\n"
         "Holm judged it (the interval its verdict is judged on): bootstrap, %d resamples of each side's runs and their\n"
         "samples (ratio of medians), seed %lld, hulled with the runs' t test; between launches the launches' t test.\n"
         "Verdicts say how X does against %s.\n",
         base, (int)ar_rec_num(r, "resamples", 0), (long long)json_integer_value(json_object_get(r, "seed")), base);
  printf("Correction: %s.\n", ar_rec_str(r, "correction", ""));
  int undecided = 0, any = 0;
  json_array_foreach(comps, i, c) {
    undecided += count_verdict(json_object_get(c, "matches"), "undecided");
    any += (int)json_array_size(json_object_get(c, "matches"));
    char who[300];
    snprintf(who, sizeof who, "%s/%s", ar_rec_str(c, "group", ""), base);
    print_unit(json_object_get(c, "matches"), who);
  }
  if (any) print_group_matches(r);
  else printf("\nNo matching configurations.\n");
  if (undecided && explain)
    printf("\nundecided: neither a difference nor an equivalence within the margin is shown; 'repeat N' is the runs per\n"
           "side that would decide (80%% power); with one run on a side the stacks cannot be separated from run-to-run\n"
           "drift: measure several runs per stack (arbench sweep --stacks ... --repeat N interleaves them).\n");
  print_explain(explain);
  json_array_foreach(comps, i, c) {
    char side[300];
    snprintf(side, sizeof side, "%s, not in %s", base, ar_rec_str(c, "group", ""));
    print_only(side, json_object_get(c, "only_a"));
    snprintf(side, sizeof side, "%s, not in %s", ar_rec_str(c, "group", ""), base);
    print_only(side, json_object_get(c, "only_b"));
  }
  printf("\nSummary per stack and backend:\n\n| %s | backend | matches | geomean X/%s | faster | slower | equivalent | undecided | no samples |\n",
         ar_rec_str(r, "by", ""), base);
  printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  json_array_foreach(comps, i, c) json_array_foreach(json_object_get(c, "summary"), j, v)
    printf("| %s | %s | %d | %.3f | %d | %d | %d | %d | %d |\n", ar_rec_str(c, "group", ""), ar_rec_str(v, "backend", ""),
           (int)ar_rec_num(v, "matches", 0), ar_rec_num(v, "geomean_ratio", NAN), (int)ar_rec_num(v, "faster", 0),
           (int)ar_rec_num(v, "slower", 0), (int)ar_rec_num(v, "equivalent", 0), (int)ar_rec_num(v, "undecided", 0),
           (int)ar_rec_num(v, "no_samples", 0));
}

static int cmd_by(const struct cmp_opts *o) {
  struct ar_ana all = {0};
  struct ar_by b = {0};
  char err[AR_ERRLEN];
  int status = AR_EXIT_USAGE, base = 0;
  if (ar_ana_load(&all, o->nfiles, o->files, err, sizeof err) || ar_filter_check(&o->filter, all.results, err, sizeof err)) {
    fprintf(stderr, "arbench compare: %s\n", err);
    goto out;
  }
  if (ar_ana_nothing(&all, "compare", o->nfiles, o->files)) {
    status = AR_EXIT_NOTHING;
    goto out;
  }
  ar_filter_apply(&o->filter, all.results);
  if (ar_by_split(&b, all.results, all.runs, o->by, err, sizeof err)) {
    fprintf(stderr, "arbench compare: %s\n", err);
    goto out;
  }
  char names[512];
  ar_by_list(&b, names, sizeof names);
  if (o->baseline && (base = ar_by_index(&b, o->baseline)) < 0) {
    fprintf(stderr, "arbench compare: unknown --baseline '%s' (the files' %s groups: %s)\n", o->baseline, o->by,
            *names ? names : "none");
    goto out;
  }
  if (json_array_size(b.groups) < 2) {
    fprintf(stderr, "arbench compare: --by %s: the files hold %s %s (%s); give two results files A and B, or files with two or more\n",
            o->by, json_array_size(b.groups) ? "one" : "no", o->by, *names ? names : "no results");
    goto out;
  }
  json_t *r = compare_groups(&b, base, o), *c;
  size_t i;
  int any = 0;
  json_array_foreach(json_object_get(r, "comparisons"), i, c) any += (int)json_array_size(json_object_get(c, "matches"));
  if (o->json) {
    char *s = json_dumps(r, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    printf("%s\n", s ? s : "{}");
    free(s);
  } else print_groups(r, o->explain);
  json_decref(r);
  char basename[300];
  snprintf(basename, sizeof basename, "the baseline %s %s", o->by, json_string_value(json_array_get(b.groups, (size_t)base)));
  status = any ? AR_EXIT_OK : no_match(basename, "another group");
out:
  ar_by_free(&b);
  ar_ana_free(&all);
  return status;
}

/* ---- command ---- */

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse(int argc, char **argv, struct cmp_opts *o) {
  static const struct option lo[] = {
    {"format", required_argument, 0, 'F'}, {"resamples", required_argument, 0, 'R'},
    {"seed", required_argument, 0, 'S'},   AR_FILTER_OPTIONS,
    {"by", required_argument, 0, 'Y'},     {"baseline", required_argument, 0, 'L'},
    {"margin", required_argument, 0, 'G'}, {"drift", required_argument, 0, 'D'},
    {"shift", required_argument, 0, 'H'},   {"explain", no_argument, 0, 'X'},
    {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  long v;
  int c, f;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hd:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'X') o->explain = 1;
    else if (c == 'F') {
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
        fprintf(stderr, "arbench compare: bad --format '%s' (expected text or json)\n", optarg);
        return -AR_EINVAL;
      }
      o->json = !strcmp(optarg, "json");
    } else if (c == 'R') {
      if (parse_int(optarg, 100, 100000, &v)) {
        fprintf(stderr, "arbench compare: bad --resamples '%s' (expected an integer from 100 to 100000)\n", optarg);
        return -AR_EINVAL;
      }
      o->resamples = (int)v;
    } else if (c == 'S') {
      char *end;
      o->seed = strtoull(optarg, &end, 0);
      if (end == optarg || *end) {
        fprintf(stderr, "arbench compare: bad --seed '%s' (expected an unsigned integer)\n", optarg);
        return -AR_EINVAL;
      }
    } else if (c == 'Y') {
      if (!*optarg || strpbrk(optarg, ",= ")) {
        fprintf(stderr, "arbench compare: bad --by '%s' (expected stack or a sweep point key, e.g. nccl)\n", optarg);
        return -AR_EINVAL;
      }
      o->by = optarg;
    } else if (c == 'L') {
      o->baseline = optarg;
    } else if (c == 'G' || c == 'D') {
      char err[AR_ERRLEN];
      struct ar_noise nz;
      ar_noise_defaults(&nz);
      if (c == 'G' ? ar_noise_margin_parse(&nz, optarg, err, sizeof err) : ar_noise_drift_parse(&nz, optarg, err, sizeof err)) {
        fprintf(stderr, "arbench compare: %s\n", err);
        return -AR_EINVAL;
      }
      if (c == 'G') o->margin = nz.margin;
      else o->drift = nz.drift;
    } else if (c == 'H') {
      fprintf(stderr, "arbench compare: --shift %s: the launch shift was removed (between launches each launch is one "
              "replicate and each row is judged on its own interval): record several launches a side instead\n", optarg);
      return -AR_EINVAL;
    } else if ((f = ar_filter_opt(&o->filter, "compare", c, optarg)) < 0) {
      return -AR_EINVAL;
    } else if (!f) return ar_ana_badopt("compare", c, argv[optind - 1]), -AR_EINVAL;
  }
  o->nfiles = argc - optind;
  o->files = argv + optind;
  if (!o->by && (o->baseline || o->nfiles != 2)) o->by = "stack";
  if (o->nfiles < 1) {
    fprintf(stderr, "arbench compare: no results files given (usage: arbench compare A B, or compare --by stack FILE...)\n");
    return -AR_EINVAL;
  }
  if (o->by) return 0;
  o->a = argv[optind];
  o->b = argv[optind + 1];
  return 0;
}

static int load_side(struct ar_ana *s, const char *path) {
  char err[AR_ERRLEN];
  char *p = (char *)path;
  if (ar_ana_load(s, 1, &p, err, sizeof err)) {
    fprintf(stderr, "arbench compare: %s\n", err);
    return -AR_EINVAL;
  }
  return 0;
}

/* The same launch on both sides (the same file twice, or files sharing runs): ratios of 1 by construction,
 * not a finding. One warning line. */
static void same_launches(const struct ar_ana *A, const struct ar_ana *B, const char *a, const char *b) {
  size_t na = json_object_size(A->runs), nb = json_object_size(B->runs), shared = 0;
  const char *id;
  json_t *v;
  json_object_foreach(A->runs, id, v) shared += json_object_get(B->runs, id) != NULL;
  if (!shared) return;
  if (shared == na && shared == nb)
    fprintf(stderr, "arbench compare: warning: both sides are the same launches (%zu run%s in %s and %s): every ratio "
            "is 1 by construction, not a measurement of a difference\n", shared, shared == 1 ? "" : "s", a, b);
  else
    fprintf(stderr, "arbench compare: warning: %s and %s share %zu launch%s (the same run ids): those runs are on "
            "both sides, pulling every ratio toward 1\n", a, b, shared, shared == 1 ? "" : "es");
}

int ar_cmd_compare(int argc, char **argv) {
  struct cmp_opts o = {.resamples = AR_CMP_RESAMPLES, .seed = AR_CMP_SEED, .margin = AR_MARGIN_DEFAULT,
                       .drift = INFINITY};
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  if (o.by) return cmd_by(&o);
  struct ar_ana A = {0}, B = {0};
  char err[AR_ERRLEN];
  int status = AR_EXIT_USAGE;
  json_t *lr = NULL; /* the links part */
  if (load_side(&A, o.a) || load_side(&B, o.b)) goto out;
  int la = ar_links_count(A.notes), lb = ar_links_count(B.notes);
  size_t ra = json_array_size(A.results), rb = json_array_size(B.results);
  if (ar_links_check(A.notes, err, sizeof err) || ar_links_check(B.notes, err, sizeof err)) {
    fprintf(stderr, "arbench compare: %s\n", err);
    goto out;
  }
  if ((la && !ra && !lb && rb) || (lb && !rb && !la && ra)) { /* like with like */
    fprintf(stderr, "arbench compare: %s holds link records only and %s allreduce results only: compare matches link "
            "records with link records and results with results\n", la ? o.a : o.b, la ? o.b : o.a);
    goto out;
  }
  if (la && lb && !(lr = ar_links_compare(&A, &B, o.resamples, o.seed, ra && rb ? AR_FAMILY_ALPHA / 2 : AR_FAMILY_ALPHA,
                                           err, sizeof err))) {
    fprintf(stderr, "arbench compare: %s\n", err);
    goto out;
  }
  if (lr && (!ra || !rb)) { /* link records on both sides, results not: the links alone */
    json_t *r = json_pack("{s:{s:s}, s:{s:s}, s:[], s:o}", "a", "file", o.a, "b", "file", o.b, "matches", "links", lr);
    if ((ra || rb) && !o.json) fprintf(stderr, "arbench compare: note: allreduce results in %s only: not compared\n", ra ? o.a : o.b);
    if (o.json) {
      char *txt = json_dumps(r, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
      printf("%s\n", txt ? txt : "{}");
      free(txt);
    } else {
      printf("A: %s\nB: %s\n", o.a, o.b);
      ar_links_compare_print(json_object_get(r, "links"));
    }
    json_decref(r);
    lr = NULL;
    same_launches(&A, &B, o.a, o.b);
    status = AR_EXIT_OK;
    goto out;
  }
  status = AR_EXIT_NOTHING;
  char *pa = (char *)o.a, *pb = (char *)o.b;
  if (ar_ana_nothing(&A, "compare", 1, &pa) || ar_ana_nothing(&B, "compare", 1, &pb)) goto out;
  status = AR_EXIT_USAGE;
  json_t *both = json_array();
  json_array_extend(both, A.results);
  json_array_extend(both, B.results);
  rc = ar_filter_check(&o.filter, both, err, sizeof err);
  json_decref(both);
  if (rc) {
    fprintf(stderr, "arbench compare: %s\n", err);
    goto out;
  }
  ar_filter_apply(&o.filter, A.results);
  ar_filter_apply(&o.filter, B.results);
  o.resamples = ar_family_resamples(o.resamples, family_size(&A, &B), AR_FAMILY_ALPHA);
  json_t *r = compare(&A, &B, &o), *one = json_pack("[O]", r);
  finish_family(one, r, o.margin);
  json_decref(one);
  int matched = json_array_size(json_object_get(r, "matches")) || lr; /* else nothing was compared: exit 3 */
  if (lr) json_object_set_new(r, "links", lr);
  else if ((la || lb) && !o.json)
    fprintf(stderr, "arbench compare: note: link records in %s only: not compared\n", la ? o.a : o.b);
  lr = NULL;
  if (matched) same_launches(&A, &B, o.a, o.b); /* only beside a comparison: an error stays one line */
  if (o.json) {
    char *s = json_dumps(r, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    printf("%s\n", s ? s : "{}");
    free(s);
  } else {
    print_text(r, o.explain);
    if (json_object_get(r, "links")) ar_links_compare_print(json_object_get(r, "links"));
  }
  json_decref(r);
  status = matched ? AR_EXIT_OK : no_match(o.a, o.b);
out:
  json_decref(lr);
  ar_ana_free(&A);
  ar_ana_free(&B);
  return status;
}
