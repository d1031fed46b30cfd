/* orphan.h — ranks that die with their launcher (bench/run/orphan.c). */
#ifndef AR_ORPHAN_H
#define AR_ORPHAN_H

/* Under an MPI launcher: SIGKILL this process when its parent (mpirun, or the launcher's daemon) dies.
 * 0, or -AR_ERUNTIME when the parent is already gone (the caller exits) or the signal cannot be armed. */
int ar_orphan_guard(char *const *envp);

#endif
