#!/usr/bin/env bash
# The sliding-window guarantee of the rate limit service (slidingwindow-server) under load over
# gRPC, in memory and on Redis (scripts/bench-server.sh runs it with GUARANTEE=1). Builds the
# service and the benchmarks, then for each mode starts the service in its own JVM on free loopback
# ports (on Redis: with a scratch redis-server, no persistence), drives
# envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit from a second JVM (ServerLoad) at
# each concurrency level, and stops everything on exit. Prints a Markdown section (also written to
# slidingwindow-benchmarks/target/server-load.md).
#
# Usage: scripts/bench-server-guarantee.sh [seconds=10] [concurrency...=64 256]
# Environment: WARMUP (seconds per level, 5), MODES ("memory redis"), REDIS_SERVER (redis-server;
# valkey-server works too), MVN_FLAGS (e.g. -o), SKIP_BUILD=1 to reuse the last build,
# SERVER_JAVA_OPTS and LOAD_JAVA_OPTS (JVM options of the service and of the load generator),
# LOAD_OPTS (more ServerLoad options, e.g. "--channels 2 --hot-share 0.5"), FAILURE_POLICY
# (closed; open is the service's default, under which a Redis call slower than its 50 ms timeout
# grants without counting, so that the check reports violations on a slow machine).
# The service's output is kept in slidingwindow-benchmarks/target/server-load-<mode>.log.
# Exits 3 when the sliding-window check finds a violation.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_LEVEL="${1:-10}"
shift || true
LEVELS=("$@")
[ ${#LEVELS[@]} -gt 0 ] || LEVELS=(64 256)
WARMUP="${WARMUP:-5}"
MODES="${MODES:-memory redis}"
REDIS_SERVER="${REDIS_SERVER:-redis-server}"
LOAD_JAR=slidingwindow-benchmarks/target/benchmarks.jar
OUT=slidingwindow-benchmarks/target/server-load.md

fail() {
  echo "scripts/bench-server-guarantee.sh: $*" >&2
  exit 1
}
case "$SECONDS_PER_LEVEL" in '' | *[!0-9]*) fail "seconds must be a whole number, was '$SECONDS_PER_LEVEL'" ;; esac
for level in "${LEVELS[@]}"; do
  case "$level" in '' | *[!0-9]*) fail "concurrency must be a whole number, was '$level'" ;; esac
done
command -v java >/dev/null 2>&1 || fail "java not found"
if [[ " $MODES " == *" redis "* ]]; then
  command -v "$REDIS_SERVER" >/dev/null 2>&1 || fail "$REDIS_SERVER not found (set REDIS_SERVER)"
  command -v redis-cli >/dev/null 2>&1 || fail "redis-cli not found"
fi

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # The service runs on its own module's runtime classpath, written by build-classpath; the
  # load generator runs from the benchmarks' jar.
  # shellcheck disable=SC2086
  ./mvnw -q ${MVN_FLAGS:-} -pl slidingwindow-benchmarks,slidingwindow-server -am package \
    -DskipTests org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
fi
[ -f "$LOAD_JAR" ] || fail "$LOAD_JAR is missing"
SERVER_JAR="$(ls slidingwindow-server/target/slidingwindow-server-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1)"
[ -n "$SERVER_JAR" ] || fail "the slidingwindow-server jar is missing"
[ -f slidingwindow-server/target/classpath.txt ] || fail "slidingwindow-server/target/classpath.txt is missing"
SERVER_CP="$SERVER_JAR:$(cat slidingwindow-server/target/classpath.txt)"

