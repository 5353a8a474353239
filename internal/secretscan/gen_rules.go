//go:build ignore

// Command gen_rules writes gitleaks.json, the JSON form of gitleaks.toml
// that the binary embeds: go-toml (the parser viper itself uses for TOML)
// reads the rule file here, at go generate time, so that no TOML parser
// is linked into optr. TestRuleJSONIsTheRuleFile holds the two to the
// same rules.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	toml "github.com/pelletier/go-toml/v2"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen_rules:", err)
		os.Exit(1)
	}
}

func run() error {
	src, err := os.ReadFile("gitleaks.toml")
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		return fmt.Errorf("gitleaks.toml: %w", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile("gitleaks.json", out.Bytes(), 0o644)
}
