//go:build ignore

// Command gen_schema writes schema.json from schema.in.json and the
// registries of check kinds and providers (config.GenerateSchema). Run it
// with go generate ./internal/config.
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
	source, err := os.ReadFile("schema.in.json")
	if err != nil {
		return err
	}
	out, err := config.GenerateSchema(source)
	if err != nil {
		return err
	}
	return os.WriteFile("schema.json", out, 0o644)
}
