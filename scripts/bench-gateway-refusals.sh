#!/usr/bin/env bash
# Refusals through the example gateway (slidingwindow-examples-gateway), two builds side by side.
#
# Each round starts each jar in a JVM of its own, in alternating order, on a free loopback port,
# with its backend pointed at a closed port: every request after the first five of the route's
# 5-per-10-s limit (one key: the client address) is refused by the limiter in memory. h2load
# (Debian's nghttp2-client) sends requests over HTTP/1.1 keep-alive connections, first unmeasured
# (for the JIT), then measured; the script prints refusals per second and the gateway's CPU per
# request (from /proc/<pid>/stat) for each jar and round, and the ratio B/A of each round.
#
# Usage: scripts/bench-gateway-refusals.sh A.jar B.jar [rounds=3] [requests=200000]
# Environment: CLIENTS (16 connections), WARMUP (100000 requests), JAVA_OPTS ("-Xms512m -Xmx512m").
set -euo pipefail

fail() {
  echo "scripts/bench-gateway-refusals.sh: $*" >&2
  exit 1
}
[ $# -ge 2 ] || fail "usage: A.jar B.jar [rounds] [requests]"
A="$1"
B="$2"
ROUNDS="${3:-3}"
REQUESTS="${4:-200000}"
CLIENTS="${CLIENTS:-16}"
WARMUP="${WARMUP:-100000}"
for jar in "$A" "$B"; do [ -f "$jar" ] || fail "no such jar: $jar"; done
for n in "$ROUNDS" "$REQUESTS" "$CLIENTS" "$WARMUP"; do
  case "$n" in '' | *[!0-9]*) fail "counts must be whole numbers, was '$n'" ;; esac
done
command -v h2load >/dev/null 2>&1 || fail "h2load not found (Debian: apt-get install nghttp2-client)"
TICKS="$(getconf CLK_TCK)"
LOG="$(mktemp)"
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
  rm -f "$LOG"
}
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Starts $1, sets PID and PORT once the gateway listens (at most 60 s).
start() {
  # shellcheck disable=SC2086
  java ${JAVA_OPTS:--Xms512m -Xmx512m} -jar "$1" --server.port=0 \
    --backend.uri=http://127.0.0.1:9 --logging.level.root=WARN \
    --logging.level.org.springframework.boot.web.embedded.netty=INFO >"$LOG" 2>&1 &
  PID=$!
  PORT=""
  for _ in $(seq 1 600); do
    PORT="$(sed -n 's/.*Netty started on port \([0-9]*\).*/\1/p' "$LOG" | head -1)"
    [ -n "$PORT" ] && return 0
    kill -0 "$PID" 2>/dev/null || fail "$1 exited: $(tail -5 "$LOG")"
    sleep 0.1
  done
  fail "$1 did not start within 60 s"
}

# Runs h2load with $1 requests; prints "requests/s 4xx-count".
load() {
  h2load --h1 -n "$1" -c "$CLIENTS" -t 1 "http://127.0.0.1:$PORT/api/bench" 2>&1 |
    awk '/^finished in/ {gsub(",", "", $4); rate = $4}
         /^status codes:/ {refused = $7}
         END {print rate, refused}'
}

echo "machine: $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round jar requests/s 4xx cpu-us/request"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then order="$A $B"; else order="$B $A"; fi
  declare -A rate=()
  for jar in $order; do
    start "$jar"
    load "$WARMUP" >/dev/null
    before="$(cpu_ticks "$PID")"
    read -r per_second refused < <(load "$REQUESTS")
    after="$(cpu_ticks "$PID")"
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""
    cpu="$(awk -v t=$((after - before)) -v hz="$TICKS" -v n="$REQUESTS" \
      'BEGIN {printf "%.1f", t / hz * 1e6 / n}')"
    echo "$round $jar $per_second $refused $cpu"
    rate[$jar]="$per_second"
  done
  awk -v a="${rate[$A]}" -v b="${rate[$B]}" \
    'BEGIN {printf "round ratio B/A: %.3f\n", b / a}'
done
