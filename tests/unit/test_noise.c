/* test_noise.c — bench/analysis/noise.c: the simplicity order of the preference (a baseline by its table's
 * flag, then the custom algorithms from one-shot to islands), Student's t quantiles against published values,
 * the two-sample tests (difference, equivalence, beyond the margin) on runs with known spread, Holm's verdicts,
 * the runs a power calculation asks for, and the large-family test (moderated t) fleet uses. */
#include "../lib/ar_cmocka.h"
#include "analysis/analysis.h"
#include <jansson.h>
#include <math.h>

static int simplicity(const char *backend, const char *variant) {
  json_t *r = json_pack("{s:s, s:s}", "backend", backend, "variant", variant);
  int s = ar_simplicity(r);
  json_decref(r);
  return s;
}

static void test_simplicity(void **st) {
  (void)st;
  assert_int_equal(simplicity("mpi", ""), 0);
  assert_int_equal(simplicity("nccl", ""), 0);
  assert_int_equal(simplicity("nccl-tests", ""), 0);
  assert_int_equal(simplicity("nccl", "algo=Ring"), 1); /* a forced variant is less simple than the defaults */
  assert_int_equal(simplicity("shm-oneshot", ""), 2);
  assert_int_equal(simplicity("p2p-twoshot", "flat"), 3);
  assert_int_equal(simplicity("symm", "algo=twoshot"), 3);
  assert_int_equal(simplicity("p2p-staged", ""), 4);
  assert_int_equal(simplicity("shm-islands", ""), 5);
  assert_int_equal(simplicity("bogus", ""), 6);
}

/* Published quantiles of Student's t (two decimals of any table, six of the exact values). */
static void test_t_quantile(void **st) {
  (void)st;
  assert_true(fabs(ar_t_quantile(0.975, 10) - 2.228139) < 1e-5);
  assert_true(fabs(ar_t_quantile(0.95, 4) - 2.131847) < 1e-5);
  assert_true(fabs(ar_t_quantile(0.80, 8) - 0.888890) < 1e-5);
  assert_true(fabs(ar_t_quantile(0.025, 10) + 2.228139) < 1e-5);
  assert_true(fabs(ar_t_quantile(0.9995, 2) - 31.59905) < 1e-3);
}

/* n runs of p50 = scale x p[i], each with 9 samples spread 1% around it. */
static json_t *runs_of(const double *p, int n, double scale) {
  json_t *runs = json_array();
  for (int i = 0; i < n; i++) {
    json_t *smp = json_array();
    for (int k = -4; k <= 4; k++) json_array_append_new(smp, json_real(scale * p[i] * (1 + 0.0025 * k)));
    json_array_append_new(runs, json_pack("{s:{s:f}, s:o, s:i}", "time_us", "p50", scale * p[i], "samples_us", smp,
                                          "samples_n", 9));
  }
  return runs;
}

static const double P5[] = {100, 102, 98, 101, 99};

/* sd of the logs of P5: what ar_pair_test reports as the runs' spread (both sides share it). */
static double sd_p5(void) {
  double m = 0, v = 0;
  for (int i = 0; i < 5; i++) m += log(P5[i]) / 5;
  for (int i = 0; i < 5; i++) v += (log(P5[i]) - m) * (log(P5[i]) - m) / 4;
  return sqrt(v);
}

