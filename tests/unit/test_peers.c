/* test_peers.c — the watchdog's view of its peers: process states of a running, a stopped and a dead
 * child, and the phrase naming the culprits; the report claim goes to the first rank only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "peers.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child(void) {
  int ready[2];
  if (pipe(ready)) return -1;
  pid_t pid = fork();
  if (pid == 0) { /* dies with the test, even stopped, and keeps no pipe of meson's open */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
    if (write(ready[1], "r", 1) != 1) _exit(1);
    for (;;) pause();
  }
  char c;
  close(ready[1]);
  if (pid > 0 && read(ready[0], &c, 1) != 1) pid = -1; /* set up before anyone signals it */
  close(ready[0]);
  return pid;
}

/* Until pid is in state want, for up to 20 s: a hang bound, not a speed (a loaded box may take seconds to run the
 * child to its pause or to deliver a signal; issue 50 item 12: this was 2 s). */
static void wait_state(pid_t pid, char want) {
  for (int i = 0; i < 2000 && ar_proc_state(pid) != want; i++) {
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
}

static void test_states(void **st) {
  (void)st;
  assert_int_equal(ar_proc_state(getpid()), 'R');
  pid_t pid = child();
  assert_true(pid > 0);
  wait_state(pid, 'S');
  assert_int_equal(ar_proc_state(pid), 'S');
  kill(pid, SIGSTOP);
  wait_state(pid, 'T');
  assert_int_equal(ar_proc_state(pid), 'T');
  kill(pid, SIGKILL);
  wait_state(pid, 0); /* a zombie counts as gone, before and after the reaping */
  assert_int_equal(ar_proc_state(pid), 0);
  waitpid(pid, NULL, 0);
  assert_int_equal(ar_proc_state(pid), 0);
}

static void test_culprits(void **st) {
  (void)st;
  pid_t stopped = child(), dead = child(), fine = child();
  kill(stopped, SIGSTOP);
  kill(dead, SIGKILL);
  waitpid(dead, NULL, 0);
  wait_state(stopped, 'T');
  struct ar_peer_slot slots[4] = {{getpid(), 0}, {fine, 1}, {stopped, 2}, {dead, 3}};
  uint32_t claim = 0;
  struct ar_peers p = {.claim = &claim, .slots = slots, .n = 4, .me = 0};
  char buf[256];
  ar_peers_culprits(&p, buf, sizeof buf);
  char want[256];
  snprintf(want, sizeof want, "rank 2 (pid %d) is stopped, rank 3 (pid %d) is gone", stopped, dead);
  assert_string_equal(buf, want);
  slots[2].pid = fine;
  slots[3].pid = fine;
  ar_peers_culprits(&p, buf, sizeof buf);
  assert_string_equal(buf, "no rank on this node is stopped or gone");
  assert_int_equal(ar_peers_claim(&p, 2), 1);
  assert_int_equal(ar_peers_claim(&p, 0), 0);
  assert_int_equal(claim, 3);
  assert_int_equal(ar_peers_claim(NULL, 1), 1); /* no table: every rank reports */
  kill(stopped, SIGKILL);
  kill(fine, SIGKILL);
  waitpid(stopped, NULL, 0);
  waitpid(fine, NULL, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_states), cmocka_unit_test(test_culprits)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
