#!/usr/bin/env bash
# Build and publish an optr release. Needs bash, go, git, GNU tar, gzip,
# sha256sum; publishing needs gh (preinstalled on GitHub-hosted runners).
#
#   scripts/release.sh [--dry-run] [--out DIR] [--targets "os/arch ..."] [STEP] VERSION
#
# VERSION is the tag, vMAJOR.MINOR.PATCH[-PRERELEASE]. STEP is one of:
#   build    binaries (-trimpath, the version in ldflags, CGO off) for every
#            target, one optr_<version>_<os>_<arch>.tar.gz each (on linux
#            with optr-sandbox-launcher beside optr), SHA256SUMS,
#            a CycloneDX SBOM and the release notes (CHANGELOG.md's section)
#   tags     print the image references the release pushes, one a line
#   publish  pin action.yml to the published image and host/action.yml to
#            the release, commit that on top of the tag, move the tag and
#            vMAJOR to the commit, push them, and create the GitHub release
#            with DIR's assets
#   all      build, then publish (the default)
# --dry-run changes nothing outside DIR: publish writes the pinned files to
# DIR/pinned/ and prints the git and gh commands instead of running them.
# Nothing here needs make; the release workflow calls the steps one by one.
set -euo pipefail

IMAGE="${OPTR_IMAGE:-ghcr.io/optr-dev/optr}"
SBOM_TOOL="github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0"
ALL_TARGETS="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

die() { echo "release: $*" >&2; exit 2; }
log() { echo "release: $*" >&2; }

dry_run=false
out=dist
targets="$ALL_TARGETS"
step=all
version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=true ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --targets) [ $# -ge 2 ] || die "--targets needs a list such as \"linux/amd64 darwin/arm64\""; targets="$2"; shift ;;
    --targets=*) targets="${1#--targets=}" ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    build|tags|publish|all) step="$1" ;;
    -*) die "unknown flag $1 (see --help)" ;;
    *) [ -z "$version" ] || die "one VERSION only, got \"$version\" and \"$1\""; version="$1" ;;
  esac
  shift
done

[ -n "$version" ] || die "VERSION is missing: give the tag, e.g. v1.2.3"
[[ "$version" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] ||
  die "VERSION \"$version\" is not a release tag vMAJOR.MINOR.PATCH[-PRERELEASE]"
major="${BASH_REMATCH[1]}"
semver="${version#v}"
prerelease=false
[ -z "${BASH_REMATCH[4]}" ] || prerelease=true

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# image_tags prints the references the image is pushed under: the exact
# version always, vMAJOR only for a final release.
image_tags() {
  echo "$IMAGE:$semver"
  if ! $prerelease; then echo "$IMAGE:v$major"; fi
}

# notes writes CHANGELOG.md's section for the version ("## [1.2.3] ..." up
# to the next "## "); a release without one is refused.
notes() {
  awk -v v="$semver" '
    /^## / { if (found) exit; if (index($0, "## [" v "]") == 1) { found = 1; next } }
    found { print }
    END { if (!found) exit 1 }
  ' CHANGELOG.md >"$out/release-notes.md" ||
    die "CHANGELOG.md has no \"## [$semver]\" section: add one (move the Unreleased items under it) before tagging"
  [ -n "$(tr -d '[:space:]' <"$out/release-notes.md")" ] || die "CHANGELOG.md's [$semver] section is empty"
}

build() {
  tar --version 2>/dev/null | grep -q 'GNU tar' || die "GNU tar is needed for reproducible archives (on macOS: brew install gnu-tar, put gtar first on PATH as tar)"
  notes
  local epoch
  epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
  rm -f "$out"/optr_*.tar.gz "$out/SHA256SUMS"
  local t os arch exe stage
  for t in $targets; do
    os="${t%/*}"; arch="${t#*/}"
    case "$os/$arch" in
      linux/amd64|linux/arm64|darwin/amd64|darwin/arm64|windows/amd64|windows/arm64) ;;
      *) die "unknown target \"$t\": use os/arch from: $ALL_TARGETS" ;;
    esac
    exe=optr; [ "$os" = windows ] && exe=optr.exe
    # On Linux optr confines agents through optr-sandbox-launcher, a small
    # program it starts from beside itself (docs/security-model.md): built
    # in the same go build, so the two are one build and agree.
    files=("$exe"); pkgs=(./cmd/optr)
    if [ "$os" = linux ]; then files+=(optr-sandbox-launcher); pkgs+=(./cmd/optr-sandbox-launcher); fi
    stage="$out/stage/$os-$arch"
    rm -rf "$stage"; mkdir -p "$stage"
    log "build $os/$arch"
    CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
      -ldflags "-s -w -X github.com/optr-dev/optr/internal/version.Version=$version" \
      -o "$stage/" "${pkgs[@]}"
    cp LICENSE NOTICE "$stage/"
    tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
      --mode='u+rwX,go+rX,go-w' -C "$stage" -cf - "${files[@]}" LICENSE NOTICE |
      gzip -n -9 >"$out/optr_${semver}_${os}_${arch}.tar.gz"
  done
  rm -rf "$out/stage"
  (cd "$out" && sha256sum optr_*.tar.gz >SHA256SUMS)
  log "sbom"
  CGO_ENABLED=0 go run "$SBOM_TOOL" app -json -std -main cmd/optr -output "$out/optr_${semver}.cdx.json" . >/dev/null
  log "built $(cd "$out" && ls optr_*.tar.gz | wc -l | tr -d ' ') archives, SHA256SUMS, optr_${semver}.cdx.json and release-notes.md in $out"
}

