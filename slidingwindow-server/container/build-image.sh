#!/usr/bin/env bash
# Builds the container image slidingwindow-server:TAG (default: local) with podman, or docker when
# podman is missing (ENGINE=docker|podman chooses). The jar and its libraries come from
# slidingwindow-server/target, built first unless SKIP_BUILD=1.
#
# The base is BASE (default eclipse-temurin:21-jre, as docker.io/library/eclipse-temurin:21-jre). When it cannot be pulled (no image registry
# is reachable) the script makes a base of its own, slidingwindow-jre:local: a Java runtime cut
# from the local JDK with jlink, the host's shared libraries it links to, and a passwd entry for
# the image's user, imported as an image. LOCAL_BASE=1 makes that base without trying to pull.
#
# Usage: slidingwindow-server/container/build-image.sh [TAG]
# Environment: ENGINE, BASE, LOCAL_BASE=1, NEW_LOCAL_BASE=1 (make the local base again, not reuse
# it), SKIP_BUILD=1, MVN_FLAGS (e.g. -o), JAVA_HOME (the JDK
# that jlink comes from; it needs its jmods), PODMAN_RUNTIME (passed as --runtime to podman).
set -euo pipefail
cd "$(dirname "$0")/../.."

TAG="${1:-local}"
IMAGE="slidingwindow-server:$TAG"
BASE="${BASE:-docker.io/library/eclipse-temurin:21-jre}"

fail() {
  echo "build-image.sh: $*" >&2
  exit 1
}

if [ -n "${ENGINE:-}" ]; then
  command -v "$ENGINE" >/dev/null 2>&1 || fail "ENGINE=$ENGINE is not installed"
elif command -v podman >/dev/null 2>&1; then
  ENGINE=podman
elif command -v docker >/dev/null 2>&1; then
  ENGINE=docker
else
  fail "neither podman nor docker is installed"
fi
ENGINE_ARGS=()
if [ "$ENGINE" = podman ] && [ -n "${PODMAN_RUNTIME:-}" ]; then
  ENGINE_ARGS=(--runtime "$PODMAN_RUNTIME")
fi
engine() { "$ENGINE" "${ENGINE_ARGS[@]}" "$@"; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  ./mvnw -q ${MVN_FLAGS:-} -pl slidingwindow-server -am package -DskipTests
fi
JAR="$(ls slidingwindow-server/target/slidingwindow-server-*.jar 2>/dev/null \
  | grep -v -e sources -e javadoc -e tests | head -1 || true)"
[ -n "$JAR" ] || fail "no slidingwindow-server jar in slidingwindow-server/target"
[ -d slidingwindow-server/target/lib ] || fail "slidingwindow-server/target/lib is missing"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# A base image from the local JDK: jlink's runtime, the host's libraries it needs, a user.
local_base() {
  local java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  [ -d "$java_home/jmods" ] || fail "$java_home has no jmods for jlink; set JAVA_HOME to a JDK with them"
  local root="$WORK/rootfs"
  mkdir -p "$root/opt/java" "$root/etc" "$root/tmp"
  chmod 1777 "$root/tmp"
  "$java_home/bin/jlink" --output "$root/opt/java/openjdk" --strip-debug --no-header-files \
    --no-man-pages --compress=2 \
    --add-modules java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported
  # Every shared library the runtime's binaries link to, with the dynamic loader, from the host.
  find "$root/opt/java/openjdk" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 \
    | xargs -0 ldd 2>/dev/null \
    | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' \
    | grep -v "^$root" | sort -u \
    | while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
      done
  for lib in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
    if [ -e "$lib" ]; then
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    fi
  done
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  # Some JDK packages keep their CA certificates outside the JDK, linked in: copy them in.
  local cacerts="$root/opt/java/openjdk/lib/security/cacerts"
  if [ -L "$cacerts" ] || [ ! -e "$cacerts" ]; then
    rm -f "$cacerts"
    cp -L "$java_home/lib/security/cacerts" "$cacerts" 2>/dev/null || true
  fi
  tar -C "$root" -c . | engine import \
    --change 'ENV PATH=/opt/java/openjdk/bin:/usr/bin:/bin' \
    --change 'ENV JAVA_HOME=/opt/java/openjdk' - slidingwindow-jre:local \
    >/dev/null 2>"$WORK/import.log" || { cat "$WORK/import.log" >&2; fail "the import of the local base failed"; }
}

if [ "${LOCAL_BASE:-0}" = 1 ] \
  || { ! engine image inspect "$BASE" >/dev/null 2>&1 && ! engine pull -q "$BASE" >/dev/null 2>&1; }; then
  if [ "${NEW_LOCAL_BASE:-0}" != 1 ] && engine image inspect slidingwindow-jre:local >/dev/null 2>&1; then
    echo "build-image.sh: using the base slidingwindow-jre:local made before (NEW_LOCAL_BASE=1 remakes it)" >&2
  else
    echo "build-image.sh: making a base from the local JDK (the base $BASE cannot be pulled)" >&2
    local_base >/dev/null
  fi
  BASE=slidingwindow-jre:local
fi

CONTEXT="$WORK/context"
mkdir -p "$CONTEXT"
cp slidingwindow-server/container/Containerfile "$CONTEXT/"
cp "$JAR" "$CONTEXT/slidingwindow-server.jar"
cp -r slidingwindow-server/target/lib "$CONTEXT/lib"
engine build -q -f "$CONTEXT/Containerfile" --build-arg "BASE=$BASE" -t "$IMAGE" "$CONTEXT" >/dev/null
echo "$IMAGE (base $BASE)"
