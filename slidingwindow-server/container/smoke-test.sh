#!/usr/bin/env bash
# Builds the image (build-image.sh), runs it on free loopback ports and asks it for its health and
# a decision over HTTP, then removes the container. Bounded: at most 60 s for the service to
# answer. Environment: as build-image.sh (ENGINE, PODMAN_RUNTIME, SKIP_BUILD, ...).
# Usage: slidingwindow-server/container/smoke-test.sh [TAG]
set -euo pipefail
cd "$(dirname "$0")/../.."

TAG="${1:-smoke}"
built="$(slidingwindow-server/container/build-image.sh "$TAG")"
echo "built $built"
IMAGE="slidingwindow-server:$TAG"
ENGINE="${ENGINE:-$(command -v podman >/dev/null 2>&1 && echo podman || echo docker)}"
ENGINE_ARGS=()
if [ "$ENGINE" = podman ] && [ -n "${PODMAN_RUNTIME:-}" ]; then
  ENGINE_ARGS=(--runtime "$PODMAN_RUNTIME")
fi
engine() { "$ENGINE" "${ENGINE_ARGS[@]}" "$@"; }

command -v curl >/dev/null 2>&1 || { echo "smoke-test.sh: curl is missing" >&2; exit 1; }
NAME="slidingwindow-smoke-$$"
# Host ports chosen by the engine, on loopback only.
engine run -d --name "$NAME" --read-only --tmpfs /tmp -p 127.0.0.1::8080 -p 127.0.0.1::8081 \
  "$IMAGE" >/dev/null
cleanup() {
  engine rm -f "$NAME" >/dev/null 2>&1 || true
  engine rmi "$IMAGE" >/dev/null 2>&1 || true
}
trap cleanup EXIT
HTTP="$(engine port "$NAME" 8080 | head -1 | sed 's/.*://')"

for _ in $(seq 1 120); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP/healthcheck" || true)" = 200 ]; then
    break
  fi
  sleep 0.5
done
health="$(curl -s "http://127.0.0.1:$HTTP/healthcheck" || true)"
if [ "$health" != OK ]; then
  engine logs "$NAME" >&2 || true
  echo "smoke-test.sh: the container did not answer /healthcheck with OK within 60 s" >&2
  exit 1
fi
decision="$(curl -s -w ' %{http_code}' -X POST "http://127.0.0.1:$HTTP/v1/decide" \
  -H 'Content-Type: application/json' -d '{"domain": "demo", "descriptors": [{"entries": [{"key": "api", "value": "v1"}, {"key": "user", "value": "smoke"}]}]}')"
case "$decision" in
  *'"overall":"OK"'*' 200') ;;
  *) engine logs "$NAME" >&2 || true; echo "smoke-test.sh: unexpected decision: $decision" >&2; exit 1 ;;
esac
user="$(engine inspect --format '{{.Config.User}}' "$IMAGE")"
[ "$user" = 65532:65532 ] || { echo "smoke-test.sh: the image runs as '$user', not 65532" >&2; exit 1; }
echo "image $IMAGE: /healthcheck OK, decision 200 on a read-only root, user $user"
