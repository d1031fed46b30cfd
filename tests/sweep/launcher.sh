#!/bin/bash
# launcher.sh — a test launcher for the sweep tests: runs mpirun "$@" unless the launch's environment
# sets SWEEP_TEST_MODE: hang (ranks sleep, plus a stray process in its own session), crash (SIGSEGV),
# fail (exit 3 with a message on stderr). The sweep passes "-np N <arbench run ...>".
case "${SWEEP_TEST_MODE:-ok}" in
  hang)
    setsid sleep 619 </dev/null >/dev/null 2>&1 &
    echo "launcher: hanging on purpose" >&2
    exec mpirun "$1" "$2" sleep 617 ;;
  crash) echo "launcher: crashing on purpose" >&2; kill -SEGV $$ ;;
  fail) echo "launcher: failing on purpose" >&2; exit 3 ;;
esac
exec mpirun "$@"
