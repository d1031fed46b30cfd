/* ar_emu.h — the CPU execution of the custom GPU kernels (kernels/ar_p2p_kernel.cuh, ar_fill.cu): an emulated
 * GPU is a pool of pthreads, one per GPU thread; a launch runs one grid to its end (like a synchronised stream). */
#ifndef AR_EMU_H
#define AR_EMU_H

#include "ar_p2p.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ar_emu_dev;

/* An emulated GPU. index (0..15) keeps the __shared__ storage of devices of one process apart; seed != 0
 * turns on seeded random delays at every flag store and load, barrier and fence (about 1 in delay_every
 * of them, a power of two). NULL when out of memory or index out of range. */
struct ar_emu_dev *ar_emu_dev_open(int index, uint64_t seed, unsigned delay_every);
void ar_emu_dev_close(struct ar_emu_dev *d);

/* One grid of blocks x threads of the p2p kernel (ar_cu_p2p's twin) or the fused kernel (ar_cu_fused's),
 * run to completion. 0, or -1 for a shape out of range (blocks 1..64, threads 32..1024, a multiple of 32) or
 * when the threads cannot be created. */
int ar_emu_p2p(struct ar_emu_dev *d, const struct ar_p2p_args *a, int blocks, int threads);
int ar_emu_fused(struct ar_emu_dev *d, const struct ar_p2p_args *a, int fused, int blocks, int threads);
/* ar_fill.cu's fill and check kernels (ar_cu_fill / ar_cu_check): *wrong += mismatching elements. */
int ar_emu_fill(struct ar_emu_dev *d, void *buf, size_t count, int dtype, int op, int rank, int nranks);
int ar_emu_check(struct ar_emu_dev *d, const void *buf, size_t count, int dtype, int op, int nranks,
                 unsigned long long *wrong);

#ifdef __cplusplus
}
#endif

#endif
