/* linkfit.h — the model's link parameters from `link` records (`arbench links`): a copy's time per
 * (method, path class) as fixed + bytes x cost (pairs alone), the flag latency per path class; the expected
 * value of a link record and its ratio (what `links --calib` writes and `model --fit` shows). */
#ifndef AR_MODEL_LINKFIT_H
#define AR_MODEL_LINKFIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Least squares of y = fixed + slope x over n points (sums given; distinct: how many distinct x). A negative
 * intercept is clamped to 0 with the slope refitted through the origin; with one distinct x the line goes
 * through the origin (bandwidth = bytes / time). */
void ar_model_lsq(int n, int distinct, double sx, double sy, double sxx, double sxy, double *fixed, double *slope);

/* The "links" object of a --calib file from the link records of notes (runs: run_id -> run record):
 * {"host": H, "bandwidth": {"METHOD CLASS": {"method", "path", "fixed_us", "us_per_byte", "gbs", "points",
 * "pairs", "min_bytes", "max_bytes", "max_resid_us"}}, "latency": {"CLASS": {"path", "us", "pairs"}}}.
 * Bandwidth from the `pairs`, `uni` records (each record's us = bytes / gbs, records with wrong words left
 * out); latency the median over the flag records' us of that class. *out NULL when there are no link records.
 * 0, or -AR_EINVAL with one line in err (records of several hosts: one box at a time). */
int ar_link_fit(json_t *notes, json_t *runs, json_t **out, char *err, size_t len);

/* The model's expected value of one link record from a "links" object: for `pairs` `uni` records of a fitted
 * (method, class) bytes / (fixed + bytes x cost) in GB/s, for flag records the class's latency in us. 0 and
 * *v set, or -1 when the model has none (another pattern or direction, a class or method not fitted). */
int ar_link_expected(json_t *links, json_t *rec, double *v);

/* Set rec's expected_gbs (expected_us for flag records) and ratio = measured / expected from links (NULL
 * links: both null). */
void ar_link_fill(json_t *links, json_t *rec);

/* Load the "links" object of a --calib file. 0, or -AR_EINVAL with one line in err. */
int ar_link_calib_load(const char *path, json_t **links, char *err, size_t len);

/* The fitted values as text: one line per (method, class) and per latency class, what each came from. */
void ar_link_fit_print(FILE *f, json_t *links, int nfiles, char **files);

#endif
