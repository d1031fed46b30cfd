/* test_results.c — JSON Lines round trip through the writer and reader, a torn last line skipped
 * with a warning and cut off before an append, a bad line elsewhere rejected with its line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ar.h"
#include "results.h"

static char path[256];

static int setup(void **st) {
  (void)st;
  snprintf(path, sizeof path, "/tmp/ar_test_results_%d.jsonl", (int)getpid());
  unlink(path);
  return 0;
}

static int teardown(void **st) {
  (void)st;
  unlink(path);
  return 0;
}

struct seen { int n; double p50[8]; json_int_t size[8]; int lines[8]; };

static int collect(json_t *rec, const char *p, int line, void *arg) {
  (void)p;
  struct seen *s = arg;
  if (s->n < 8) {
    s->p50[s->n] = json_real_value(json_object_get(json_object_get(rec, "time_us"), "p50"));
    s->size[s->n] = json_integer_value(json_object_get(rec, "size"));
    s->lines[s->n] = line;
  }
  s->n++;
  return 0;
}

static void test_round_trip(void **st) {
  (void)st;
  struct ar_writer w;
  char err[512];
  assert_int_equal(ar_writer_open(&w, path, err, sizeof err), 0);
  for (int i = 0; i < 3; i++) {
    json_t *rec = json_pack("{s:s, s:I, s:{s:f}}", "type", "result", "size", (json_int_t)(8 << i),
                            "time_us", "p50", 1.25 * (i + 1));
    assert_int_equal(ar_writer_put(&w, rec, err, sizeof err), 0);
    json_decref(rec);
  }
  ar_writer_close(&w);
  struct seen s = {0};
  assert_int_equal(ar_results_read(path, collect, &s, err, sizeof err), 0);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.size[2], 32);
  assert_float_equal(s.p50[1], 2.5, 0);
  assert_int_equal(s.lines[2], 3);
}

static void test_truncated_last_line(void **st) {
  (void)st;
  FILE *f = fopen(path, "w");
  fputs("{\"type\":\"run\",\"size\":0}\n{\"type\":\"result\",\"size\":8,\"time_us\":{\"p50\":3.5}}\n"
        "{\"type\":\"result\",\"size\":16,\"time_u", f);
  fclose(f);
  struct seen s = {0};
  char err[512] = "";
  assert_int_equal(ar_results_read(path, collect, &s, err, sizeof err), 0);
  assert_int_equal(s.n, 2);
  assert_float_equal(s.p50[1], 3.5, 0);
  /* Appending cuts the torn line off first, so the file stays readable with every whole record. */
  struct ar_writer w;
  assert_int_equal(ar_writer_open(&w, path, err, sizeof err), 0);
  json_t *rec = json_pack("{s:s, s:i, s:{s:f}}", "type", "result", "size", 64, "time_us", "p50", 4.5);
  assert_int_equal(ar_writer_put(&w, rec, err, sizeof err), 0);
  json_decref(rec);
  ar_writer_close(&w);
  s.n = 0;
  err[0] = 0;
  assert_int_equal(ar_results_read(path, collect, &s, err, sizeof err), 0);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.size[2], 64);
  assert_int_equal(s.lines[2], 3);
  assert_float_equal(s.p50[2], 4.5, 0);
}

static void test_bad_files(void **st) {
  (void)st;
  char err[512] = "";
  struct seen s = {0};
  assert_int_equal(ar_results_read("/nonexistent/x.jsonl", collect, &s, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "/nonexistent/x.jsonl"));
  FILE *f = fopen(path, "w");
  fputs("{\"type\":\"run\"}\nnot json\n{\"type\":\"result\"}\n", f);
  fclose(f);
  assert_int_equal(ar_results_read(path, collect, &s, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, ":2:"));
  f = fopen(path, "w");
  fputs("{\"size\":8}\n", f);
  fclose(f);
  assert_int_equal(ar_results_read(path, collect, &s, err, sizeof err), -AR_EINVAL);
  assert_non_null(strstr(err, "type"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_truncated_last_line, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
