/* device.h — what the device platform (bench/device/) shares with the GPU backends: the nvcc-built
 * fill/check launchers, the device-choice rule, and the device loop's plan (loop_plan.c). */
#ifndef AR_DEVICE_H
#define AR_DEVICE_H

#include "backend.h"
#include <stddef.h>
#include <stdint.h>

/* kernels/ar_fill.cu (only when built with nvcc): 0 or a cudaError_t. wrong is a device counter. */
int ar_cu_fill(void *buf, size_t count, int dtype, int op, int rank, int nranks, void *stream);
int ar_cu_check(const void *buf, size_t count, int dtype, int op, int nranks, unsigned long long *wrong,
                void *stream);
/* 0 when the current device can run these kernels, else the cudaError_t (no kernel image...). */
int ar_cu_image(void);

/* Device of local rank lr: from list (n entries, NULL = by local rank) over count GPUs; -1 when
 * this rank gets none (more local ranks than GPUs without shared). Pure: no CUDA. */
int ar_gpu_assign(const int *list, int n, int count, int shared, int lr);
/* Device of local rank lr when every local rank's visible GPUs are known (visible[r]: its PCI bus
 * ids in CUDA order, joined by ','): ranks that see the same GPUs split them by their position
 * among those ranks, so a rank that sees only its own GPU (CUDA_VISIBLE_DEVICES per task, srun
 * --gpus-per-task=1) gets its device 0. -1 when none. Pure. */
int ar_gpu_assign_visible(const char *const *visible, int nlocal, const int *list, int n, int shared, int lr);
/* Does another local rank use the same physical GPU? busid[r]: the PCI bus id of local rank r's
 * device ("" = none). Pure. */
int ar_gpu_busid_shared(const char *const *busid, int nlocal, int lr);
/* Parse --devices "0,2,3" into list (cap entries); -AR_EINVAL with a one-line message. */
int ar_gpu_list_parse(const char *text, int *list, int cap, int *n, char *err, size_t len);
/* loop_plan.c: CUDA graphs that together cover a rotation of nsets buffer sets with per_graph
 * iterations each (at most cap), and the replays to warm them (each graph at least once). */
int ar_graph_count(int nsets, int per_graph, int cap);
int ar_graph_warm(int warmup, int per_graph, int ngraphs);

/* How many units (allreduces, or graph replays of per each) the device loop lets run ahead of the host: about
 * window allreduces, at least 2 units, so a hang is seen within -T; and whether, with `queued` units queued and
 * `ended` of them waited for, the host must wait for the oldest before it queues the next. Both timings (per
 * iteration, and --timing loop) wait so: the heartbeat moves as units end on the GPU, never as they are
 * queued. Pure. */
int ar_loop_depth(int window, int per);
int ar_loop_must_wait(int queued, int ended, int depth);
/* The end of one unit of the device loop (harvest, or a unit's end event in the --timing loop). wait_rc: the
 * wait for it (or its launch). A p2p kernel that gave up ends normally, so the wait alone does not say the
 * calls succeeded: only when it did, verdict (the backend's aborted hook, with state) is asked. The heartbeat
 * moves by per only for a unit that succeeded: a call that failed must not restart the watchdog's clock,
 * or a stopped peer ends the job only after the kernels' own timeout plus a full -T. Returns the first
 * failure (0 when the unit succeeded). Pure apart from the verdict call. */
typedef int (*ar_unit_verdict_fn)(void *state, char *err, size_t len);
int ar_unit_settle(int wait_rc, ar_unit_verdict_fn verdict, void *state, volatile uint64_t *heartbeat, int per,
                   char *err, size_t len);

/* A deadline per collective: armed with limit seconds; any progress restarts the clock. */
struct ar_deadline {
  double since, limit;
  uint64_t seen;
  int armed;
};
void ar_deadline_arm(struct ar_deadline *d, double now, uint64_t progress, double limit);
/* 1 when limit seconds passed since arming or the last progress (progress != the last seen). */
int ar_deadline_overdue(struct ar_deadline *d, double now, uint64_t progress);

#endif
