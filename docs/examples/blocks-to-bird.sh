#!/bin/sh
# The blocks ipledger gave this node, as BIRD static routes: a BGP speaker on the node announces
# them (docs/api.md "Exporting blocks to a BGP speaker"). Needs curl and jq.
#   IPLEDGER_URL         the API, e.g. http://10.0.0.10:7460
#   IPLEDGER_TOKEN_FILE  a reader token (optional when the API has no tokens)
#   NODE_NAME            this node (default: the host name)
# A pod here may hold an address outside this node's blocks in a pool with blocks: borrowed from
# another node's block, or a StatefulSet ordinal's (ranges lie outside nodes' blocks). Each such
# address gets a host route too, since the longest prefix wins over the other block's route.
set -eu
node="${NODE_NAME:-$(hostname)}"
auth=""
[ -n "${IPLEDGER_TOKEN_FILE:-}" ] && auth="Authorization: Bearer $(cat "$IPLEDGER_TOKEN_FILE")"

get() { curl -fsS ${auth:+-H "$auth"} "$IPLEDGER_URL$1"; }
# every item of a list, one JSON document a line, following `continue` ($1 ends in ? or &)
list() {
  next=""
  while :; do
    page=$(get "$1limit=1000${next:+&continue=$next}")
    printf '%s' "$page" | jq -c '.items[]'
    next=$(printf '%s' "$page" | jq -r '.continue // empty')
    [ -n "$next" ] || break
  done
}

# each list into a variable first: a failed request then stops the script (set -e), which a pipe would hide
blocks=$(list "/v1/nodes/$node/blocks?")
blocks=$(printf '%s' "$blocks" | jq -s .)
printf '%s' "$blocks" | jq -r '.[] | "route \(.cidr) blackhole;  # pool \(.pool), \(.used) used"'

held=$(list "/v1/allocations?node=$node&")
held=$(printf '%s' "$held" | jq -s .)
# the pools with blocks among those this node holds addresses in (a pool without blocks is routed otherwise)
blocked="[]"
for name in $(printf '%s' "$held" | jq -r '[.[].pool] | unique | .[]'); do
  pool=$(get "/v1/pools/$name")
  blocked=$(printf '%s' "$pool" | jq -c --argjson blocked "$blocked" 'if .blockSize then $blocked + [.name] else $blocked end')
done

printf '%s' "$held" | jq -r --argjson blocks "$blocks" --argjson blocked "$blocked" '
  # an address as its bits in a string, so a prefix test is a string compare (jq numbers hold 53 bits, IPv6 has 128)
  def bin($width): . as $n | [range($width - 1; -1; -1) | ($n / pow(2; .) | floor) % 2 | tostring] | join("");
  def hex: ascii_downcase | explode | map(if . >= 97 then . - 87 else . - 48 end) | reduce .[] as $d (0; . * 16 + $d);
  def groups6:
    if contains("::") then
      split("::") | map(if . == "" then [] else split(":") end) | .[0] + [range(8 - (.[0] | length) - (.[1] | length)) | "0"] + .[1]
    else split(":") end;
  def bits: if contains(":") then groups6 | map(hex | bin(16)) | join("") else split(".") | map(tonumber | bin(8)) | join("") end;
  def within($cidr): ($cidr | split("/")) as [$net, $len] | ($len | tonumber) as $n | bits[0:$n] == ($net | bits[0:$n]);
  .[]
  | select(.pool as $p | $blocked | any(. == $p))
  | . as $a
  | select([$blocks[] | select(.pool == $a.pool) | .cidr] | any(. as $c | $a.ip | within($c)) | not)
  | "route \(.ip)/\(if (.ip | contains(":")) then 128 else 32 end) blackhole;  # pool \(.pool), \(.namespace)/\(.pod)\(if .borrowed then ", borrowed" elif .statefulSet then ", StatefulSet range" else "" end)"'
