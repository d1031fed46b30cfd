/* import_ranks.h — how many ranks an imported nccl-tests test ran on: the evidence a log holds (Rank
 * lines, busbw/algbw, a launcher line) and the one decision over it, with its cross-check. */
#ifndef AR_IMPORT_RANKS_H
#define AR_IMPORT_RANKS_H

#include <jansson.h>

#include <stddef.h>

/* busbw/algbw = 2(n-1)/n, kept as the interval of n every printed row allows (its last digit is
 * rounded): lo..hi, hi may be infinite. rows = rows that narrowed it; empty: rows that contradict. */
struct ar_nt_ratio {
  double lo, hi;
  int rows, empty;
};

struct ar_nt_evidence {
  int forced;           /* --ranks N, 0 = not given */
  int rank_hi;          /* highest index of a "# Rank" line + 1, 0 = none */
  int rank_lines;       /* distinct "# Rank" lines */
  int launcher;         /* ranks from a launcher line (mpirun -np, srun -n, SLURM_NTASKS), 0 = none */
  struct ar_nt_ratio ratio;
};

void ar_nt_ratio_init(struct ar_nt_ratio *r);
/* Narrow r by one printed (algbw, busbw) pair, given as the log's text ("179.88", "1e+06"). A pair that
 * cannot be read or has no algbw to divide by adds nothing. */
void ar_nt_ratio_add(struct ar_nt_ratio *r, const char *algbw, const char *busbw);
/* Half a unit in the last printed digit of a number as printed ("0.24" -> 0.005, "11163" -> 0.5,
 * "1e+06" -> 5e5), or -1 when s is not a number. */
double ar_nt_half_unit(const char *s);

/* Decide the rank count. Returns it (>= 1) with *from naming the evidence used ("busbw/algbw",
 * "Rank lines", "launcher", "--ranks") and warn set to one line when pieces of evidence disagree
 * ("" otherwise); or 0 with err set to one line saying what is known and to pass --ranks N. */
int ar_nt_decide_ranks(const struct ar_nt_evidence *ev, const char **from, char *warn, size_t wlen, char *err,
                       size_t elen);

/* Ranks a command line starts: the sum over MPMD parts of mpirun/mpiexec -np|-n|-c N (srun -n N, --ntasks N,
 * or -N nodes x --ntasks-per-node), times the -g/-t of the *_perf program it runs (a program run without a
 * launcher: one process, -g x -t); a SLURM_NTASKS=N it sets; 0 when it starts none it can count (-np $N). */
int ar_nt_launcher_ranks(const char *cmd);
/* Is cmd a command line (after a shell prompt and environment assignments: a launcher or an *_perf
 * program)? 1 with prog set to the *_perf program it runs ("" when none shows), else 0. */
int ar_nt_command_program(const char *cmd, char *prog, size_t len);
/* The -a N (--average N) given to the *_perf program of cmd, -1 when none. */
int ar_nt_command_average(const char *cmd);
/* The nccl-tests 2.19 options of a command line's *_perf program into opts (cleared first), by nccl-tests' long
 * name: per_iter_timing (-I), per_iter_skip (-K), blocking_mode (-z), local_register (-R),
 * device_implementation (-D), device_cta_count (-V); an option whose value is no integer is left out. */
void ar_nt_command_options(const char *cmd, json_t *opts);

#endif
