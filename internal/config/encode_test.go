package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestYAMLRoundTrip writes each valid config, and the embedded default, as
// YAML: the text satisfies the schema and parses back to the same config,
// agents and constraints in the same order.
func TestYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	configs := map[string]*Config{
		"Default":          Default(func(string) string { return "set" }),
		"Default, no keys": Default(func(string) string { return "" }),
	}
	for _, p := range validConfigs(t) {
		c, err := Load(p)
		if err != nil {
			t.Fatalf("Load(%s): %v", p, err)
		}
		configs[p] = c
	}
	for name, c := range configs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := c.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(string(data), "{") {
				t.Errorf("not in block style:\n%s", data)
			}
			if err := validateYAML(s, data); err != nil {
				t.Errorf("schema rejects the config as YAML: %v\n%s", err, data)
			}
			back, err := Parse("effective.yml", data)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, data)
			}
			want := *c
			want.Path = "effective.yml"
			if diff := cmp.Diff(&want, back); diff != "" {
				t.Errorf("round trip mismatch (-original +parsed):\n%s\n%s", diff, data)
			}
		})
	}
}

// The members of agents and constraints come in the file's order, not
// sorted as JSON would have them.
func TestYAMLKeepsTheFilesOrder(t *testing.T) {
	t.Parallel()
	c, err := Parse("optr.yml", []byte("agents:\n  zed: {provider: command, run: [\"true\"]}\n  alpha: {provider: command, run: [\"true\"]}\nconstraints:\n  z: {check: contains, value: a}\n  a: {check: contains, value: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Index(text, "zed:") > strings.Index(text, "alpha:") || strings.Index(text, "  z:") > strings.Index(text, "  a:") {
		t.Errorf("the file's order is lost:\n%s", text)
	}
}
