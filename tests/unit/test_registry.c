/* test_registry.c — every ops table in the registry (bench/backends/registry.c) is whole, as fio's
 * check_engine_ops checks its engines: required ops, unique names, one of host/device, and the hooks the
 * device loop asks after a wait (health, aborted) on every GPU backend whose waits can give up. */
#include "../lib/ar_cmocka.h"
#include "ar_config.h"
#include "backend.h"
#include <string.h>

static const struct ar_backend *const *all(int *n) {
  const struct ar_backend *const *b = ar_backends(n);
  assert_non_null(b);
  assert_true(*n >= 12); /* mpi, shm-* x4, nccl, p2p-* x4, fused, symm: in every build (built or absent) */
  return b;
}

static void test_required_ops(void **st) {
  (void)st;
  int n;
  const struct ar_backend *const *b = all(&n);
  for (int i = 0; i < n; i++) {
    const struct ar_backend *be = b[i];
    print_message("%s\n", be->name);
    assert_non_null(be->name);
    assert_true(*be->name && !strchr(be->name, ':') && !strchr(be->name, ','));
    assert_true(be->summary && *be->summary);
    unsigned where = be->flags & (AR_BE_HOST | AR_BE_DEVICE);
    assert_true(where == AR_BE_HOST || where == AR_BE_DEVICE);
    assert_string_not_equal(ar_be_family_name(be->family), "?");
    if (!ar_backend_built(be)) continue; /* test_absent */
    assert_non_null(be->init);
    assert_non_null(be->allreduce);
    assert_non_null(be->fini);
    assert_true(!be->alloc == !be->release); /* what alloc gives, release takes back */
  }
}

static void test_unique_names(void **st) {
  (void)st;
  int n;
  const struct ar_backend *const *b = all(&n);
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) assert_string_not_equal(b[i]->name, b[j]->name);
    assert_ptr_equal(ar_backend_find(b[i]->name), b[i]);
  }
}

/* A backend this build does not compile (absent.c) says so and why, and has nothing else to call. */
static void test_absent(void **st) {
  (void)st;
  int n, absent = 0;
  const struct ar_backend *const *b = all(&n);
  for (int i = 0; i < n; i++) {
    const struct ar_backend *be = b[i];
    if (ar_backend_built(be)) continue;
    print_message("%s\n", be->name);
    absent++;
    char why[AR_ERRLEN] = "";
    assert_non_null(be->available);
    assert_int_equal(be->available(NULL, why, sizeof why), -AR_EUNAVAIL);
    assert_true(!strncmp(why, "not compiled in: ", 17) && why[17]);
    assert_true(!be->setup && !be->allreduce && !be->fini && !be->check_variant && !be->alloc && !be->health);
    assert_false(be->flags & AR_BE_HOST); /* the host backends are in every build */
  }
  const struct ar_backend *nccl = ar_backend_find("nccl"), *symm = ar_backend_find("symm");
  assert_true(nccl && symm); /* named in every build */
#ifdef AR_HAVE_CUDA
  assert_int_equal(ar_backend_built(nccl), AR_HAVE_NCCL); /* the CPU stand-in build may have no NCCL */
  assert_int_equal(ar_backend_built(symm), AR_HAVE_SYMM);
  assert_int_equal(ar_backend_built(ar_backend_find("fused")), AR_HAVE_P2P);
#else
  assert_int_equal(absent, 7); /* nccl, p2p-* x4, fused, symm */
#endif
}

/* A device backend's kernels or communicator wait on the peers: the device loop must learn when such a wait
 * gave up (health, aborted), unless the table says only the run's watchdog bounds them. Host backends are
 * never asked, so they must not pretend. */
static void test_device_hooks(void **st) {
  (void)st;
  int n, devices = 0;
  const struct ar_backend *const *b = all(&n);
  for (int i = 0; i < n; i++) {
    const struct ar_backend *be = b[i];
    if (!ar_backend_built(be)) continue;
    print_message("%s\n", be->name);
    int dev = (be->flags & AR_BE_DEVICE) != 0, only_dog = (be->flags & AR_BE_WATCHDOG_ONLY) != 0;
    if (!dev) {
      assert_false(only_dog);
      assert_true(!be->health && !be->aborted && !be->quiet && !be->progress);
      continue;
    }
    devices++;
    if (only_dog) {
      assert_true(!be->health && !be->aborted);
    } else {
      assert_non_null(be->health);
      assert_non_null(be->aborted);
    }
    if (be->quiet || be->progress) assert_true(be->quiet && be->progress && be->health); /* health ends the watch */
  }
#ifdef AR_HAVE_CUDA
  assert_true(devices > 0); /* nccl, or the p2p-* of the CPU stand-in build, at least */
#endif
}

/* The family analysis reads (tune's thresholds groups, the simplicity order of ties). */
static void test_families(void **st) {
  (void)st;
  int n;
  const struct ar_backend *const *b = all(&n);
  for (int i = 0; i < n; i++) {
    const struct ar_backend *be = b[i];
    print_message("%s\n", be->name);
    if (be->family == AR_BE_FAM_FUSED) assert_true(be->flags & AR_BE_FUSED);
    if (be->flags & AR_BE_BASELINE) assert_true(be->family == AR_BE_FAM_HOST || be->family == AR_BE_FAM_NCCL);
    unsigned flags = 0;
    assert_int_equal(ar_backend_family(be->name, &flags), (int)be->family);
    assert_int_equal(flags, be->flags);
  }
  unsigned flags = 0;
  assert_int_equal(ar_backend_family("mpi", &flags), AR_BE_FAM_HOST);
  assert_true(flags & AR_BE_BASELINE);
  assert_int_equal(ar_backend_family("shm-oneshot", &flags), AR_BE_FAM_HOST);
  assert_false(flags & AR_BE_BASELINE);
  assert_int_equal(ar_backend_family("emu-fused", &flags), -1); /* gone: the CPU stand-in build runs fused itself */
  assert_int_equal(ar_backend_family("nccl-tests", &flags), AR_BE_FAM_NCCL); /* arbench import's records */
  assert_true(flags & AR_BE_BASELINE);
  assert_int_equal(ar_backend_family("bogus", &flags), -1);
  assert_int_equal(flags, 0);
  assert_string_equal(ar_be_family_name(AR_BE_FAM_FUSED), "fused");
  assert_string_equal(ar_be_family_name((enum ar_be_family)99), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_required_ops),
    cmocka_unit_test(test_unique_names),
    cmocka_unit_test(test_absent),
    cmocka_unit_test(test_device_hooks),
    cmocka_unit_test(test_families),
  };
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
