/* engine.h — runs every (backend, dtype, size, placement) of a run: buffers, warm-up, timing,
 * checks, statistics over the max-over-ranks iteration times, records and table rows. */
#ifndef AR_ENGINE_H
#define AR_ENGINE_H

#include "backend.h"
#include "run/fault.h"
#include "results.h"
#include "watchdog.h"

struct ar_report;

struct ar_engine {
  struct ar_env *env;
  struct ar_writer *writer; /* rank 0 only; writer->f NULL when no -J */
  const char *run_id;
  json_t *point;            /* sweep point (object) or NULL */
  const char *as;           /* run --as ENGINE: every record says "as" (NULL or "": none) */
  json_t *tag;              /* merged into every record (--per-node: host, Slurm ids; pernode.h) or NULL */
  struct ar_report *report; /* rank 0 only */
  struct ar_watchdog *dog;  /* the run's watchdog, start-up to MPI_Finalize (cmd_run.c) */
  uint64_t wrong_total;     /* wrong elements over all results */
  int failures;             /* error records written */
  int write_failed;         /* rank 0: a record could not be written (the run stops; see ar_engine_stopped) */
  double link_gbs;          /* bottleneck PCIe link between the ranks' GPUs (GB/s), 0 = unknown */
  struct ar_fault fault;    /* ARBENCH_INJECT_FAULT / _DELAY: planted faults for the tests */
  int fill_fail_rank;       /* ARBENCH_INJECT_FILL_FAIL=R:BYTES: rank R's first checked fill at that */
  size_t fill_fail_bytes;   /* size fails (tests the agreement before checked calls); -1 = off */
};

/* The buffer rotation of one (size, placement): sets of one input (and, out of place, one output) buffer,
 * each stride bytes (the message rounded up to 256), cut from a pool of pool_bytes. hot (cold = 0): one set.
 * cold: enough sets to span twice cache_bytes, at most AR_MAX_SETS, and with -G K on the device (graph = K)
 * at most AR_MAX_GRAPHS x K (the captured graphs hold the whole rotation). span_bytes: what the rotation
 * really touches, nsets x its buffers' 128-byte lines; cold_reached: span_bytes >= 2 x cache_bytes (small
 * messages hit the set cap first: 8 B out of place spans 4096 x 256 B = 1 MiB). Pure. */
#define AR_MAX_SETS 4096
#define AR_ROTATION_LINE 128 /* bytes: a GPU L2 line (a CPU's is 64: the span is rounded up either way) */
struct ar_rotation {
  size_t stride, setsz; /* bytes between a set's input and output; between sets */
  int nsets;
  size_t span_bytes;
  int cold_reached;
};
struct ar_rotation ar_buffer_sets(int cold, size_t cache_bytes, size_t pool_bytes, size_t bytes, int inplace,
                                  int graph);
/* --buffers cold whose rotation r stayed under 2 x cache_bytes (!r->cold_reached): one sentence for the record's
 * method (its buffers_note): the sets and bytes it spanned, that the reads partly hit the cache, and the size
 * from which this placement's rotation of as many sets is cold (out of place under about 12 KiB on an H200's
 * 50 MB L2, 32 KiB on an RTX PRO 6000's 128 MiB). Empty when r reached it. Pure. */
void ar_cold_note(const struct ar_rotation *r, size_t cache_bytes, int inplace, char *buf, size_t len);
/* The buffer pool for sizes up to max_bytes: one out-of-place set of the largest; cold: plus twice the cache, so
 * the pool never stops a rotation short of 2 x cache (ceil(2 x cache / set) sets fit). */
size_t ar_pool_bytes(int cold, size_t cache_bytes, size_t max_bytes);
/* The largest message of O in bytes, over its sizes and dtypes (--counts: count x the element size). */
size_t ar_max_bytes(const struct ar_opts *o);

/* Run one backend spec ("name" or "name:variant") over all dtypes, sizes and placements.
 * Returns 0, or -AR_EINVAL for an unknown backend or bad variant (all ranks agree). */
int ar_engine_backend(struct ar_engine *e, const char *spec);

/* Write a record on rank 0 (adds "type" and "run_id"); errors are printed once, not returned, and
 * set write_failed. */
void ar_engine_emit(struct ar_engine *e, const char *type, json_t *rec);
/* Collective: 1 on every rank when rank 0 could not write a record (measuring with nowhere to save
 * is pointless); called before each size and backend. */
int ar_engine_stopped(struct ar_engine *e);

#endif
