/* compute_mode.c — the stand-in devices' compute mode (ARBENCH_STANDIN_COMPUTE_MODE): in Exclusive_Process a device
 * takes the context of one process; another process's cudaSetDevice or cudaMalloc there is refused, as on a GPU. */
#include "internal.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int mode;                     /* cudaComputeMode: 0 Default, 3 ExclusiveProcess */
static int held[SA_MAX_DEVICES];     /* physical device -> 1 + the descriptor that holds it, 0 when not held */

/* ARBENCH_STANDIN_COMPUTE_MODE=default|exclusive-process (default: default) */
static void read_mode(void) {
  const char *v = getenv("ARBENCH_STANDIN_COMPUTE_MODE");
  if (!v || !*v || !strcmp(v, "default")) return;
  if (strcmp(v, "exclusive-process")) {
    fprintf(stderr, "arbench cuda stand-in: bad ARBENCH_STANDIN_COMPUTE_MODE '%s' (allowed: default, "
                    "exclusive-process)\n", v);
    exit(2);
  }
  mode = cudaComputeModeExclusiveProcess;
}

int sa_compute_mode(void) {
  pthread_once(&once, read_mode);
  return mode;
}

/* The calling process takes the context of visible device `device`: in Exclusive_Process mode a device one other
 * process holds refuses it (cuda_runtime_api.h:1638-1640, cudaSetDevice: "an error if the device is in
 * cudaComputeModeExclusiveProcess and is occupied by another process"; cudaErrorDevicesUnavailable, driver_types.h:
 * 432-440). A device is held by binding an abstract socket named for it and the launch (PMIX_NAMESPACE: the mpirun
 * job), which the kernel releases when the process ends, however it ends. */
cudaError_t sa_occupy(int device) {
  if (sa_compute_mode() != cudaComputeModeExclusiveProcess) return cudaSuccess;
  int phys = sa.physical[device];
  pthread_mutex_lock(&mu);
  cudaError_t e = cudaSuccess;
  if (!held[phys]) {
    const char *job = getenv("PMIX_NAMESPACE");
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "arbench-standin-exclusive-%u-%s-%d", (unsigned)getuid(),
                     job ? job : "nojob", phys);
    if (n < 0 || (size_t)n >= sizeof a.sun_path - 1) n = (int)sizeof a.sun_path - 2;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)))
      held[phys] = fd + 1;
    else {
      if (fd >= 0) close(fd);
      e = cudaErrorDevicesUnavailable;
    }
  }
  pthread_mutex_unlock(&mu);
  return e;
}
