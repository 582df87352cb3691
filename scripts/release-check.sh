#!/usr/bin/env bash
# Checks a release up to the one step that needs the maintainers' own key (see docs/release.md):
#   1. copies the working tree aside and sets its version (0.1.0 unless VERSION says otherwise);
#   2. makes a throwaway GPG key and deploys with the release profile to a staging folder;
#   3. checks the folder: for every published module its jar, sources and javadoc jars and a pom
#      with the metadata Maven Central asks for, each signed, plus the parent and the BOM, and
#      nothing of the examples, benchmarks or test-only modules;
#   4. builds the copy again and compares every jar byte for byte with the first build's;
#   5. builds a consumer project that imports the BOM and uses the starter and core without
#      versions, with this project's artifacts taken from the staging folder alone.
# Nothing is installed into the local Maven repository; the consumer's copies of the staged
# artifacts are removed from it at the end. Needs Java, gpg and network access to Maven Central.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VERSION="${VERSION:-0.1.0}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/slidingwindow-release.XXXXXX")"
M2="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
STAGED_IN_M2="$M2/io/slidingwindow"

fail() {
  echo "release-check: $*" >&2
  exit 1
}

forget_staged() {
  # Only this version of our own artifacts, which only the consumer build puts there.
  if [ -d "$STAGED_IN_M2" ]; then
    find "$STAGED_IN_M2" -mindepth 2 -maxdepth 2 -type d -name "$VERSION" -exec rm -rf {} +
  fi
}

cleanup() {
  forget_staged
  if [ -n "${GNUPGHOME:-}" ] && [ -d "$GNUPGHOME" ]; then
    gpgconf --kill gpg-agent >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

command -v gpg >/dev/null 2>&1 || fail "gpg is missing (Debian: apt-get install gnupg)"

# What is published: every module of the reactor that does not set maven.deploy.skip, and the
# parent. Read from the poms, so that a new module is checked without editing this script.
mapfile -t MODULES < <(sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml)
PUBLISHED=(slidingwindow-parent)
UNPUBLISHED=()
for m in "${MODULES[@]}"; do
  if grep -q '<maven.deploy.skip>true</maven.deploy.skip>' "$m/pom.xml"; then
    UNPUBLISHED+=("$m")
  else
    PUBLISHED+=("$m")
  fi
done

echo "== copying the tree to $WORK/a and setting version $VERSION"
mkdir -p "$WORK/a"
git ls-files -z --cached --others --exclude-standard \
  | tar --null -T - -cf - | tar -xf - -C "$WORK/a"
cd "$WORK/a"
./mvnw -B -q -ntp versions:set -DnewVersion="$VERSION" -DprocessAllModules=true \
  -DgenerateBackupPoms=false
cp -a "$WORK/a" "$WORK/b"

echo "== a throwaway signing key"
export GNUPGHOME="$WORK/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-generate-key \
  'slidingwindow release check <release-check@localhost>' ed25519 sign 1d
KEY="$(gpg --batch --list-secret-keys --with-colons | awk -F: '/^fpr/ {print $10; exit}')"

echo "== deploying to the staging folder"
STAGING="$WORK/staging"
./mvnw -B -q -ntp -Prelease -DskipTests -Dmaven.install.skip=true -Dspotless.check.skip=true \
  -Dgpg.keyname="$KEY" deploy -DaltDeploymentRepository="staging::file:$STAGING"

echo "== checking the staging folder"
problems=0
problem() {
  echo "  missing or wrong: $*" >&2
  problems=$((problems + 1))
}
for m in "${PUBLISHED[@]}"; do
  dir="$STAGING/io/slidingwindow/$m/$VERSION"
  pom="$dir/$m-$VERSION.pom"
  [ -f "$pom" ] || { problem "$m: its pom"; continue; }
  for tag in name description; do
    grep -q "<$tag>" "$pom" || problem "$m: <$tag>"
  done
  # The rest may come from the staged parent, as Maven Central reads the effective pom.
  parent="$STAGING/io/slidingwindow/slidingwindow-parent/$VERSION/slidingwindow-parent-$VERSION.pom"
  for tag in url licenses scm developers; do
    grep -q "<$tag>" "$pom" \
      || { grep -q '<artifactId>slidingwindow-parent</artifactId>' "$pom" && grep -q "<$tag>" "$parent"; } \
      || problem "$m: <$tag>"
  done
  files=("$pom")
  if ! grep -q '<packaging>pom</packaging>' "$pom"; then
    files+=("$dir/$m-$VERSION.jar" "$dir/$m-$VERSION-sources.jar" "$dir/$m-$VERSION-javadoc.jar")
  fi
  for f in "${files[@]}"; do
    [ -f "$f" ] || { problem "$(basename "$f")"; continue; }
    [ -f "$f.asc" ] || { problem "$(basename "$f").asc"; continue; }
    gpg --batch --quiet --verify "$f.asc" "$f" 2>/dev/null || problem "$(basename "$f").asc verifies"
  done
done
for m in "${UNPUBLISHED[@]}"; do
  [ ! -e "$STAGING/io/slidingwindow/$m" ] || problem "$m is staged, but is not to be published"
done
[ "$problems" -eq 0 ] || fail "$problems problems in the staging folder"
echo "  ${#PUBLISHED[@]} published modules staged and signed; ${#UNPUBLISHED[@]} left out"

echo "== building again and comparing the jars"
cd "$WORK/b"
./mvnw -B -q -ntp -Prelease -DskipTests -Dgpg.skip=true -Dspotless.check.skip=true package
compared=0
for m in "${PUBLISHED[@]}"; do
  [ "$m" != slidingwindow-parent ] || continue
  for kind in "" -sources -javadoc; do
    first="$WORK/a/$m/target/$m-$VERSION$kind.jar"
    [ -f "$first" ] || continue
    cmp -s "$first" "$WORK/b/$m/target/$m-$VERSION$kind.jar" \
      || fail "$m-$VERSION$kind.jar differs between two builds of the same tree"
    compared=$((compared + 1))
  done
done
echo "  $compared jars identical"

echo "== a consumer of the staged release"
forget_staged
CONSUMER="$WORK/consumer"
cp -a "$ROOT/scripts/release-consumer" "$CONSUMER"
cp -a "$ROOT/.mvn" "$CONSUMER/.mvn"
cat >"$WORK/settings.xml" <<EOF
<settings>
  <profiles>
    <profile>
      <id>staging</id>
      <repositories>
        <repository>
          <id>staging</id>
          <url>file://$STAGING</url>
        </repository>
      </repositories>
    </profile>
  </profiles>
  <activeProfiles>
    <activeProfile>staging</activeProfile>
  </activeProfiles>
</settings>
EOF
(cd "$CONSUMER" && "$WORK/a/mvnw" -B -q -ntp -s "$WORK/settings.xml" \
  -Dslidingwindow.version="$VERSION" verify)
for f in "$STAGED_IN_M2"/*/"$VERSION"/_remote.repositories; do
  grep -q '>staging=' "$f" || fail "$(dirname "$f") did not come from the staging folder"
done
echo "release-check: ready to publish $VERSION"
