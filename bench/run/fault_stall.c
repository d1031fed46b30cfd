/* fault_stall.c — ARBENCH_INJECT_STALL=R:WHERE: rank R stops itself (SIGSTOP) at a named point of
 * start-up or teardown, the test of the watchdog's bounds outside the timed loop (issue 28). */
#include "ar.h"
#include "run/fault.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const where_names[AR_STALL_NPOINTS] = {"init", "options", "topology", "runid", "broadcast",
                                                           "finalize", "probe"};

const char *ar_stall_name(int where) { return where >= 0 && where < AR_STALL_NPOINTS ? where_names[where] : "?"; }

int ar_stall_parse(struct ar_stall *s, const char *spec, char *err, size_t len) {
  s->rank = -1;
  s->where = -1;
  if (!spec || !*spec) return 0;
  char *end;
  long r = strtol(spec, &end, 10);
  if (end == spec || *end != ':' || r < 0 || r > 1 << 20) {
    snprintf(err, len, "bad ARBENCH_INJECT_STALL '%.100s' (expected RANK:WHERE, WHERE one of init, options, "
                       "topology, runid, broadcast, finalize, probe)", spec);
    return -AR_EINVAL;
  }
  for (int i = 0; i < AR_STALL_NPOINTS; i++)
    if (!strcmp(end + 1, where_names[i])) {
      s->rank = (int)r;
      s->where = i;
      return 0;
    }
  snprintf(err, len, "bad ARBENCH_INJECT_STALL point '%.60s' (allowed: init, options, topology, runid, broadcast, "
                     "finalize, probe)", end + 1);
  return -AR_EINVAL;
}

void ar_stall_at(const struct ar_stall *s, int rank, int where) {
  if (s->where != where || s->rank != rank) return;
  fprintf(stderr, "arbench: rank %d: ARBENCH_INJECT_STALL: stopping at %s\n", rank, ar_stall_name(where));
  fflush(stderr);
  raise(SIGSTOP); /* every thread stops, the watchdog's too: a rank that stopped answering */
}
