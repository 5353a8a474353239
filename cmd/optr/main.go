// Command optr runs several AI agents on one intent, selects the best
// admissible result and records it in a hash-chained ledger. It is both a
// CLI and the entrypoint of the optr GitHub Action (`optr action`).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/optr-dev/optr/internal/cli"
)

func main() {
	cli.TuneGC(os.Args[1:], os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := cli.New().Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
