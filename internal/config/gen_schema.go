//go:build ignore

// Command gen_schema writes schema.json from schema.in.json and the
// registries of check kinds and providers (config.GenerateSchema). Run it
// with go generate ./internal/config; "go run gen_schema.go SOURCE TARGET"
// reads and writes other files.
package main

import (
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/config"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen_schema:", err)
		os.Exit(1)
	}
}

func run() error {
	in, out := "schema.in.json", "schema.json"
	if len(os.Args) == 3 {
		in, out = os.Args[1], os.Args[2]
	}
	source, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	schema, err := config.GenerateSchema(source)
	if err != nil {
		return err
	}
	return os.WriteFile(out, schema, 0o644)
}