static void test_pair(void **st) {
  (void)st;
  struct ar_noise nz;
  ar_noise_defaults(&nz);
  struct ar_pair t;
  json_t *a = runs_of(P5, 5, 1), *b = runs_of(P5, 5, 1.2), *c = runs_of(P5, 5, 1.01);
  /* 20% slower, 1.6% run-to-run spread: a difference, not equivalent; beyond a 10% margin, not beyond 30% */
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1, &t), 0);
  assert_true(fabs(t.ratio - 1.2) < 1e-12);
  assert_true(fabs(t.sd - sd_p5()) < 1e-12);
  assert_int_equal(t.runs_a, 5);
  assert_true(t.p_diff < 0.001 && t.p_equiv > 0.5);
  nz.margin = 0.10;
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1, &t), 0);
  assert_true(t.p_beyond < 0.001);
  nz.margin = 0.30;
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1, &t), 0);
  assert_true(t.p_beyond > 0.5 && t.p_equiv < 0.001);
  /* taking the 20% as the launch shift: no difference left */
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1.2, &t), 0);
  assert_true(t.p_diff > 0.5 && t.shift == 1.2);
  /* 1% apart: equivalent within 5% */
  nz.margin = 0.05;
  assert_int_equal(ar_pair_test(a, c, "k", &nz, 1, &t), 0);
  assert_true(t.p_equiv < 0.005 && t.p_equiv > 0.001 && t.p_beyond > 0.5); /* t: (0.0488 - 0.00995) / 0.0101, df 8 */
  /* one run a side: 20% apart is a difference with --drift 5, not with --drift 25; never equivalent at drift >=
   * margin, and no spread measured */
  json_t *a1 = runs_of(P5, 1, 1), *b1 = runs_of(P5, 1, 1.2);
  assert_int_equal(ar_pair_test(a1, b1, "k", &nz, 1, &t), 0);
  assert_true(t.p_diff < 0.01 && t.p_equiv == 1 && isnan(t.sd));
  nz.drift = 0.25;
  assert_int_equal(ar_pair_test(a1, b1, "k", &nz, 1, &t), 0);
  assert_true(t.p_diff == 1);
  /* two runs a side spread 30% (100, 130 and 1.5x those): 1.5x against a 30% margin is not shown beyond it. The
   * t test carries that (|log 1.5| - log 1.3 = 0.77 sd of the difference, df 2: p 0.52); the bootstrap over two
   * runs is too narrow in its tails (p ~ 0.13) and cannot alone */
  static const double P2[] = {100, 130};
  json_t *a2 = runs_of(P2, 2, 1), *b2 = runs_of(P2, 2, 1.5);
  nz.drift = 0.05;
  nz.margin = 0.30;
  assert_int_equal(ar_pair_test(a2, b2, "k", &nz, 1, &t), 0);
  assert_true(t.p_beyond > 0.45 && t.p_beyond < 0.6);
  nz.margin = 0.05;
  json_decref(a2);
  json_decref(b2);
  /* no samples on a side: -1, the ratio still set */
  json_t *bare = json_pack("[{s:{s:f}}]", "time_us", "p50", 50.0);
  assert_int_equal(ar_pair_test(a, bare, "k", &nz, 1, &t), -1);
  assert_true(isnan(t.p_diff) && fabs(t.ratio - 0.5) < 1e-12);
  json_decref(a);
  json_decref(b);
  json_decref(c);
  json_decref(a1);
  json_decref(b1);
  json_decref(bare);
}

/* The family's screening (decide.c): screen resamples drawn first, the rest drawn on only when a p-value there is at or
 * below screen_p. A comparison that shows nothing gives exactly what screen resamples alone give; one that shows
 * something exactly what the full count alone gives (the same first draws, the same seed). */
static int same_pair(const struct ar_pair *x, const struct ar_pair *y) {
  return x->lo == y->lo && x->hi == y->hi && x->p_diff == y->p_diff && x->p_equiv == y->p_equiv && x->p_beyond == y->p_beyond;
}

static void test_screen(void **st) {
  (void)st;
  static const double PW[] = {100, 125, 82, 112, 90}; /* 17% run-to-run: 3% apart shows neither way */
  json_t *a = runs_of(PW, 5, 1), *b = runs_of(PW, 5, 1.03), *c = runs_of(P5, 5, 1), *d = runs_of(P5, 5, 1.2);
  struct ar_noise nz, few, all;
  ar_noise_defaults(&nz);
  few = all = nz;
  few.resamples = 2000, all.resamples = 7100;
  nz.resamples = 7100, nz.screen = 2000, nz.screen_p = 0.2;
  struct ar_pair s, f, l;
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1, &s), 0);
  assert_int_equal(ar_pair_test(a, b, "k", &few, 1, &f), 0);
  assert_int_equal(ar_pair_test(a, b, "k", &all, 1, &l), 0);
  assert_true(f.p_diff > 0.2 && f.p_equiv > 0.2 && f.p_beyond > 0.2);
  assert_true(same_pair(&s, &f) && !same_pair(&s, &l));
  assert_int_equal(ar_pair_test(c, d, "k", &nz, 1, &s), 0); /* 20% apart at 1.6% spread: on to 7100 */
  assert_int_equal(ar_pair_test(c, d, "k", &few, 1, &f), 0);
  assert_int_equal(ar_pair_test(c, d, "k", &all, 1, &l), 0);
  assert_true(same_pair(&s, &l) && !same_pair(&s, &f));
  json_decref(a), json_decref(b), json_decref(c), json_decref(d);
}

