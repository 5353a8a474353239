#!/usr/bin/env bash
# Install the released optr binary for this runner and run `optr action`.
#
# Host mode (host/action.yml) runs optr on the runner itself, so command
# agents and checks find the toolchain the job set up (setup-go, setup-node,
# agent CLIs) and files are written as the runner's user, not root.
#
# The binary (on Linux with optr-sandbox-launcher, the program optr confines
# agents through, beside it) comes from the GitHub release OPTR_VERSION (pinned into
# host/action.yml by scripts/release.sh), is checked against the release's
# SHA256SUMS, and is kept in the runner's tool cache
# ($RUNNER_TOOL_CACHE/optr/<version>/<arch>/, the @actions/tool-cache layout),
# so a self-hosted runner downloads each version once.
#
# Environment: OPTR_VERSION (a release tag, vX.Y.Z), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TOOL_CACHE, RUNNER_TEMP; OPTR_RELEASE_URL (default
# https://github.com/optr-dev/optr/releases/download) moves the downloads,
# e.g. to a mirror. OPTR_BINARY (job or step env:) runs an optr binary
# built locally instead (act, a self-hosted runner, an unreleased commit):
# nothing is downloaded or cached. OPTR_VERSION is the step's own, pinned
# by the release, so a workflow cannot set it; OPTR_BINARY is not, so it
# can. Everything else (INPUT_*, GITHUB_*) passes through to optr.
set -euo pipefail

fail() {
  echo "::error title=optr host install::$*" >&2
  exit 1
}

topath() { # a Windows path from the runner as one bash can use
  if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi
}

if [ -n "${OPTR_BINARY:-}" ]; then
  bin="$(topath "$OPTR_BINARY")"
  [ -f "$bin" ] && [ -x "$bin" ] ||
    fail "OPTR_BINARY is \"$OPTR_BINARY\", which is not an executable file: build one (go build -o optr ./cmd/optr) and give its path, or unset OPTR_BINARY to install a release"
  echo "optr from OPTR_BINARY ($bin), not a release"
  exec "$bin" action
fi

version="${OPTR_VERSION:-}"
case "$version" in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  "") fail "this host/action.yml names no optr release: use a released ref such as optr-dev/optr/host@v1 (releases pin the version), or set OPTR_BINARY (job or step env:) to an optr binary you built, e.g. go build -o optr ./cmd/optr" ;;
  *) fail "OPTR_VERSION is \"$version\", which is not a release tag such as v1.2.3" ;;
esac
case "$version" in
  *[!A-Za-z0-9.+-]*) fail "OPTR_VERSION \"$version\" holds characters a release tag never has" ;;
esac

case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) fail "unsupported RUNNER_OS \"${RUNNER_OS:-}\": optr releases cover Linux, macOS and Windows" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) fail "unsupported RUNNER_ARCH \"${RUNNER_ARCH:-}\": optr releases cover X64 and ARM64" ;;
esac
exe=optr
[ "$os" = windows ] && exe=optr.exe

[ -n "${RUNNER_TOOL_CACHE:-}" ] || fail "RUNNER_TOOL_CACHE is not set: run this from host/action.yml on a GitHub Actions runner"
cache_root="$(topath "$RUNNER_TOOL_CACHE")/optr/${version#v}"
cache_dir="$cache_root/$arch"
bin="$cache_dir/$exe"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

if [ -f "$cache_root/$arch.complete" ] && [ -x "$bin" ]; then
  echo "optr $version from the tool cache ($bin)"
else
  base="${OPTR_RELEASE_URL:-https://github.com/optr-dev/optr/releases/download}"
  asset="optr_${version#v}_${os}_${arch}.tar.gz"
  work="$(mktemp -d "$(topath "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")/optr-install.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  fetch() {
    curl -fsSL --retry 3 --retry-connrefused --connect-timeout 20 -o "$2" "$1" ||
      fail "download $1 failed: is $version a published optr release with assets for $os/$arch?"
  }
  fetch "$base/$version/SHA256SUMS" "$work/SHA256SUMS"
  fetch "$base/$version/$asset" "$work/$asset"
  want="$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1 }' "$work/SHA256SUMS")"
  [ -n "$want" ] || fail "SHA256SUMS of $version lists no $asset"
  got="$(sha256 "$work/$asset")"
  [ "$got" = "$want" ] || fail "checksum mismatch for $asset: SHA256SUMS says $want, the download is $got; nothing was installed"
  # On Linux optr confines agents through optr-sandbox-launcher, which it
  # starts from beside itself: the archive holds both.
  files=("$exe")
  [ "$os" = linux ] && files+=(optr-sandbox-launcher)
  mkdir -p "$work/x"
  tar -xzf "$work/$asset" -C "$work/x" "${files[@]}" || fail "$asset holds no ${files[*]}"
  (cd "$work/x" && chmod 0755 "${files[@]}")
  # Move into place, then mark complete: a half-written cache is never used.
  mkdir -p "$cache_root"
  rm -rf "$cache_dir"
  mv "$work/x" "$cache_dir"
  : >"$cache_root/$arch.complete"
  echo "optr $version installed to $bin (sha256 $got)"
fi

# exec replaces this shell, so its EXIT trap would never clean up.
if [ -n "${work:-}" ]; then rm -rf "$work"; trap - EXIT; fi
exec "$bin" action
