#!/bin/bash
# envi_launcher.sh — a test launcher that starts mpirun with an EMPTY environment (env -i) apart from
# PATH and Open MPI's root/oversubscribe switches, so swept variables reach the ranks only through
# the launcher's arguments (-x NAME=V): proves --forward-env x works, and none does not.
exec env -i PATH="$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_rmaps_base_oversubscribe=1 mpirun "$@"
