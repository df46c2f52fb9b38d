#!/bin/sh
# The blocks ipledger gave this node, as BIRD static routes: a BGP speaker on the node announces
# them (docs/api.md "Exporting blocks to a BGP speaker"). Needs curl and jq.
#   IPLEDGER_URL         the API, e.g. http://10.0.0.10:7460
#   IPLEDGER_TOKEN_FILE  a reader token (optional when the API has no tokens)
#   NODE_NAME            this node (default: the host name)
set -eu
node="${NODE_NAME:-$(hostname)}"
auth=""
[ -n "${IPLEDGER_TOKEN_FILE:-}" ] && auth="Authorization: Bearer $(cat "$IPLEDGER_TOKEN_FILE")"
next=""
while :; do
  page=$(curl -fsS ${auth:+-H "$auth"} "$IPLEDGER_URL/v1/nodes/$node/blocks?limit=1000${next:+&continue=$next}")
  printf '%s' "$page" | jq -r '.items[] | "route \(.cidr) blackhole;  # pool \(.pool), \(.used) used"'
  next=$(printf '%s' "$page" | jq -r '.continue // empty')
  [ -n "$next" ] || break
done
