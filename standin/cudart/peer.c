/* peer.c — a kernel's loads and stores through an IPC mapping of a pair whose P2P traffic is lost (ARBENCH_STANDIN_ACS):
 * the kernel sees that mapping without access, and its first touch ends the kernel with cudaErrorIllegalAddress. */
#include "internal.h"
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#define SA_GUARDS 256

/* The kernel-side mappings of such pairs: [lo, hi), written under sa.mu, read by the signal handler without it. */
static struct { uintptr_t lo, hi; } guard[SA_GUARDS];
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static __thread volatile int *kernel_fault; /* the running kernel's fault word (sa_run_kernel), NULL outside one */

/* A fault in a guarded mapping while a kernel runs: the page is replaced by a private one, so the load or store
 * completes without reaching the peer (its traffic is lost), and the kernel's fault word is set (the grid runner stops
 * the kernel at its next switch). Any other fault: the previous disposition, as without the stand-in. */
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  uintptr_t a = (uintptr_t)si->si_addr;
  volatile int *k = kernel_fault;
  for (int i = 0; k && i < SA_GUARDS; i++) {
    uintptr_t lo = __atomic_load_n(&guard[i].lo, __ATOMIC_ACQUIRE), hi = __atomic_load_n(&guard[i].hi, __ATOMIC_ACQUIRE);
    if (a < lo || a >= hi) continue;
    void *page = (void *)(a & ~(uintptr_t)4095);
    if (mmap(page, 4096, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) break;
    *k = 1;
    return;
  }
  sigaction(SIGSEGV, &previous, NULL); /* the access faults again under it */
}

static void install(void) {
  struct sigaction sa_new = {0};
  sa_new.sa_sigaction = on_segv;
  sa_new.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa_new.sa_mask);
  sigaction(SIGSEGV, &sa_new, &previous);
}

/* Under sa.mu. 0, or -1 when the table is full. */
int sa_guard_add(void *lo, size_t bytes) {
  pthread_once(&installed, install);
  for (int i = 0; i < SA_GUARDS; i++)
    if (!__atomic_load_n(&guard[i].hi, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&guard[i].lo, (uintptr_t)lo, __ATOMIC_RELEASE);
      __atomic_store_n(&guard[i].hi, (uintptr_t)lo + bytes, __ATOMIC_RELEASE);
      return 0;
    }
  return -1;
}

/* Under sa.mu, before the mapping goes. */
void sa_guard_drop(void *lo) {
  for (int i = 0; i < SA_GUARDS; i++)
    if (__atomic_load_n(&guard[i].lo, __ATOMIC_ACQUIRE) == (uintptr_t)lo) {
      __atomic_store_n(&guard[i].hi, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&guard[i].lo, 0, __ATOMIC_RELEASE);
    }
}

/* On a worker, around a kernel's grid: its fault word (NULL after it). */
void sa_guard_kernel(volatile int *fault) { kernel_fault = fault; }