/* nruns runs of n0, n0 + 2, ... samples (a distinct even count each: an even count's table is the large one), p50 scale x (100 + r % 3), samples spread 2% evenly. */
static json_t *runs_counts(int nruns, int n0, double scale) {
  json_t *runs = json_array();
  for (int r = 0; r < nruns; r++) {
    int n = n0 + 2 * r;
    double p = scale * (100 + r % 3);
    json_t *smp = json_array();
    for (int k = 0; k < n; k++) json_array_append_new(smp, json_real(p * (0.99 + 0.02 * k / (n - 1))));
    json_array_append_new(runs, json_pack("{s:{s:f}, s:o, s:i}", "time_us", "p50", p, "samples_us", smp, "samples_n", n));
  }
  return runs;
}

/* Runs of many distinct sample counts (a table each: 24 of ~0.4 MB pass a comparison's 8 MB budget, the rest draw by the gamma
 * variates): still bootstrapped, 20% apart found, the interval around 1.2. */
static void test_many_counts(void **st) {
  (void)st;
  json_t *a = runs_counts(24, 1000, 1), *b = runs_counts(24, 1000, 1.2);
  struct ar_noise nz;
  ar_noise_defaults(&nz);
  struct ar_pair t;
  assert_int_equal(ar_pair_test(a, b, "k", &nz, 1, &t), 0);
  assert_true(!t.unsampled && t.p_diff < 0.001 && t.lo > 1.17 && t.lo < 1.2 && t.hi > 1.2 && t.hi < 1.23);
  json_decref(a), json_decref(b);
}

/* A call's cache of tables (ar_ostats_new, as the decider shares it over a family) gives every comparison exactly the
 * numbers it gets alone, whichever comparisons filled the cache first (counts 1000.., 1001.. and 9; 24 counts past a
 * comparison's budget, then the same runs last first: the counts that get no table are others, some of them cached). */
static void test_cache(void **st) {
  (void)st;
  json_t *a = runs_counts(4, 1000, 1), *b = runs_counts(4, 1000, 1.2), *c = runs_counts(3, 1001, 1.1),
         *d = runs_of(P5, 5, 1), *e = runs_counts(24, 1100, 1), *f = runs_counts(24, 1100, 1.02);
  json_t *er = json_array(), *fr = json_array(); /* e and f's runs last first: the counts past the budget are others */
  for (size_t i = json_array_size(e); i-- > 0;) json_array_append(er, json_array_get(e, i)), json_array_append(fr, json_array_get(f, i));
  json_t *sides[][2] = {{a, b}, {c, b}, {d, a}, {e, f}, {a, b}, {er, fr}, {b, d}};
  struct ar_noise nz, cz;
  ar_noise_defaults(&nz);
  cz = nz;
  cz.ostats = ar_ostats_new();
  assert_non_null(cz.ostats);
  for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
    struct ar_pair x, y;
    assert_int_equal(ar_pair_test(sides[i][0], sides[i][1], "k", &nz, 1, &x), 0);
    assert_int_equal(ar_pair_test(sides[i][0], sides[i][1], "k", &cz, 1, &y), 0);
    if (!same_pair(&x, &y)) fail_msg("comparison %zu: [%.10g, %.10g] alone, [%.10g, %.10g] with the cache", i, x.lo, x.hi, y.lo, y.hi);
  }
  ar_ostats_free(cz.ostats);
  json_decref(a), json_decref(b), json_decref(c), json_decref(d), json_decref(e), json_decref(f), json_decref(er), json_decref(fr);
}

/* Holm over each family: p_diff 0.04 is a difference alone, not in a family of three. */
static void test_verdicts(void **st) {
  (void)st;
  struct ar_pair t[4] = {{.ratio = 0.5, .shift = 1, .p_diff = 0.001, .p_equiv = 0.9},
                         {.ratio = 2, .shift = 1, .p_diff = 0.04, .p_equiv = 0.9},
                         {.ratio = 1.01, .shift = 1, .p_diff = 0.5, .p_equiv = 0.01},
                         {.ratio = 1, .shift = 1, .p_diff = NAN, .p_equiv = NAN}};
  int v[4];
  double padj[4];
  assert_int_equal(ar_pair_verdicts(t, 4, 0.05, v, padj), 0);
  assert_int_equal(v[0], AR_PV_FASTER);
  assert_int_equal(v[1], AR_PV_UNDECIDED);
  assert_int_equal(v[2], AR_PV_EQUIVALENT);
  assert_int_equal(v[3], AR_PV_NOSAMPLES);
  assert_true(fabs(padj[1] - 0.08) < 1e-12 && isnan(padj[3]));
  assert_int_equal(ar_pair_verdicts(t + 1, 1, 0.05, v, NULL), 0);
  assert_int_equal(v[0], AR_PV_SLOWER);
  assert_string_equal(ar_pair_verdict_name(AR_PV_EQUIVALENT), "equivalent");
}

