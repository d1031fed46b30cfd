/* cuda_status.h — the status words the `arbench links` GPU kernels (bench/links/links_cuda.cu) leave in mapped
 * host memory for the host to decode (bench/links/cuda_plan.c); C, CUDA and NVRTC alike, no includes. */
#ifndef AR_LINKS_CUDA_STATUS_H
#define AR_LINKS_CUDA_STATUS_H

/* st[AR_LKS_STATE]: what the kernel reached; st[AR_LKS_NS]: globaltimer ns of the timed part; st[AR_LKS_DONE]:
 * the round trips (or waits) completed. The host zeroes the three words before a launch. */
#define AR_LKS_STATE 0
#define AR_LKS_NS 1
#define AR_LKS_DONE 2
#define AR_LKS_WORDS 4 /* words per status (one per launch), padded */
#define AR_LKS_PROGRESS 256 /* the ping-pong kernel writes st[AR_LKS_DONE] every this many round trips */

#define AR_LKS_UNSET 0ull   /* never finished: the kernel did not run, or the host read too early */
#define AR_LKS_OK 1ull      /* every flag arrived before the deadline */
#define AR_LKS_TIMEOUT 2ull /* a flag did not arrive before the deadline: the kernel gave up */

#endif
