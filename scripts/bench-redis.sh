#!/usr/bin/env bash
# Regenerates the Redis comparison: builds the benchmarks jar, starts a scratch redis-server on a
# free loopback port (no persistence), runs RedisComparison against it, and stops the server on
# exit. Writes slidingwindow-benchmarks/target/redis-comparison.md (also printed) and
# docs/images/redis-comparison.png.
#
# Usage: scripts/bench-redis.sh [secondsPerCase=10] [rounds=3] [threads=16]
# Environment: REDIS_SERVER (redis-server; valkey-server works too), MVN_FLAGS (e.g. -o),
# SKIP_BUILD=1 to reuse the jar, JAVA_OPTS for harness options such as -Dwarmup=1,
# -Dcontenders=slidingwindow,Bucket4j or -Dworkloads=distinct.
# Run it on a quiet machine: the harness flags rounds with more than 5 % CPU steal.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_CASE="${1:-10}"
ROUNDS="${2:-3}"
THREADS="${3:-16}"
REDIS_SERVER="${REDIS_SERVER:-redis-server}"
JAR=slidingwindow-benchmarks/target/benchmarks.jar

fail() {
  echo "scripts/bench-redis.sh: $*" >&2
  exit 1
}
command -v "$REDIS_SERVER" >/dev/null 2>&1 || fail "$REDIS_SERVER not found (set REDIS_SERVER)"
command -v redis-cli >/dev/null 2>&1 || fail "redis-cli not found"
command -v redis-benchmark >/dev/null 2>&1 || fail "redis-benchmark not found"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  ./mvnw -q ${MVN_FLAGS:-} -pl slidingwindow-benchmarks -am package -DskipTests
fi
[ -f "$JAR" ] || fail "$JAR is missing"

WORK="$(mktemp -d)"
# shellcheck source=scripts/scratch-redis.sh
. scripts/scratch-redis.sh

# shellcheck disable=SC2086
java -Djava.awt.headless=true ${JAVA_OPTS:-} -cp "$JAR" \
  io.slidingwindow.benchmarks.redis.RedisComparison "redis://127.0.0.1:$PORT" \
  "$SECONDS_PER_CASE" "$ROUNDS" "$THREADS" docs/images \
  slidingwindow-benchmarks/target/redis-comparison.md
