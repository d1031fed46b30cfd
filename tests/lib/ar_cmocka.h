/* ar_cmocka.h — cmocka for arbench's unit tests with skips that meson sees: AR_SKIP(why) skips a test,
 * and main returns ar_cmocka_status(failed): 77 (meson: SKIP) when a test skipped and none failed. */
#ifndef AR_CMOCKA_H
#define AR_CMOCKA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

/* Tests skipped in this program (cmocka itself counts skips as passes). */
static int ar_cmocka_skips;

#define AR_SKIP(why)                        \
  do {                                      \
    ar_cmocka_skips++;                      \
    printf("skipped: %s\n", (why));         \
    skip();                                 \
  } while (0)

/* failed: what cmocka_run_group_tests returned. Failures win over skips. */
static inline int ar_cmocka_status(int failed) { return failed ? 1 : ar_cmocka_skips ? 77 : 0; }

#endif
