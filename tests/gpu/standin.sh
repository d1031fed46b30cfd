# standin.sh — source it: need_standin skips a test (exit 77) unless this build is the -Dcuda-emu=true build, the
# CPU stand-in of the CUDA runtime (standin/cudart/, issue 37), read from the build's own options
# (ARBENCH_BUILD/meson-info/intro-buildoptions.json), so the test never passes on a build it cannot run on.
need_standin() {
  local opts=${ARBENCH_BUILD:-}/meson-info/intro-buildoptions.json
  if [ -z "${ARBENCH_BUILD:-}" ] || [ ! -r "$opts" ] ||
     [ "$(python3 -c 'import json, sys
print(next((str(o["value"]).lower() for o in json.load(open(sys.argv[1])) if o["name"] == "cuda-emu"), "absent"))' "$opts")" != true ]
  then
    echo "skipped: needs the -Dcuda-emu=true build"
    exit 77
  fi
}

# sm_kernels: whether the build links the GPU kernels in (fill/check, links' SM copies): not on a stack without nvcc,
# where `version` says "GPU archs none ..." even when p2p-* and fused are there through NVRTC (rtc.c).
sm_kernels() { ! "$ARBENCH" version | grep -q '^GPU archs  *none'; }
