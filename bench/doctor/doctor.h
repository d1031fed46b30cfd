/* doctor.h — what the `arbench doctor` check groups share: the report (one line per finding: level,
 * check, what was found, what to do) and the system root the checks read under (fixtures in tests). */
#ifndef AR_DOCTOR_H
#define AR_DOCTOR_H

#include "doctor/finding.h"
#include <stddef.h>

/* A GPU found in sysfs: bus id, device id, and the PCI bridges above it (nearest first). */
#define AR_DOC_MAXUP 12
struct ar_doc_gpu {
  char bdf[16];
  unsigned device;
  char up[AR_DOC_MAXUP][16];
  int nup;
};
/* NVIDIA GPUs under root/sys/bus/pci/devices, in bus id order; count (<= max). */
int ar_doc_gpus(const struct ar_doc *d, struct ar_doc_gpu *g, int max);

/* A rank for the NUMA locality check: where it may run (a CPU list, "" unknown with note saying why) and
 * its GPU's bus id ("": GPU local_rank mod n in PCI bus id order; live under mpirun, CUDA's device). */
struct ar_doc_rank {
  int rank, local_rank; /* local_rank -1: unknown */
  char host[64], cpus[256], gpu[16], note[200];
};
int ar_doc_ranks_inject(const char *arg, struct ar_doc_rank *r, int max, char *err, size_t len); /* count, -1 */
int ar_doc_ranks_results(const char *file, int live, struct ar_doc_rank *r, int max, char *err,
                         size_t len);                                      /* count, -1 */
int ar_doc_under_mpirun(void);
/* The last run record of a results file (new ref); NULL with err set. */
json_t *ar_doc_last_run(const char *file, char *err, size_t len);
int ar_doc_ranks_mpi(struct ar_doc_rank *r, int max, int *me, int live); /* collective; count at rank 0 */

/* Check groups. */
void ar_doctor_pci(struct ar_doc *d, const struct ar_doc_gpu *g, int n);   /* pci.c */
void ar_doctor_persistence(struct ar_doc *d, const struct ar_doc_gpu *g, int n); /* persist.c */
void ar_doctor_p2p(struct ar_doc *d, int n);                               /* p2p.c */
void ar_doctor_links_smoke(struct ar_doc *d);                              /* links_smoke.c */
void ar_doctor_env(struct ar_doc *d, char **envp);                         /* env.c */
void ar_doctor_ranks(struct ar_doc *d, const struct ar_doc_gpu *g, int n, struct ar_doc_rank *r, int nr,
                     const char *none);                             /* ranks.c */
void ar_doctor_stack(struct ar_doc *d, const struct ar_doc_gpu *g, int n); /* stack.c */
/* Known-bad stacks (bench/knownbad.c): a run record's stack and GPUs (rec, from --results), else this NCCL
 * version (NULL: the loaded one, when this build has NCCL; from names where it came from) and these GPUs. */
void ar_doctor_knownbad(struct ar_doc *d, const struct ar_doc_gpu *g, int n, json_t *rec, const char *nccl,
                        const char *from); /* knownbad.c */

/* Compute capability (e.g. 120) of an NVIDIA PCI device id from the table in stack.c, 0 unknown. */
int ar_doc_cc_of_device(unsigned device);
/* Its marketing name ("RTX PRO 6000 Blackwell Server") from the same table, NULL unknown. */
const char *ar_doc_name_of_device(unsigned device);

#endif
