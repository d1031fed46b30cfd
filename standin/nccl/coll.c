/* coll.c — the NCCL stand-in's ncclAllReduce: checks and tuning on the calling thread (the plugin's choice, the
 * tuning INFO line, NCCL's "no algorithm" error), then the data movement queued on the caller's stand-in stream. */
#include "standin_nccl.h"
#include "standin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One queued allreduce: what the stream worker needs (copied by the stand-in at enqueue and per graph replay). */
struct job {
  ncclComm_t comm;
  const char *send;
  char *recv;
  size_t count;
  ncclDataType_t dt;
  ncclRedOp_t op;
  int counted; /* queued on a stream (not captured): counts in comm->pending until it has run */
};

static int posted_ge(const struct sn_peer *p, uint64_t v) { return __atomic_load_n(&p->posted, __ATOMIC_ACQUIRE) >= v; }
static int consumed_ge(const struct sn_peer *p, uint64_t v) {
  return __atomic_load_n(&p->consumed, __ATOMIC_ACQUIRE) >= v;
}

/* Device memory the call may touch: a buffer outside stand-in memory faults as a kernel's access would. */
static int device_visible(const void *p, size_t bytes) {
  struct ar_standin_ptr info;
  return ar_standin_pointer(p, bytes, &info) != AR_STANDIN_NOT_OURS;
}

/* Steps of at most SN_CHUNK bytes per rank: my piece into my staging slot (double-buffered), every rank's piece
 * read once all have posted, reduced in rank order into my output; a slot is reused once every rank has read it.
 * Every wait gives up when the communicator is aborted (as NCCL's kernels watch the abort flag). */
static int run_steps(ncclComm_t c, const struct job *j) {
  size_t es = (size_t)sn_type_size(j->dt), per = SN_CHUNK / es;
  const void *in[SN_MAX_RANKS];
  for (size_t done = 0; done < j->count;) {
    size_t n = j->count - done < per ? j->count - done : per;
    uint64_t g = __atomic_add_fetch(&c->step, 1, __ATOMIC_RELAXED);
    size_t slot = (size_t)(g % SN_STEP_SLOTS) * SN_CHUNK;
    if (g > SN_STEP_SLOTS && sn_wait_all(c, consumed_ge, g - SN_STEP_SLOTS)) return 0;
    memcpy(c->staging + slot, j->send + done * es, n * es);
    __atomic_store_n(&c->area->peer[c->rank].posted, g, __ATOMIC_RELEASE);
    if (sn_wait_all(c, posted_ge, g)) return 0;
    for (int r = 0; r < c->nranks; r++) in[r] = c->peer_staging[r] + slot;
    sn_reduce(j->recv + done * es, in, c->nranks, n, j->dt, j->op);
    __atomic_store_n(&c->area->peer[c->rank].consumed, g, __ATOMIC_RELEASE);
    done += n;
  }
  return 0;
}

static int work(void *arg) {
  const struct job *j = arg;
  ncclComm_t c = j->comm;
  int rc = 0;
  __atomic_add_fetch(&c->inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&c->aborted, __ATOMIC_SEQ_CST)) {
    /* NCCL's kernels of an aborted communicator return at once */
  } else if (!sn_comm_check(c, "ncclAllReduce")) {
    size_t bytes = j->count * (size_t)sn_type_size(j->dt);
    if (!device_visible(j->send, bytes) || !device_visible(j->recv, bytes)) rc = cudaErrorIllegalAddress;
    else rc = run_steps(c, j);
  } else {
    ar_standin_violation("NCCL stand-in: an allreduce reached the stream after its communicator %p was destroyed "
                         "(queued or captured before ncclCommDestroy)", (void *)c);
  }
  if (j->counted) __atomic_sub_fetch(&c->pending, 1, __ATOMIC_SEQ_CST);
  __atomic_sub_fetch(&c->inflight, 1, __ATOMIC_SEQ_CST);
  return rc;
}

