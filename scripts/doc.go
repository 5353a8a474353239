// Package scripts holds no code of its own: it tests the files that ship
// optr rather than compile into it — scripts/release.sh, the host-mode
// action (host/action.yml and host/install.sh, run against a local file
// server standing in for a GitHub release), the Dockerfile, the workflows'
// pinned actions and the issue form — so a broken release path fails
// `go test ./...` instead of a tag.
package scripts