# pin rewrites action.yml to pull the published image and host/action.yml to
# install this release, into the directory given (the work tree, or a copy).
pin() {
  local dest="$1"
  mkdir -p "$dest/host"
  sed -E "s#^(  image: ).*#\1docker://$IMAGE:$semver#" action.yml >"$dest/action.yml.tmp"
  sed -E "s#^(        OPTR_VERSION: ).*#\1$version#" host/action.yml >"$dest/host/action.yml.tmp"
  grep -qx "  image: docker://$IMAGE:$semver" "$dest/action.yml.tmp" || die "action.yml has no runs.image line to pin"
  grep -qx "        OPTR_VERSION: $version" "$dest/host/action.yml.tmp" || die "host/action.yml has no OPTR_VERSION line to pin"
  mv "$dest/action.yml.tmp" "$dest/action.yml"
  mv "$dest/host/action.yml.tmp" "$dest/host/action.yml"
}

# run runs a command, or in a dry run prints it.
run() {
  if $dry_run; then printf 'would run:'; printf ' %q' "$@"; printf '\n'; else "$@"; fi
}

publish() {
  [ -f "$out/SHA256SUMS" ] && [ -f "$out/release-notes.md" ] || die "$out holds no build: run the build step first"
  local assets=("$out"/optr_*.tar.gz "$out/SHA256SUMS" "$out/optr_${semver}.cdx.json")
  if $dry_run; then
    pin "$out/pinned"
    log "pinned action files in $out/pinned"
  else
    [ -z "$(git status --porcelain --untracked-files=no)" ] || die "the work tree has changes: publish from a clean checkout of $version"
    [ "$(git rev-parse HEAD)" = "$(git rev-parse "$version^{commit}")" ] || die "HEAD is not $version: check out the tag first"
    pin .
    if [ "${GITHUB_ACTIONS:-}" = true ]; then
      git config user.name "github-actions[bot]"
      git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
      # The checkout kept no credential (persist-credentials: false): git
      # asks gh, which hands it GH_TOKEN when it pushes the tags.
      gh auth setup-git
    fi
  fi
  run git add action.yml host/action.yml
  run git commit -m "release $version: action.yml pulls $IMAGE:$semver, host mode installs $version"
  run git tag -f -a "$version" -m "optr $version"
  local push=("refs/tags/$version")
  if ! $prerelease; then
    run git tag -f -a "v$major" -m "optr $version"
    push+=("refs/tags/v$major")
  fi
  run git push --force origin "${push[@]}"
  local flags=(--title "optr $version" --notes-file "$out/release-notes.md" --verify-tag)
  if $prerelease; then flags+=(--prerelease); fi
  run gh release create "$version" "${flags[@]}" "${assets[@]}"
}

case "$step" in
  build) build ;;
  tags) image_tags ;;
  publish) publish ;;
  all) build; publish ;;
esac
