# syntax=docker/dockerfile:1
#
# optr's action image: the static optr binary, CA certificates, git and the
# GitHub Copilot CLI on Debian slim. Docker actions run as root and the runner
# sets the working directory, so the final stage sets neither USER nor WORKDIR.
#
# Size (linux/amd64, expected; see docs/actions.md "The image"): about 420 MB unpacked,
# about 205 MB to pull. The Copilot CLI is a single 197 MB executable (129 MB
# compressed) linked against glibc and libstdc++, so the base must be a glibc
# distribution; Debian slim is the smallest maintained one with git packaged
# (slim ~80 MB, git with its perl and curl dependencies ~110 MB), and optr
# itself is ~35 MB (~9 MB compressed), its sandbox launcher ~2 MB.
#
# Base images are pinned by the digest of their multi-platform index, taken
# from docker-library/repo-info (repos/golang/remote/1.26.8-trixie.md,
# repos/debian/remote/trixie-20260918-slim.md). Dependabot's docker ecosystem
# (.github/dependabot.yml) proposes fresher digests; to refresh by hand:
#   docker buildx imagetools inspect golang:1.26.8-trixie
# and keep the Go version equal to go.mod's go line (the golang image sets
# GOTOOLCHAIN=local, so an older toolchain refuses to build).

# The toolchain runs on the build machine and cross-compiles, so a multi-arch
# build never emulates the Go compiler.
FROM --platform=$BUILDPLATFORM golang:1.26.8-trixie@sha256:771f3162219f7a66bb6be3fea1ba31f418932946a99ad9eac26ffd555dfcf393 AS toolchain

FROM toolchain AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
# optr and its sandbox launcher (the small program optr starts from beside
# itself to confine each agent) in one go build: the same flags, one build,
# so the launcher accepts this optr's launches.
RUN CGO_ENABLED=0 GOOS="$TARGETOS" GOARCH="$TARGETARCH" go build -trimpath \
      -ldflags "-s -w -X github.com/optr-dev/optr/internal/version.Version=${VERSION}" \
      -o /out/ ./cmd/optr ./cmd/optr-sandbox-launcher

# The Copilot CLI's native binary for the target, from npm without node: the
# tarball is fetched by exact version and checked against its SHA-256 (each
# one verified against the registry's published sha512 integrity). To update:
# npm pack @github/copilot-linux-{x64,arm64}@VERSION, sha256sum both.
FROM toolchain AS copilot
ARG TARGETARCH
ARG COPILOT_VERSION=1.0.102
ARG COPILOT_SHA256_X64=450d256c69526c1c30286d21df0f6e1a05412beb37fe4a5b5054905f5f8fbd3d
ARG COPILOT_SHA256_ARM64=a63f8c0a6f3d26a753e08e8c64bb46fc04c37b1b00f9c4cdad559fb7d37ddf96
RUN set -eu; \
    case "$TARGETARCH" in \
      amd64) arch=x64;   sum="$COPILOT_SHA256_X64" ;; \
      arm64) arch=arm64; sum="$COPILOT_SHA256_ARM64" ;; \
      *) echo "no Copilot CLI for $TARGETARCH: build for linux/amd64 or linux/arm64" >&2; exit 1 ;; \
    esac; \
    curl -fsSL --retry 3 -o /tmp/copilot.tgz \
      "https://registry.npmjs.org/@github/copilot-linux-${arch}/-/copilot-linux-${arch}-${COPILOT_VERSION}.tgz"; \
    echo "${sum}  /tmp/copilot.tgz" | sha256sum -c -; \
    mkdir -p /out; \
    tar -xzf /tmp/copilot.tgz -C /out --strip-components=1 package/copilot package/LICENSE.md; \
    chmod 0755 /out/copilot

FROM debian:trixie-20260918-slim@sha256:a99cfc517144bc59b1978475ec53b46ecabec7e43635402ee5b77cc54cd1b20a
ARG VERSION=""
ARG REVISION=""
LABEL org.opencontainers.image.title="optr" \
      org.opencontainers.image.description="Run several AI agents on one intent, check every output, select the best admissible result and record it in a hash-chained ledger." \
      org.opencontainers.image.source="https://github.com/optr-dev/optr" \
      org.opencontainers.image.url="https://github.com/optr-dev/optr" \
      org.opencontainers.image.documentation="https://github.com/optr-dev/optr#readme" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.vendor="optr-dev" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/debian:trixie-20260918-slim" \
      org.opencontainers.image.base.digest="sha256:a99cfc517144bc59b1978475ec53b46ecabec7e43635402ee5b77cc54cd1b20a"
# git for code changes (agent worktrees, patches); ca-certificates for
# HTTPS. No recommends: no ssh, less or patch. The workspace is mounted from
# the runner and owned by its user, not root, so git is told to trust it.
RUN set -eu; \
    apt-get update; \
    apt-get install -y --no-install-recommends ca-certificates git; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*; \
    git config --system --add safe.directory '*'
COPY --from=copilot /out/copilot /usr/local/bin/copilot
COPY --from=copilot /out/LICENSE.md /usr/share/doc/copilot/LICENSE.md
COPY LICENSE NOTICE /usr/share/doc/optr/
# The launcher must sit beside optr: optr looks for it there only.
COPY --from=build /out/optr /out/optr-sandbox-launcher /
ENTRYPOINT ["/optr", "action"]
