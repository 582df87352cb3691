#!/usr/bin/env bash
# Runs every test of the project: installs what the tests start (redis-server, redis-cli,
# valkey-server, valkey-cli, headless chromium for the dashboard's browser test) from Debian's
# packages when they are missing, then runs the Maven build on the default JDK (17); after it,
# side by side, runs the library (core, Redis clients) again on JDK 25 when one is installed under
# /usr/lib/jvm, builds and runs the service's container image (podman, installed when missing) and
# checks that a release can be published and consumed (scripts/release-check.sh, gnupg installed
# when missing).
# Tests start their own servers on free loopback ports; nothing is started here.
# Extra arguments go to Maven, e.g. scripts/test.sh -Dvalkey.skip=true
set -euo pipefail
cd "$(dirname "$0")/.."

have() { command -v "$1" >/dev/null 2>&1; }

fail() {
  echo "scripts/test.sh: $*" >&2
  exit 1
}

SUDO=""
as_root() {
  if [ "$(id -u)" -ne 0 ]; then
    have sudo || fail "need root (or sudo) to install: $*"
    SUDO="sudo"
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO "$@"
}

# Debian 12 has Valkey only in bookworm-backports; add that suite beside the existing one, on the
# same mirror, when no Valkey package is known.
add_backports() {
  local codename mirror
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || fail "cannot tell the Debian release from /etc/os-release"
  mirror="$(grep -rhE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | grep -oE 'https?://[^ ]+' | grep -E '/debian/?$' | head -1 || true)"
  [ -n "$mirror" ] || mirror="http://deb.debian.org/debian"
  echo "adding ${codename}-backports from ${mirror} to apt's sources"
  as_root sh -c "printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    '$mirror' '$codename' > /etc/apt/sources.list.d/slidingwindow-backports.sources"
}

# A package's service may start on install: stop it, the tests use their own ports.
stop_service() {
  as_root sh -c "service $1 stop >/dev/null 2>&1 || true"
  pkill -x "$1" >/dev/null 2>&1 || true
}

install_servers() {
  have apt-get || fail "redis-server/valkey-server are missing and this is not a Debian-like system; install Redis 7 and Valkey 8 (server and cli) and run again"
  as_root apt-get update -qq
  if ! have redis-server || ! have redis-cli; then
    as_root apt-get install -y -qq redis-server redis-tools >/dev/null
    stop_service redis-server
  fi
  if ! have valkey-server || ! have valkey-cli; then
    if ! apt-cache policy valkey-server 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      add_backports
      as_root apt-get update -qq
    fi
    local suite=()
    if apt-cache policy valkey-server | grep -q backports; then suite=(-t "$(. /etc/os-release && echo "$VERSION_CODENAME")-backports"); fi
    as_root apt-get install -y -qq "${suite[@]}" valkey-server valkey-tools >/dev/null
    stop_service valkey-server
  fi
  if ! have chromium; then
    as_root apt-get install -y -qq chromium >/dev/null
  fi
}

TOOLS=(redis-server redis-cli valkey-server valkey-cli chromium)
for tool in "${TOOLS[@]}"; do
  if ! have "$tool"; then
    install_servers
    break
  fi
done
for tool in "${TOOLS[@]}"; do
  have "$tool" || fail "$tool is still missing after the install"
done
redis-server --version
valkey-server --version
java -version 2>&1 | head -1

# The whole reactor: the Spring modules on Boot 3.5 (the parent's line) and, in
# slidingwindow-spring-boot4-tests, the same starter and gateway on Boot 4 with Lettuce 7.
./mvnw -B -ntp clean verify "$@"