/* Registered buffers, as the plugin is told (regBuff): both wholly inside a registration of this communicator. */
static int registered(ncclComm_t c, const void *p, size_t bytes) {
  const char *q = p;
  int found = 0;
  pthread_mutex_lock(&c->lock);
  for (int i = 0; i < c->nreg && !found; i++)
    found = q >= (char *)c->reg[i].base && q + bytes <= (char *)c->reg[i].base + c->reg[i].size;
  pthread_mutex_unlock(&c->lock);
  return found;
}

/* getAlgoInfo + topoGetAlgoInfo + the plan's channels: the choice, or NCCL's error when nothing can run. */
static ncclResult_t tune(ncclComm_t c, const struct job *j, const struct sn_select *sel, int *algo, int *proto, int *lo,
                         int *hi) {
  size_t es = (size_t)sn_type_size(j->dt), bytes = j->count * es;
  float table[SN_NUM_ALGOS * SN_NUM_PROTOS];
  int nch = 0;
  sn_model_costs(&c->model, bytes, table);
  if (c->tuner) {
    int reg = registered(c, j->send, bytes) && registered(c, j->recv, bytes);
    ncclResult_t rc = sn_tuner_coll(c->tuner, c->tuner_ctx, SN_FUNC_ALLREDUCE, bytes, table, reg, &nch);
    if (rc) return rc;
  }
  int picked = sel ? sn_select_pick(sel, table, algo, proto) : 0; /* 2.31's per-call selection (collconfig.c) */
  if (picked < 0) return ncclInvalidArgument;
  if (!picked && sn_model_pick(table, algo, proto)) {
    const char *a = sn_getenv("NCCL_ALGO"), *p = sn_getenv("NCCL_PROTO"); /* read now, in the calling thread */
    char as[1100] = "", ps[1100] = "";
    if (a) snprintf(as, sizeof as, " NCCL_ALGO was set to %s.", a);
    if (p) snprintf(ps, sizeof ps, " NCCL_PROTO was set to %s.", p);
    SN_WARN("Error : no algorithm/protocol available for function AllReduce with datatype %s.%s%s",
            sn_datatype_name(j->dt), as, ps);
    return a || p ? ncclInvalidUsage : ncclInternalError;
  }
  int task = nch > 0 ? nch : sn_model_channels(&c->model, bytes, *algo, *proto);
  sn_channel_range(j->count, (int)es, *proto, task, c->model.nchannels, lo, hi);
  return ncclSuccess;
}

/* ncclPrepareTasks: a call in symmetric windows whose symmetric kernel is available takes it, before the plugin and
 * NCCL_ALGO/NCCL_PROTO are consulted (src/scheduler/symmetric_sched.cc:28-229 at v2.28.9-1); the rest are tuned. */
static ncclResult_t plan(ncclComm_t c, const struct job *j, const struct sn_select *sel) {
  long bytes = (long)(j->count * (size_t)sn_type_size(j->dt));
  const char *kernel;
  int blocks, algo, proto, lo, hi;
  if (sn_symk_pick(c, j->send, j->recv, j->count, j->dt, j->op, &kernel, &blocks)) {
    if (c->rank == 0) /* nthreads: ncclSymkPickKernel's 16 warps */
      SN_INFO(SN_TUNING, "AllReduce [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d", bytes,
              kernel, blocks, 16 * 32, 1);
    return ncclSuccess;
  }
  ncclResult_t rc = tune(c, j, sel, &algo, &proto, &lo, &hi);
  if (!rc && c->rank == 0)
    SN_INFO(SN_TUNING, "AllReduce: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", bytes, sn_algo_name(algo),
            sn_proto_name(proto), lo, hi);
  return rc;
}

