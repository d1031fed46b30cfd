# ranks.sh — helpers for tests that signal one rank of a running job: find a rank's pid by a tag in
# its environment, wait for a condition, time a job's end. Source after common.sh.
source "$(dirname "${BASH_SOURCE[0]}")/qgrep.sh" # a launcher sources this file alone
rank_pid() { # rank_pid TAG RANK : pid of the process whose environment has ARBENCH_TEST_TAG=TAG and rank RANK
  local e
  for e in /proc/[0-9]*/environ; do
    { tr '\0' '\n' <"$e"; } 2>/dev/null | qgrep -qx "ARBENCH_TEST_TAG=$1" || continue
    { tr '\0' '\n' <"$e"; } 2>/dev/null | qgrep -qx "OMPI_COMM_WORLD_RANK=$2" || continue
    e=${e#/proc/}; echo "${e%/environ}"; return 0
  done
  return 1
}

tagged_pids() { # tagged_pids TAG : every live process with ARBENCH_TEST_TAG=TAG
  local e
  for e in /proc/[0-9]*/environ; do
    { tr '\0' '\n' <"$e"; } 2>/dev/null | qgrep -qx "ARBENCH_TEST_TAG=$1" || continue
    e=${e#/proc/}; e=${e%/environ}
    [ "$(awk '{print $3}' "/proc/$e/stat" 2>/dev/null)" = Z ] || echo "$e"
  done
}

poll() { # poll SECONDS CMD... : until CMD succeeds, or fail
  local limit=$1 t=0; shift
  until "$@"; do
    sleep 0.2; t=$((t + 1))
    [ "$t" -lt $((limit * 5)) ] || fail "timed out after ${limit}s waiting for: $*"
  done
}

results_in() { # results_in FILE N : FILE holds at least N result records
  [ -e "$1" ] && [ "$(grep -c '"type":"result"' "$1" || true)" -ge "$2" ]
}
