#!/bin/sh
# ns_agent.sh — Open MPI's plm_rsh_agent for the two-host test: "ns_agent.sh HOST CMD..." runs the
# remote command (a shell string, as ssh would) inside HOST's network namespace, in a UTS namespace of
# its own named HOST. The map from host to namespace is in $ARB_NS_MAP ("host=ns host=ns").
host=$1
shift
ns=
for pair in $ARB_NS_MAP; do
  [ "${pair%%=*}" = "$host" ] && ns=${pair#*=}
done
[ -n "$ns" ] || { echo "ns_agent: unknown host '$host' (map: $ARB_NS_MAP)" >&2; exit 255; }
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
