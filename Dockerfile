# optr's action image: a static binary on a distroless base with CA
# certificates. Docker actions run as root and the runner sets the working
# directory, so the image sets neither USER nor WORKDIR in its final stage.
#
# To skip the build on every run, publish this image and point action.yml's
# runs.image at it (docker://ghcr.io/optr-dev/optr:v1); the entrypoint stays
# the same. The base has no shell: command agents that need one (sh, node)
# need an image that adds them, FROM this one.
FROM golang:1.26-bookworm AS build
ARG VERSION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/optr-dev/optr/internal/version.Version=${VERSION}" \
      -o /out/optr ./cmd/optr

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/optr /optr
ENTRYPOINT ["/optr", "action"]
