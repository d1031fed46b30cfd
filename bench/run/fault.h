/* fault.h — planted faults that prove the engine's checks and timing work: corrupt chosen output
 * elements of chosen ranks (ARBENCH_INJECT_FAULT), or make one rank slow (ARBENCH_INJECT_DELAY). */
#ifndef AR_FAULT_H
#define AR_FAULT_H

#include "backend.h"
#include "device/platform.h"

#define AR_FAULT_MAX 16

struct ar_fault {
  int n;                       /* corrupted (rank, element) pairs */
  int rank[AR_FAULT_MAX];
  long long pos[AR_FAULT_MAX]; /* element index; -1 = the last element, -2 = the middle one */
  int unwritten_rank;          /* rank whose checked calls leave the output unwritten; -1 = none */
  int delay_rank;              /* rank that sleeps in even timed iterations; -1 = none */
  double delay_ms;
  /* Test hooks (ar_fault_hooks): -1 / 0 when unset. */
  int p2p_stall, symm_stall;   /* ARBENCH_{P2P,SYMM}_STALL=R: rank R never launches its kernels */
  size_t nccl_hang_bytes;      /* ARBENCH_NCCL_HANG_BYTES=B: the nccl backend's calls of B bytes hang (device check) */
  int fill_fail_rank;          /* ARBENCH_INJECT_FILL_FAIL=R:B: rank R's fill of a B-byte message fails */
  size_t fill_fail_bytes;
  int silent_rank;             /* ARBENCH_INJECT_SILENT=R: rank R never answers a peer (arbench links) */
  int unheld_rank;             /* ARBENCH_INJECT_UNHELD=R:N: rank R's first N held tries (arbench links on GPUs) end */
  size_t unheld_tries;         /* unheld: their holds give up at once and the rank releases them only after, as when
                                * the host took longer to queue and meet than the hold waits */
  int mpi_error_rank;          /* ARBENCH_INJECT_MPI_ERROR=R:B: the mpi backend's B-byte MPI_Allreduce on rank R is */
  size_t mpi_error_bytes;      /* given a count of -1: MPI fails it there alone while the peers wait inside it; B = 0:
                                * an MPI_Bcast of count -1 at its init, on the run's communicator (arbench's handler) */
  /* The CPU stand-in of CUDA (-Dcuda-emu; ignored elsewhere): rank R's created streams never complete their work
   * (ARBENCH_EMU_HANG), its device-to-device and device-to-host copies flip a bit (ARBENCH_EMU_CORRUPT), its
   * cudaIpcOpenMemHandle fails as under ACS or the IOMMU (ARBENCH_EMU_IPC_FAIL). */
  int emu_hang, emu_corrupt, emu_ipc_fail;
};

/* Parse ARBENCH_INJECT_FAULT (R[:POS][,R[:POS]...], POS an element index, 'first', 'mid' or 'last';
 * an index past the end means the last element; or R:unwritten: rank R's backend writes its checked
 * calls' results elsewhere, as a backend that forgets its output would) and ARBENCH_INJECT_DELAY (R:MS). Either may be NULL
 * or empty. 0, or -AR_EINVAL with one line in err naming the bad value. */
int ar_fault_parse(struct ar_fault *f, const char *corrupt, const char *delay, int nranks, char *err,
                   size_t len);

/* Every test hook of the environment (get: getenv, or a test's), from one table in fault.c: bad values are
 * -AR_EINVAL with one line in err naming the variable, its value and what is allowed (a usage error). */
int ar_fault_hooks(struct ar_fault *f, char *(*get)(const char *), int nranks, char *err, size_t len);

/* Overwrite this rank's chosen elements of a checked call's output with the poison value. */
int ar_fault_corrupt(const struct ar_fault *f, const struct ar_platform *p, void *out, size_t count,
                     enum ar_dtype dt, enum ar_op op, int rank, int nranks);

/* A backend around the real one: sleeps ms after the call in even timed iterations (after warmup
 * calls), so the slow rank's time is long in those iterations, the others' in the next ones; or
 * (scratch set) sends the result to scratch and leaves the output as it was. */
struct ar_fault_slow {
  struct ar_backend ops;
  const struct ar_backend *be;
  void *state;
  int calls, warmup;
  double ms;
  void *scratch;
};

/* On the delayed rank with a host-timed loop: point loop->be/state at the slow wrapper. */
void ar_fault_wrap(const struct ar_fault *f, int rank, const struct ar_platform *p, struct ar_loop *loop,
                   struct ar_fault_slow *w);

/* On the unwritten rank with host buffers: be and state become the wrapper (scratch of max_bytes);
 * ar_fault_unwrap frees it. 0, or -AR_ERUNTIME when out of memory. */
int ar_fault_wrap_checked(const struct ar_fault *f, int rank, const struct ar_platform *p, size_t max_bytes,
                          const struct ar_backend **be, void **state, struct ar_fault_slow *w);
void ar_fault_unwrap(struct ar_fault_slow *w);

/* ARBENCH_INJECT_STALL=R:WHERE (bench/run/fault_stall.c): rank R stops itself with SIGSTOP at one point of
 * start-up or teardown, outside the timed loop; `probe` only in `arbench links` (after its smoke test, before
 * its first measurement). */
enum { AR_STALL_INIT, AR_STALL_OPTIONS, AR_STALL_TOPOLOGY, AR_STALL_RUNID, AR_STALL_BROADCAST, AR_STALL_FINALIZE,
       AR_STALL_PROBE, AR_STALL_NPOINTS };
struct ar_stall {
  int rank, where; /* -1, -1: none */
};
/* spec NULL or empty: none. 0, or -AR_EINVAL with one line in err naming the bad value. */
int ar_stall_parse(struct ar_stall *s, const char *spec, char *err, size_t len);
/* Stops this process when (rank, where) is the planted point. */
void ar_stall_at(const struct ar_stall *s, int rank, int where);
const char *ar_stall_name(int where);

#endif
