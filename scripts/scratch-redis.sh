# Sourced by the benchmark scripts: starts a scratch redis-server (or valkey-server) on a free
# loopback port, without persistence, and stops it when the sourcing script exits.
# Needs: REDIS_SERVER (the binary), WORK (a scratch directory, removed on exit), fail().
# Sets: PORT, SERVER_PID.

SERVER_PID=""
scratch_redis_cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap scratch_redis_cleanup EXIT INT TERM

# A free port: try random ports until a server binds one and answers PING (bounded tries).
PORT=""
for _ in $(seq 1 20); do
  candidate=$((20000 + RANDOM % 40000))
  "$REDIS_SERVER" --port "$candidate" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$WORK" --logfile "$WORK/server.log" &
  SERVER_PID=$!
  for _ in $(seq 1 50); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    if [ "$(redis-cli -h 127.0.0.1 -p "$candidate" ping 2>/dev/null)" = PONG ]; then
      PORT="$candidate"
      break
    fi
    sleep 0.1
  done
  [ -n "$PORT" ] && break
  tail -3 "$WORK/server.log" >&2 2>/dev/null || true
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
done
[ -n "$PORT" ] || fail "could not start $REDIS_SERVER on a free port in 20 tries"
echo "$("$REDIS_SERVER" --version) on 127.0.0.1:$PORT (pid $SERVER_PID)" >&2
