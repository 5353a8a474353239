package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const oneAgent = "agents:\n  a:\n    provider: command\n    run: [./a.sh]\n"

func TestChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		want       Changes
	}{
		{"absent: off, with defaults", "", Changes{Mode: "none", Protect: defaultProtectForTest(), MaxFiles: 50, Draft: true}},
		{"written", "changes:\n  mode: pull-request\n  base: release/1.x\n  protect: ['**/*.pem']\n  max-files: 3\n  draft: false\n  ci: [ci.yml, lint.yaml]\n",
			Changes{Mode: "pull-request", Base: "release/1.x", Protect: []string{"**/*.pem"}, MaxFiles: 3, CI: []string{"ci.yml", "lint.yaml"}}},
		{"an empty protect list stays empty", "changes:\n  mode: apply\n  protect: []\n", Changes{Mode: "apply", Protect: []string{}, MaxFiles: 50, Draft: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse("optr.yml", []byte(oneAgent+tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if c.Changes.On() != (tc.want.Mode != "none") {
				t.Errorf("On() = %v for mode %s", c.Changes.On(), c.Changes.Mode)
			}
		})
	}
}

func defaultProtectForTest() []string { return []string{".github/workflows/**", ".optr/**"} }

// The schema's changes: enum, defaults and protect patterns say what
// Parse says.
func TestChangesSchemaAgrees(t *testing.T) {
	t.Parallel()
	doc := schemaDoc(t)
	const p = "/properties/changes/properties/"
	if diff := cmp.Diff(ChangesModes, strs(at(t, doc, p+"mode/enum"))); diff != "" {
		t.Errorf("mode enum (-go +schema):\n%s", diff)
	}
	if diff := cmp.Diff(defaultProtect, strs(at(t, doc, p+"protect/default"))); diff != "" {
		t.Errorf("protect default (-go +schema):\n%s", diff)
	}
	for ptr, want := range map[string]any{p + "mode/default": ChangesNone, p + "max-files/default": float64(defaultMaxFiles), p + "draft/default": true} {
		if diff := cmp.Diff(want, at(t, doc, ptr)); diff != "" {
			t.Errorf("%s (-go +schema):\n%s", ptr, diff)
		}
	}
	s := compileSchema(t)
	for _, pattern := range []string{".github/workflows/**", "**/*.pem", "go.sum", "a/**/b", "/etc", "a//b", "../x", "a/.", "a**", "***", "x\\y"} {
		yaml := []byte(oneAgent + "changes:\n  protect: ['" + pattern + "']\n")
		goOK := protectError(pattern) == nil
		schemaOK := validateYAML(s, yaml) == nil
		if goOK != schemaOK {
			t.Errorf("protect %q: Parse accepts %v, the schema %v", pattern, goOK, schemaOK)
		}
	}
	for _, file := range []string{"ci.yml", "Lint_2.yaml", ".github/workflows/ci.yml", "ci", "ci.yml.bak", ".hidden.yml", "-x.yml"} {
		yaml := []byte(oneAgent + "changes:\n  ci: ['" + file + "']\n")
		_, err := Parse("optr.yml", yaml)
		if goOK, schemaOK := err == nil, validateYAML(s, yaml) == nil; goOK != schemaOK {
			t.Errorf("ci %q: Parse accepts %v (%v), the schema %v", file, goOK, err, schemaOK)
		}
	}
}

// A changes.ci entry that is not a workflow file name, or is listed
// twice, is refused with its key and the next step.
func TestChangesCIRefused(t *testing.T) {
	t.Parallel()
	for yaml, want := range map[string]string{
		"changes:\n  ci: [.github/workflows/ci.yml]\n": `changes.ci[0]: ".github/workflows/ci.yml" is not a workflow file name: write the name of a file in .github/workflows, such as ci.yml`,
		"changes:\n  ci: [ci.yml, ci.yml]\n":           "changes.ci[1]: ci.yml is listed twice",
	} {
		_, err := Parse("optr.yml", []byte(oneAgent+yaml))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}

func TestProtectError(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{".github/workflows/**", "**/*.pem", "a/**/b", "go.mod", "[ab]/c", "*.{pem,key}"} {
		if err := protectError(ok); err != nil {
			t.Errorf("protectError(%q) = %v", ok, err)
		}
	}
	bad := map[string]string{
		"":       "empty",
		"/etc":   "starts with '/'",
		"a\\b":   "'\\'",
		"a//b":   "empty, '.' or '..'",
		"../x":   "empty, '.' or '..'",
		"a**":    "whole segment",
		"a/[b/c": "not a valid pattern",
		"a/{b":   "not a valid pattern",
		"[]":     "not a valid pattern",
	}
	for p, want := range bad {
		if err := protectError(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("protectError(%q) = %v, want %q", p, err, want)
		}
	}
}