static ncclResult_t args_check(ncclComm_t c, ncclDataType_t dt, ncclRedOp_t op) {
  if ((unsigned)dt >= ncclNumTypes) {
    SN_WARN("AllReduce : invalid type %d", (int)dt);
    return ncclInvalidArgument;
  }
  if ((unsigned)op >= ncclNumOps) {
    SN_WARN("AllReduce : reduction operation %d unknown to this communicator", (int)op);
    return ncclInvalidArgument;
  }
  if (dt == ncclFloat8e4m3 || dt == ncclFloat8e5m2) {
    SN_WARN("arbench NCCL stand-in: %s reductions are not implemented", sn_datatype_name(dt));
    return ncclInvalidArgument;
  }
  (void)c;
  return ncclSuccess;
}

/* One rank: NCCL copies out of place and does nothing in place (no tuning, no line). */
static ncclResult_t one_rank(const struct job *j, cudaStream_t stream) {
  if (j->send == j->recv) return ncclSuccess;
  cudaError_t e = cudaMemcpyAsync(j->recv, j->send, j->count * (size_t)sn_type_size(j->dt), cudaMemcpyDeviceToDevice,
                                  stream);
  if (e == cudaSuccess) return ncclSuccess;
  SN_WARN("Cuda failure '%s'", cudaGetErrorString(e));
  return ncclUnhandledCudaError;
}

/* A captured plan's persistent reference goes with the last graph holding it (NCCL's persistentDestructor,
 * src/enqueue.cc; the communicator outlives it here: went communicators are never freed). */
static void persistent_gone(void *arg) {
  ncclComm_t c = arg;
  __atomic_sub_fetch(&c->persistent, 1, __ATOMIC_SEQ_CST);
}

SN_API ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op,
                           ncclComm_t c, cudaStream_t stream) {
  return sn_allreduce(send, recv, count, dt, op, c, stream, NULL);
}

ncclResult_t sn_allreduce(const void *send, void *recv, size_t count, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t c,
                          cudaStream_t stream, const struct sn_select *sel) {
  ncclResult_t rc = sn_comm_check(c, "AllReduce");
  if (rc) return rc;
  if ((rc = __atomic_load_n(&c->async, __ATOMIC_ACQUIRE))) return rc; /* ncclCommEnsureReady */
  if ((rc = args_check(c, dt, op))) return rc;
  SN_INFO(SN_COLL, "AllReduce: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d root 0 comm %p "
          "[nranks=%d] stream %p", (unsigned long)__atomic_load_n(&c->step, __ATOMIC_RELAXED), send, recv, count, (int)dt, (int)op, (void *)c, c->nranks,
          (void *)stream);
  struct job j = {c, send, recv, count, dt, op, 0};
  if (!count) return ncclSuccess;
  if (c->nranks == 1) return one_rank(&j, stream);
  if ((rc = plan(c, &j, sel))) return rc;
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  j.counted = cudaStreamIsCapturing(stream, &cs) != cudaSuccess || cs == cudaStreamCaptureStatusNone;
  if (j.counted) __atomic_add_fetch(&c->pending, 1, __ATOMIC_SEQ_CST);
  cudaError_t e = ar_standin_enqueue(stream, work, &j, sizeof j, "ncclAllReduce");
  /* Captured: NCCL keeps a persistent reference per plan until the graph dies (src/enqueue.cc:1542-1546,
   * persistentRefs + ncclCudaGraphAddDestructor); ncclCommFinalize/Destroy/Abort wait for it (commDestroySync). */
  if (e == cudaSuccess && !j.counted) {
    __atomic_add_fetch(&c->persistent, 1, __ATOMIC_SEQ_CST);
    if ((e = ar_standin_capture_keep(stream, persistent_gone, c)) != cudaSuccess)
      __atomic_sub_fetch(&c->persistent, 1, __ATOMIC_SEQ_CST);
  }
  if (e == cudaSuccess) return ncclSuccess;
  if (j.counted) __atomic_sub_fetch(&c->pending, 1, __ATOMIC_SEQ_CST);
  SN_WARN("Cuda failure '%s'", cudaGetErrorString(e));
  return ncclUnhandledCudaError;
}
