/* algo.h — state of the shm-* backends and the host drivers of kernels/ar_core.h's algorithms,
 * one chunk (one generation) at a time over MPI-3 shared memory regions. */
#ifndef AR_SHM_ALGO_H
#define AR_SHM_ALGO_H

#include "ar.h"
#include "ar_core.h"
#include <mpi.h>

struct shm_state {
  int algo;               /* enum ar_core_algo */
  const char *name;       /* "shm-oneshot" ... */
  MPI_Comm comm;          /* duplicate of the node communicator */
  int rank, n;            /* local rank and local rank count */
  MPI_Win win;            /* MPI_WIN_NULL until setup */
  char *base[AR_CORE_MAX_RANKS];            /* every rank's region, mapped here */
  const uint32_t *aborts[AR_CORE_MAX_RANKS]; /* every rank's abort flag */
  struct ar_core_layout lay;
  struct ar_islands isl;
  struct ar_wait wait;
  double timeout_s;
  uint32_t gen;           /* last generation used */
  size_t chunk_req;       /* chunk=SIZE from the variant, 0 = default */
  void *acc;              /* private fp32/int32 accumulator of one chunk (staged) */
  int broken;             /* a wait failed: the flags no longer agree, refuse further calls */
  size_t stream_bytes;    /* calls of at least this many bytes stream their output (0 = never) */
  int stream;             /* this call streams its output */
};

/* One chunk of cnt elements as generation g: in/out point at the chunk's first element.
 * Returns 0 or -AR_ETIMEOUT (after printing one line naming rank, pass and peer). */
int shm_chunk(struct shm_state *s, const char *in, char *out, size_t cnt, int dt, int op, uint32_t g);

/* Writes of the private output (out.c): streaming stores when s->stream, else plain. */
void shm_out_copy(const struct shm_state *s, void *dst, const void *src, size_t bytes);
void shm_out_reduce(const struct shm_state *s, int dt, int op, int div, void *out, void *res,
                    const void *const *src, int ns, size_t n);
void shm_out_fence(const struct shm_state *s); /* order streamed stores before what follows */

#endif
