/* test_version.c — what `arbench version` and `list` say about a build's GPU code (ar_stack_kernels_line,
 * bench/run/provenance.c; issue 42 item 7): a build with CUDA disabled says so and how to build the GPU parts,
 * never "no nvcc in this stack"; an nvcc build its archs; an NVRTC stack and a stack without nvcc say which. The
 * stack descriptions are built as bench/device/none.c and gpu.c build them. */
#include "../lib/ar_cmocka.h"
#include "run/provenance.h"
#include <string.h>

static void line_of(const char *stack_json, char *buf, size_t len) {
  json_t *st = json_loads(stack_json, 0, NULL);
  assert_non_null(st);
  ar_stack_kernels_line(st, buf, len);
  json_decref(st);
}

static void test_cuda_disabled(void **st) {
  (void)st;
  char buf[512];
  line_of("{\"name\":\"host-only\",\"cuda_runtime\":null,\"archs\":null,"
          "\"cuda_disabled\":\"configured with -Dcuda=disabled\"}", buf, sizeof buf);
  assert_string_equal(buf, "none: this build has CUDA disabled (configured with -Dcuda=disabled); meson configure BUILD "
                           "-Dcuda=enabled, then ninja -C BUILD, builds the GPU parts where the CUDA toolkit is");
  assert_null(strstr(buf, "nvcc"));
}

static void test_cuda_builds(void **st) {
  (void)st;
  char buf[512];
  line_of("{\"kernels\":true,\"archs\":\"90,120\",\"custom_kernels\":{\"compiler\":\"nvcc\"}}", buf, sizeof buf);
  assert_string_equal(buf, "90,120");
  line_of("{\"kernels\":false,\"archs\":null,\"custom_kernels\":{\"compiler\":\"nvrtc\"}}", buf, sizeof buf);
  assert_string_equal(buf, "none linked in (no nvcc in this stack: fill/check staged through the host)");
  line_of("{\"kernels\":false,\"archs\":null,\"custom_kernels\":null}", buf, sizeof buf);
  assert_string_equal(buf, "none (no nvcc in this stack: no GPU kernels compiled in)");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cuda_disabled), cmocka_unit_test(test_cuda_builds)};
  return ar_cmocka_status(cmocka_run_group_tests(tests, NULL, NULL));
}
