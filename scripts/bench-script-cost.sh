#!/usr/bin/env bash
# BENCHMARK HARNESS, not a test: Redis's own cost per request of the limiter script, beside bare
# scripts that issue only the commands of a request opening a bucket, in the LIST layout the
# library uses (script-cost/bare-list.lua) and in a STRING layout it does not
# (script-cost/bare-string.lua). Starts a scratch redis-server on a free loopback port, then per
# round and per script: FLUSHALL, CONFIG RESETSTAT, redis-benchmark -c 16 running EVALSHA with
# REQUESTS requests per call on keys drawn from 10 000 ids per request slot (one limit of 1000 per
# minute in 60 ms buckets, server time), and prints the script time per request (INFO
# commandstats) and redis-server's CPU per request (utime + stime from /proc) for each.
#
# Usage: scripts/bench-script-cost.sh [rounds=3] [calls=300000] [requestsPerCall=5]
# Environment: REDIS_SERVER (redis-server; valkey-server works too). Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"
CALLS="${2:-300000}"
REQUESTS="${3:-5}"
REDIS_SERVER="${REDIS_SERVER:-redis-server}"
fail() {
  echo "scripts/bench-script-cost.sh: $*" >&2
  exit 1
}
for n in "$ROUNDS" "$CALLS" "$REQUESTS"; do
  case "$n" in '' | *[!0-9]* | 0) fail "rounds, calls and requestsPerCall must be positive whole numbers, was '$n'" ;; esac
done
command -v "$REDIS_SERVER" >/dev/null 2>&1 || fail "$REDIS_SERVER not found (set REDIS_SERVER)"
command -v redis-cli >/dev/null 2>&1 || fail "redis-cli not found"
command -v redis-benchmark >/dev/null 2>&1 || fail "redis-benchmark not found"

WORK="$(mktemp -d)"
# shellcheck source=scripts/scratch-redis.sh
. scripts/scratch-redis.sh
CLI=(redis-cli -h 127.0.0.1 -p "$PORT")
TICKS="$(getconf CLK_TCK)"

# One limit of 1000 per minute, precision 60 ms, T = 60 060 ms; each request takes 1 permit ('2')
# at the server's time ('').
ARGS=(0 60060 1 1000 60000000 60000)
KEYS=()
for i in $(seq 1 "$REQUESTS"); do
  KEYS+=("k$i:__rand_int__")
  ARGS+=(2 "")
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
stat_field() {
  "${CLI[@]}" INFO commandstats | tr -d '\r' | awk -F'[:,=]' -v f="$1" \
    '$1 == "cmdstat_evalsha" { for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}

declare -A SHAS
SCRIPTS=(limiter bare-list bare-string)
SHAS[limiter]="$("${CLI[@]}" SCRIPT LOAD "$(cat slidingwindow-redis/src/main/resources/META-INF/slidingwindow/limiter.lua)")"
SHAS[bare-list]="$("${CLI[@]}" SCRIPT LOAD "$(cat scripts/script-cost/bare-list.lua)")"
SHAS[bare-string]="$("${CLI[@]}" SCRIPT LOAD "$(cat scripts/script-cost/bare-string.lua)")"

echo "| round | script | script time, µs per request | redis-server CPU, µs per request |"
echo "|---:|---|---:|---:|"
for round in $(seq 1 "$ROUNDS"); do
  for script in "${SCRIPTS[@]}"; do
    "${CLI[@]}" FLUSHALL >/dev/null
    "${CLI[@]}" CONFIG RESETSTAT >/dev/null
    before="$(cpu_ticks)"
    redis-benchmark -h 127.0.0.1 -p "$PORT" -n "$CALLS" -c 16 -r 10000 -q \
      EVALSHA "${SHAS[$script]}" "$REQUESTS" "${KEYS[@]}" "${ARGS[@]}" >/dev/null
    after="$(cpu_ticks)"
    calls="$(stat_field calls)"
    usec="$(stat_field usec_per_call)"
    [ -n "$calls" ] && [ "$calls" -gt 0 ] || fail "no EVALSHA was counted for $script"
    awk -v r="$round" -v s="$script" -v u="$usec" -v n="$REQUESTS" -v c="$calls" \
      -v t="$((after - before))" -v hz="$TICKS" \
      'BEGIN { printf "| %d | %s | %.2f | %.2f |\n", r, s, u / n, t * 1e6 / hz / (c * n) }'
  done
done