WORK="$(mktemp -d)"
SERVER_PID=""
REDIS_PID=""
REDIS_PORT=""
stop_pid() { # pid, seconds to wait before SIGKILL
  local pid="$1"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 $(($2 * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  stop_pid "$SERVER_PID" 15
  stop_pid "$REDIS_PID" 5
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

listening() { (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
random_port() { echo $((20000 + RANDOM % 40000)); }

start_redis() {
  local candidate
  for _ in $(seq 1 20); do
    candidate="$(random_port)"
    listening "$candidate" && continue
    "$REDIS_SERVER" --port "$candidate" --bind 127.0.0.1 --save '' --appendonly no \
      --dir "$WORK" --logfile "$WORK/redis.log" &
    REDIS_PID=$!
    for _ in $(seq 1 50); do
      kill -0 "$REDIS_PID" 2>/dev/null || break
      if [ "$(redis-cli -h 127.0.0.1 -p "$candidate" ping 2>/dev/null)" = PONG ]; then
        REDIS_PORT="$candidate"
        return 0
      fi
      sleep 0.1
    done
    stop_pid "$REDIS_PID" 2
    REDIS_PID=""
  done
  fail "could not start $REDIS_SERVER on a free port in 20 tries"
}

# Starts the service with the given extra arguments; sets SERVER_PID and GRPC_PORT.
start_server() {
  local grpc http log="$WORK/server.log"
  for _ in $(seq 1 10); do
    grpc="$(random_port)"
    http="$(random_port)"
    { [ "$grpc" = "$http" ] || listening "$grpc" || listening "$http"; } && continue
    # shellcheck disable=SC2086
    java ${SERVER_JAVA_OPTS:-} -cp "$SERVER_CP" io.slidingwindow.server.RateLimitServerMain \
      --config "$WORK/load.yaml" --host 127.0.0.1 --grpc-port "$grpc" --http-port "$http" \
      --admin-port 0 --reload-seconds 0 "$@" >"$log" 2>&1 &
    SERVER_PID=$!
    # A JVM on a busy machine: up to 60 s to say it is listening.
    for _ in $(seq 1 600); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      if grep -q 'Rate limit service: gRPC on' "$log"; then
        GRPC_PORT="$grpc"
        return 0
      fi
      sleep 0.1
    done
    tail -5 "$log" >&2 || true
    stop_pid "$SERVER_PID" 5
    SERVER_PID=""
  done
  fail "could not start the service on free ports in 10 tries"
}

# shellcheck disable=SC2086
java ${LOAD_JAVA_OPTS:-} -cp "$LOAD_JAR" io.slidingwindow.benchmarks.server.ServerLoad \
  --write-config "$WORK/load.yaml" "${FAILURE_POLICY:-closed}"

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
CONCURRENCY="$(IFS=,; echo "${LEVELS[*]}")"
ROWS="$WORK/rows.md"
: >"$ROWS"
STATUS=0
for mode in $MODES; do
  extra=()
  case "$mode" in
    memory) ;;
    redis)
      start_redis
      extra=(--redis "redis://127.0.0.1:$REDIS_PORT")
      ;;
    *) fail "unknown mode $mode (memory or redis)" ;;
  esac
  start_server "${extra[@]}"
  echo "mode $mode: service pid $SERVER_PID on 127.0.0.1:$GRPC_PORT${REDIS_PORT:+, redis on 127.0.0.1:$REDIS_PORT}" >&2
  # Bounded: every level lasts WARMUP + seconds, plus its drain and check.
  limit=$(((WARMUP + SECONDS_PER_LEVEL + 60) * ${#LEVELS[@]} + 30))
  rc=0
  # shellcheck disable=SC2086
  timeout "$limit" java -Xmx1g ${LOAD_JAVA_OPTS:-} -cp "$LOAD_JAR" \
    io.slidingwindow.benchmarks.server.ServerLoad --port "$GRPC_PORT" --mode "$mode" \
    --seconds "$SECONDS_PER_LEVEL" --warmup "$WARMUP" --concurrency "$CONCURRENCY" \
    ${LOAD_OPTS:-} >>"$ROWS" || rc=$?
  if [ "$rc" = 3 ]; then
    STATUS=3
  elif [ "$rc" != 0 ]; then
    tail -20 "$WORK/server.log" >&2 || true
    cp "$WORK/server.log" "slidingwindow-benchmarks/target/server-load-$mode.log" || true
    fail "the load generator failed in mode $mode (exit $rc)"
  fi
  stop_pid "$SERVER_PID" 15
  SERVER_PID=""
  cp "$WORK/server.log" "slidingwindow-benchmarks/target/server-load-$mode.log"
  if [ -n "$REDIS_PID" ]; then
    stop_pid "$REDIS_PID" 5
    REDIS_PID=""
    REDIS_PORT=""
  fi
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

{
  echo "### gRPC load (\`scripts/bench-server-guarantee.sh $SECONDS_PER_LEVEL ${LEVELS[*]}\`)"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "$(java -version 2>&1 | head -1)$([[ " $MODES " == *" redis "* ]] && echo ", $("$REDIS_SERVER" --version | cut -d' ' -f1-3)")."
  echo "Load average (1, 5, 15 min) before: $LOAD_BEFORE; after: $LOAD_AFTER."
  echo "Service and load generator share the machine; $WARMUP s warm-up, then $SECONDS_PER_LEVEL s measured per level;"
  echo "limit 100 per second per value, failure_policy ${FAILURE_POLICY:-closed}."
  echo
  echo "$(java -cp "$LOAD_JAR" io.slidingwindow.benchmarks.server.ServerLoad --header)"
  cat "$ROWS"
} | tee "$OUT"
exit "$STATUS"
