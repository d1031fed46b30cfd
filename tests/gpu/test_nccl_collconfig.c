/* test_nccl_collconfig.c — the nccl backend's per-collective config (bench/backends/nccl/nccl_collconfig.c): the
 * layout of ncclCollConfig_v23100, the algSelection of each algo=/proto= form, the version-gated lookup. No GPU. */
#include "backends/nccl/nccl_collconfig.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <string.h>

/* A stand-in for libnccl's symbol, found by the lookup through dlsym(RTLD_DEFAULT) (the executable exports it). */
__attribute__((visibility("default"))) int ncclAllReduceConfig(const void *s, void *r, size_t n, int dt, int op,
                                                               void *c, void *st, const void *cfg) {
  (void)s, (void)r, (void)n, (void)dt, (void)op, (void)c, (void)st, (void)cfg;
  return 0;
}

/* Offsets measured on the nvidia-nccl-cu13 2.31.2 wheel's include/nccl.h (gcc, x86-64): 64 bytes. */
static void test_layout(void **st) {
  (void)st;
  assert_int_equal(sizeof(struct ar_nccl_coll_config), 64);
  assert_int_equal(offsetof(struct ar_nccl_coll_config, ext), 16);
  assert_int_equal(offsetof(struct ar_nccl_coll_config, algSelection), 40);
  assert_int_equal(offsetof(struct ar_nccl_coll_config, forceAlgSelection), 48);
  assert_int_equal(offsetof(struct ar_nccl_coll_config, CTAPolicy), 52);
  assert_int_equal(offsetof(struct ar_nccl_coll_config, userProfilerTag), 56);
  struct ar_nccl_coll_config c;
  ar_nccl_collconfig_init(&c, "RING_SIMPLE");
  assert_int_equal(c.size, 64);
  assert_int_equal(c.magic, 0xcafebeefu);
  assert_int_equal(c.version, 23100);
  assert_null(c.ext);
  assert_int_equal(c.minCTAs, INT_MIN);
  assert_int_equal(c.maxCTAs, INT_MIN);
  assert_int_equal(c.nvlsCTAs, INT_MIN);
  assert_int_equal(c.cgaClusterSize, INT_MIN);
  assert_string_equal(c.algSelection, "RING_SIMPLE");
  assert_int_equal(c.forceAlgSelection, 1);
  assert_int_equal(c.CTAPolicy, INT_MIN);
  assert_int_equal(c.userProfilerTag, 0);
}

static void sel(const char *algo, const char *proto, const char *want) {
  char out[256];
  int rc = ar_nccl_collconfig_selection(algo, proto, out, sizeof out);
  if (!want) {
    assert_int_equal(rc, -1);
    return;
  }
  assert_int_equal(rc, 0);
  assert_string_equal(out, want);
}

/* NCCL matches a tag as a prefix (algorithm_registry.cc): RING_LL alone would allow RING_LL128 too. */
static void test_selection(void **st) {
  (void)st;
  sel("Ring", "LL", "RING_LL+^RING_LL128");
  sel("Ring", "LL128", "RING_LL128");
  sel("Tree", "Simple", "TREE_SIMPLE");
  sel("Ring,Tree", "LL,Simple", "TREE_LL+^TREE_LL128,TREE_SIMPLE,RING_LL+^RING_LL128,RING_SIMPLE");
  sel("Tree", "", "TREE_LL+^TREE_LL128,TREE_LL128,TREE_SIMPLE");
  sel("", "LL", "TREE_LL+^TREE_LL128,RING_LL+^RING_LL128");
  sel("", "Simple", "TREE_SIMPLE,RING_SIMPLE,COLLNET_DIRECT_SIMPLE,COLLNET_CHAIN_SIMPLE,NVLS_SIMPLE,NVLSTREE_SIMPLE,"
      "PAT_SIMPLE");
  sel("NVLS", "", "NVLS_SIMPLE"); /* not a prefix of NVLSTREE_SIMPLE: exact */
  sel("NVLSTree", "Simple", "NVLSTREE_SIMPLE");
  sel("CollNetDirect,CollNetChain", "", "COLLNET_DIRECT_SIMPLE,COLLNET_CHAIN_SIMPLE");
  sel("Ring,PAT", "LL", "RING_LL+^RING_LL128"); /* PAT has no LL kernel: left out */
  sel("PAT", "LL", "PAT_LL");                   /* nothing left: NCCL refuses the name itself */
  sel("", "", NULL);                            /* nothing forced: no config */
  char small[8];
  assert_int_equal(ar_nccl_collconfig_selection("Ring", "LL", small, sizeof small), -1);
}

static void test_lookup(void **st) {
  (void)st;
  assert_null(ar_nccl_collconfig_lookup(22809));
  assert_null(ar_nccl_collconfig_lookup(23099));
  assert_non_null(ar_nccl_collconfig_lookup(23100));
  assert_true(ar_nccl_collconfig_lookup(23102) == (ar_nccl_allreduce_config_fn)ncclAllReduceConfig);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_layout), cmocka_unit_test(test_selection),
                                     cmocka_unit_test(test_lookup)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
