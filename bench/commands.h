/* commands.h — one entry point per `arbench` subcommand; main.c dispatches on argv[1].
 * Each returns a process exit status (0 ok, 1 failure, 2 bad input). */
#ifndef AR_COMMANDS_H
#define AR_COMMANDS_H

int ar_cmd_run(int argc, char **argv);     /* bench/run/cmd_run.c */
int ar_cmd_list(int argc, char **argv);    /* bench/cmd_list.c */
int ar_cmd_version(int argc, char **argv); /* bench/run/provenance.c */
int ar_cmd_topo(int argc, char **argv);    /* topo/topo_cmd.c */
int ar_cmd_sweep(int argc, char **argv);   /* bench/sweep/sweep.c */
int ar_cmd_table(int argc, char **argv);   /* bench/analysis/table.c */
int ar_cmd_compare(int argc, char **argv); /* bench/analysis/compare.c */
int ar_cmd_tune(int argc, char **argv);    /* bench/analysis/tune.c */
int ar_tune_verify(int argc, char **argv); /* bench/analysis/tune_verify.c: tune --verify */
int ar_cmd_import(int argc, char **argv);  /* bench/analysis/import.c */
int ar_cmd_model(int argc, char **argv);   /* bench/model/cmd.c */
int ar_cmd_doctor(int argc, char **argv);  /* bench/doctor/doctor.c */
int ar_cmd_links(int argc, char **argv);   /* bench/links/cmd.c */
int ar_cmd_report(int argc, char **argv);  /* bench/page/cmd.c */
int ar_cmd_fleet(int argc, char **argv);   /* bench/analysis/fleet.c */
int ar_cmd_impact(int argc, char **argv);  /* bench/impact/cmd.c */

#endif
