/* memcheck.h — the host memory a run's ranks will allocate for their message buffers, checked by the parent
 * before it launches them (relaunch), and the sizes of it in words for the lines that say so. */
#ifndef AR_MEMCHECK_H
#define AR_MEMCHECK_H
#include <stddef.h>

#include "opts.h"

/* "2 GiB", "1.5 MiB", "512 B": binary units, a whole number when exact, else one decimal. */
void ar_human_bytes(size_t v, char *buf, size_t len);

/* The bytes one rank allocates for the engine's message buffers (bench/run/engine.c: one pool of
 * ar_pool_bytes for the largest size of any dtype, send + receive, plus 2 x the cache under --buffers cold;
 * backends run one after another, so the largest pool of any host-memory backend of O). 0 when no backend
 * of O keeps its buffers in host memory. *backend: the backend it is for. */
size_t ar_mem_need_host(const struct ar_opts *o, size_t cache_bytes, const char **backend);

/* The parent's check before it starts nranks ranks on this node: their host buffers against MemAvailable of
 * MEMINFO (/proc/meminfo; ARBENCH_INJECT_MEMINFO names another file for the tests) and each rank's need
 * against the address-space limit the ranks inherit (ulimit -v). 0, or -AR_EINVAL with one line naming the
 * largest size, the need and what is available. GPU memory is not checked here: each rank's device has its
 * own (the ranks name a failed cudaMalloc's size). */
int ar_mem_check(const struct ar_opts *o, int nranks, const char *meminfo, char *msg, size_t len);
/* The same check of one pool of need bytes per rank (the largest size maxb, cold: --buffers cold, be the backend)
 * for nranks ranks on this node: the ranks' own, in bench/run/engine.c, before any of them allocates. */
int ar_mem_check_need(size_t need, size_t maxb, int cold, const char *be, int nranks, const char *meminfo, char *msg,
                      size_t len);

#endif