# The library once more on the newest JDK where one is installed: core, testkit, the Redis
# modules and both client adapters, unit tests and the Redis integration suite against Redis
# (Valkey and formatting were checked above). It runs in the background, beside the image and the
# release check below, which use copies of the tree and the server's jar, not these modules'
# build output; its output is shown when it ends.
jdk25=$(ls -d /usr/lib/jvm/*-25-* /usr/lib/jvm/*-25 2>/dev/null | head -1 || true)
JDK25_MODULES=slidingwindow-core,slidingwindow-redis,slidingwindow-redis-lettuce,slidingwindow-redis-jedis,slidingwindow-redis-tests
jdk25_pid=""
jdk25_log=""
if [ -n "$jdk25" ] && ! ls slidingwindow-server/target/slidingwindow-server-*.jar >/dev/null 2>&1; then
  # The image step would build the server (and core) itself: no pass beside it, one after it.
  echo "NOTE: no server jar was packaged, so the JDK 25 pass runs after the image and release steps." >&2
elif [ -n "$jdk25" ]; then
  jdk25_log="$(mktemp "${TMPDIR:-/tmp}/slidingwindow-jdk25.XXXXXX")"
  echo "The library on $("$jdk25/bin/java" -version 2>&1 | head -1), in the background (log: $jdk25_log)"
  # A process group of its own (job control on for this one job), so that it can be stopped whole:
  # Maven, its test JVMs and the servers they started.
  set -m
  JAVA_HOME="$jdk25" ./mvnw -B -ntp -pl "$JDK25_MODULES" -am \
    clean verify -Dvalkey.skip=true -Dspotless.check.skip=true "$@" </dev/null >"$jdk25_log" 2>&1 &
  jdk25_pid=$!
  set +m
  # A failure of a step below ends the script: take the background pass down with it.
  trap '[ -n "$jdk25_pid" ] && kill -- -"$jdk25_pid" 2>/dev/null && echo "the JDK 25 pass was stopped; its log: $jdk25_log" >&2; true' EXIT
else
  echo "NOTE: no JDK 25 under /usr/lib/jvm, so the library's Java 25 pass did not run." >&2
fi

# The service's container image, built from the jar just packaged, run on loopback ports and asked
# for its health and a decision (slidingwindow-server/container/smoke-test.sh). Podman (with runc)
# and curl are installed when missing; the step is skipped, saying so, only where no container
# engine can run at all.
container_image() {
  if ! have podman && ! have docker && have apt-get; then
    as_root apt-get install -y -qq podman runc >/dev/null || true
  fi
  if ! have curl && have apt-get; then
    as_root apt-get install -y -qq curl >/dev/null || true
  fi
  if have podman; then
    # No default ulimits (some hosts refuse to raise them for a container) and runc where the
    # default runtime is missing.
    local conf
    conf="$(mktemp -d)/containers.conf"
    printf '[containers]\ndefault_ulimits = []\n' >"$conf"
    export CONTAINERS_CONF="$conf"
    if have runc; then export PODMAN_RUNTIME="$(command -v runc)"; fi
    if ! podman info >/dev/null 2>&1; then
      echo "NOTE: podman is installed but cannot run containers here (podman info failed);" \
        "the container image step did not run." >&2
      return 0
    fi
  elif have docker; then
    if ! docker info >/dev/null 2>&1; then
      echo "NOTE: docker cannot reach its daemon here; the container image step did not run." >&2
      return 0
    fi
  else
    echo "NOTE: neither podman nor docker is installed or installable; the container image step" \
      "did not run." >&2
    return 0
  fi
  have curl || fail "curl is missing after the install"
  local skip=0
  if ls slidingwindow-server/target/slidingwindow-server-*.jar >/dev/null 2>&1; then skip=1; fi
  SKIP_BUILD="$skip" slidingwindow-server/container/smoke-test.sh ci
}
container_image

# Ready to publish: a copy of the tree at the release version deploys, signed by a throwaway key,
# to a staging folder that holds every published module complete; two builds give the same jars;
# and a consumer project builds against the staging folder alone (scripts/release-check.sh).
if ! have gpg && have apt-get; then
  as_root apt-get install -y -qq gnupg >/dev/null
fi
scripts/release-check.sh

if [ -n "$jdk25_pid" ]; then
  status=0
  wait "$jdk25_pid" || status=$?
  jdk25_pid=""
  echo "== The library on JDK 25 (from $jdk25_log)"
  cat "$jdk25_log"
  [ "$status" -eq 0 ] || fail "the library's Java 25 pass failed (exit $status)"
  rm -f "$jdk25_log"
elif [ -n "$jdk25" ] && [ -z "$jdk25_log" ]; then
  echo "The library on $("$jdk25/bin/java" -version 2>&1 | head -1)"
  JAVA_HOME="$jdk25" ./mvnw -B -ntp -pl "$JDK25_MODULES" -am \
    clean verify -Dvalkey.skip=true -Dspotless.check.skip=true "$@"
fi
