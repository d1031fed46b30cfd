/* ar_emu_fiber.h — the grid runner of the CUDA stand-in (standin/cudart/): one wave of co-resident blocks at a
 * time on the calling thread, every GPU thread a fiber switched at barriers, shuffles, flag hooks and sleeps. */
#ifndef AR_EMU_FIBER_H
#define AR_EMU_FIBER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One GPU thread of a launch: run(job) with threadIdx/blockIdx/blockDim/gridDim of that thread. */
typedef void (*ar_emu_fiber_fn)(void *job);

struct ar_emu_fiber_grid; /* a runner: its fiber stacks, kept between launches (one per stream worker) */

/* slot_base: the first of AR_EMU_MAX_BLOCKS __shared__ storage rows this runner may use (its blocks of a wave
 * take slot_base + i). NULL when out of memory. */
struct ar_emu_fiber_grid *ar_emu_fiber_open(int slot_base);
void ar_emu_fiber_close(struct ar_emu_fiber_grid *g);
/* A word that, once non-zero, ends the running kernel at its threads' next switch (barrier, shuffle, flag hook,
 * sleep, a thread's end), as a GPU ends a kernel that faulted; NULL: none. */
void ar_emu_fiber_stop_on(struct ar_emu_fiber_grid *g, const volatile int *stop);

/* Run blocks x threads GPU threads of fn(job) to their end, in waves of at most `resident` blocks (every block of
 * a wave runs at once, as on a GPU whose SMs hold that many; blocks of later waves start when the wave ended).
 * Returns 0, -1 when out of memory (fiber stacks), or -2 when the threads of a block wait at barriers that can
 * never complete (a __syncthreads or shuffle not reached by every thread), -3 when the stop word became non-zero
 * (the kernel faulted): why gets one line. */
int ar_emu_fiber_run(struct ar_emu_fiber_grid *g, unsigned blocks, unsigned threads, unsigned resident,
                     ar_emu_fiber_fn fn, void *job, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
