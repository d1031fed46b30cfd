/* doctor.c — `arbench doctor` (placeholder while the checks are written). */
#include "ar.h"
#include "commands.h"
int ar_cmd_doctor(int argc, char **argv) { (void)argc; (void)argv; return AR_EXIT_FAIL; }