/* Runs per side for 80% power, worked by hand (t quantiles by numerical integration of the density): 10% apart
 * with run sd 0.05 at alpha 0.05/8 needs 9 (n = 9: 0.0953 / (0.05 sqrt(2/9)) = 4.044 >= t(0.996875, 16) + t(0.8,
 * 16) = 4.010; n = 8: 3.812 < 4.082); equal levels with sd 0.02 and a 5% margin at alpha 0.05 need 4 (the equivalence: 0.0488 / (0.02
 * sqrt(2/4)) = 3.45 >= t(0.95, 6) + t(0.9, 6) = 1.94 + 1.44; n = 3: 2.99 < 2.13 + 1.53). */
static void test_runs_needed(void **st) {
  (void)st;
  assert_int_equal(ar_runs_needed(log(1.1), 0.05, 0.05, 0.05 / 8), 9);
  assert_int_equal(ar_runs_needed(0, 0.02, 0.05, 0.05), 4);
  assert_int_equal(ar_runs_needed(log(1.1), NAN, 0.05, 0.05), -1);
  assert_int_equal(ar_runs_needed(log(1.05), 0.5, 0.05, 0.001), AR_RUNS_NEEDED_MAX);
}

/* The large-family test (fleet's), worked by hand with the closed form of Student's t for even df: runs' log
 * times {0, 0.02, 0.04} (mean 0.02, variance 0.0004) against a reference level 0 with prior variance 0.0001:
 * prior df 4 gives s2 = (4 x 0.0001 + 2 x 0.0004) / 6 = 0.0002, t = 0.02 / sqrt(0.0002 / 3) = sqrt(6), 6 df:
 * p = 0.024913; prior df 100 is capped at 10: s2 = 0.00015, t = sqrt(8), 12 df: p = 0.007610; the reference's
 * own variance 0.0002 / 3 halves t^2: t = sqrt(3), 6 df: p = 0.066987; a 2.02% margin puts the bound on the
 * mean (p = 0.5). */
static void test_moderated(void **st) {
  (void)st;
  const double v[3] = {0, 0.02, 0.04};
  double mean, var, ps, pw;
  ar_mean_var(v, 3, &mean, &var);
  assert_true(fabs(mean - 0.02) < 1e-15 && fabs(var - 0.0004) < 1e-15);
  struct ar_level_ref ref = {.level = 0, .se2 = 0, .prior_var = 0.0001, .prior_df = 4};
  ar_moderated_p(v, 3, &ref, 0, &ps, &pw);
  assert_true(fabs(ps - 0.024913) < 2e-6 && fabs(pw - (1 - 0.024913)) < 2e-6);
  ref.prior_df = 100; /* capped at AR_MODERATED_PRIOR_DF */
  ar_moderated_p(v, 3, &ref, 0, &ps, &pw);
  assert_true(fabs(ps - 0.007610) < 2e-6);
  ref = (struct ar_level_ref){.level = 0, .se2 = 0.0002 / 3, .prior_var = 0.0001, .prior_df = 4};
  ar_moderated_p(v, 3, &ref, 0, &ps, &pw);
  assert_true(fabs(ps - 0.066987) < 2e-6);
  ar_moderated_p(v, 3, &ref, expm1(0.02), &ps, &pw);
  assert_true(fabs(ps - 0.5) < 1e-9 && fabs(pw - 0.5) < 1e-9);
  ar_moderated_p(v, 1, &ref, 0, &ps, &pw); /* one run: not this test */
  assert_true(isnan(ps) && isnan(pw));
  ar_bound_p(0.1, 0, 0.05, 0, 5, &ps, &pw); /* no spread: the values decide */
  assert_true(ps == 0 && pw == 1);
  ar_bound_p(0.01, 0, 0.05, 0, 5, &ps, &pw);
  assert_true(ps == 1 && pw == 0);
  ps = pw = 7;
  ar_bound_p(0.01, 0, 0.05, NAN, 5, &ps, &pw); /* no error known: left as they were */
  assert_true(ps == 7 && pw == 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_simplicity), cmocka_unit_test(test_t_quantile),
                                     cmocka_unit_test(test_pair), cmocka_unit_test(test_verdicts),
                                     cmocka_unit_test(test_runs_needed), cmocka_unit_test(test_moderated),
                                     cmocka_unit_test(test_screen), cmocka_unit_test(test_many_counts),
                                     cmocka_unit_test(test_cache)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
