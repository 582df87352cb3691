#!/usr/bin/env bash
# Load benchmark of the rate limit service (slidingwindow-server).
#
# By default: the service against floors with h2load (Debian's nghttp2-client), in alternating
# rounds, each server in a JVM of its own on this machine (ServiceBench in the benchmarks module):
#   memory: the service in memory, every call granted / every call refused, against a bare
#           grpc-java floor on the same grpc-netty-shaded, calls on the event loop and on the
#           default executor;
#   redis:  the service on a scratch redis-server, granted / refused, against a floor that makes
#           one Lettuce EVALSHA "return 1" per call, at the same concurrency;
#   http:   the service's POST /v1/decide against bare Netty and Jetty 12 HTTP/1.1 servers.
# It reports calls/s and server CPU per call (from /proc/<pid>/stat) per round, writes
# slidingwindow-benchmarks/target/server-bench.md and docs/images/server-bench.png (CHART=...).
#
# With GUARANTEE=1, then also the closed-loop check of the sliding-window guarantee under load
# (ServerLoad: grants per descriptor value against the limit, latency percentiles), in memory and
# on Redis, at the concurrency levels of LEVELS (default "64 256").
#
# Usage: scripts/bench-server.sh [rounds=3] [seconds=10]
# Environment: BENCH_GROUPS ("memory,redis,http"), INITIAL_WARMUP (20: seconds per target, once,
# unmeasured, for the JIT), WARMUP (3: seconds per round), CLIENTS (4) and STREAMS (16) of gRPC,
# HTTP_CLIENTS (64), JAVA_OPTS (of every server JVM, "-Xms512m -Xmx512m"), MVN_FLAGS (e.g. -o),
# SKIP_BUILD=1 to reuse the last build, CHART (the PNG's path), GUARANTEE=1, LEVELS.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${1:-3}"
SECONDS_PER_ROUND="${2:-10}"
BENCH_JAR=slidingwindow-benchmarks/target/benchmarks.jar
OUT=slidingwindow-benchmarks/target/server-bench.md
CHART="${CHART:-docs/images/server-bench.png}"

fail() {
  echo "scripts/bench-server.sh: $*" >&2
  exit 1
}
for n in "$ROUNDS" "$SECONDS_PER_ROUND"; do
  case "$n" in '' | *[!0-9]*) fail "rounds and seconds must be whole numbers, was '$n'" ;; esac
done
command -v java >/dev/null 2>&1 || fail "java not found"
command -v h2load >/dev/null 2>&1 || fail "h2load not found (Debian: apt-get install nghttp2-client)"
command -v redis-server >/dev/null 2>&1 || fail "redis-server not found"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  ./mvnw -q ${MVN_FLAGS:-} -pl slidingwindow-benchmarks,slidingwindow-server -am package -DskipTests
fi
[ -f "$BENCH_JAR" ] || fail "$BENCH_JAR is missing"
SERVER_JAR="$(ls slidingwindow-server/target/slidingwindow-server-*.jar 2>/dev/null \
  | grep -v -e sources -e javadoc -e tests | head -1 || true)"
[ -n "$SERVER_JAR" ] || fail "the slidingwindow-server jar is missing"

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
BODY="$(mktemp)"
trap 'rm -f "$BODY"' EXIT
java -cp "$BENCH_JAR" io.slidingwindow.benchmarks.server.ServiceBench \
  --server-jar "$SERVER_JAR" --bench-jar "$BENCH_JAR" \
  --groups "${BENCH_GROUPS:-memory,redis,http}" --rounds "$ROUNDS" --seconds "$SECONDS_PER_ROUND" \
  --warmup "${WARMUP:-3}" --initial-warmup "${INITIAL_WARMUP:-20}" \
  --clients "${CLIENTS:-4}" --streams "${STREAMS:-16}" \
  --http-clients "${HTTP_CLIENTS:-64}" --java-opts "${JAVA_OPTS:--Xms512m -Xmx512m}" \
  --out "$BODY" --chart "$CHART"
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
{
  echo "### The service against its floors (\`scripts/bench-server.sh $ROUNDS $SECONDS_PER_ROUND\`)"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "$(java -version 2>&1 | head -1), $(redis-server --version | cut -d' ' -f1-3), $(h2load --version | head -1)."
  echo "Load average (1, 5, 15 min) before: $LOAD_BEFORE; after: $LOAD_AFTER."
  echo
  cat "$BODY"
} | tee "$OUT"

if [ "${GUARANTEE:-0}" = 1 ]; then
  scripts/bench-server-guarantee.sh 10 ${LEVELS:-64 256}
fi
