package docs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/optr-dev/optr/internal/config"
)

// Kinds of YAML block in the docs.
const (
	kindWorkflow = "workflow"      // on: and jobs: — a whole workflow file
	kindJobs     = "jobs fragment" // jobs: only — "same on: as above"
	kindSteps    = "steps"         // a list of steps that follow the optr step
	kindConfig   = "optr config"   // only the config's top-level keys
)

// loadSkips are the config blocks that are validated against the schema
// but not loaded through config.Parse, each found by a text it holds, with
// the reason. A skip that matches no block fails the test, so the table
// cannot outlive the README text it excuses.
var loadSkips = []struct{ holds, reason string }{
	{"coordinator: planner", "a delegate pipeline alone: it names agents (planner, scout, analyst) the example does not define"},
	{"mode: stages", "a stages pipeline alone: it names agents (discuss, decisions, execute, mind) the example does not define"},
	{"agent: reviewer", "a detection section alone: it names an agent (reviewer) the example does not define"},
}

// yamlBlock is one ```yaml block of a doc file, parsed.
type yamlBlock struct {
	fence
	file string         // relative to the repository root
	top  map[string]any // the top-level mapping, nil for a list
	list []any          // the top-level list, nil for a mapping
}

func (b yamlBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.Line) }

// kind classifies a block by its top level: on: with jobs: is a workflow,
// jobs: alone a jobs fragment, a list of mappings with uses: or run: a list
// of steps, and a mapping whose keys are all config keys an optr config.
func (b yamlBlock) kind(configKeys []string) (string, error) {
	if b.list != nil {
		for i, item := range b.list {
			m, ok := item.(map[string]any)
			if !ok || (m["uses"] == nil && m["run"] == nil) {
				return "", fmt.Errorf("a list whose item %d is not a step (a mapping with uses: or run:)", i+1)
			}
		}
		return kindSteps, nil
	}
	_, on := b.top["on"]
	_, jobs := b.top["jobs"]
	switch {
	case on && jobs:
		return kindWorkflow, nil
	case jobs && len(b.top) == 1:
		return kindJobs, nil
	}
	var other []string
	for k := range b.top {
		if !slices.Contains(configKeys, k) {
			other = append(other, k)
		}
	}
	if len(other) == 0 && len(b.top) > 0 {
		return kindConfig, nil
	}
	slices.Sort(other)
	return "", fmt.Errorf("neither a workflow (on: and jobs:), a jobs: fragment, a list of steps nor an optr config (keys %s are no config keys)", strings.Join(other, ", "))
}

// docsYAML returns the ```yaml blocks of README.md and docs/*.md, each
// parsed, README.md's first; a block that is not valid YAML fails the test.
func docsYAML(t *testing.T) []yamlBlock {
	t.Helper()
	var out []yamlBlock
	for _, file := range docFiles(t) {
		out = append(out, fileYAML(t, file)...)
	}
	return out
}

// fileYAML returns one doc file's ```yaml blocks, each parsed.
func fileYAML(t *testing.T, file string) []yamlBlock {
	t.Helper()
	var out []yamlBlock
	for _, f := range fences(t, file, readRoot(t, file)) {
		if f.Lang != "yaml" && f.Lang != "yml" {
			continue
		}
		b := yamlBlock{fence: f, file: file}
		var v any
		if err := yaml.Unmarshal([]byte(f.Text), &v); err != nil {
			t.Errorf("%s: the ```yaml block is not valid YAML: %v", b.where(), err)
			continue
		}
		switch v := v.(type) {
		case map[string]any:
			b.top = v
		case []any:
			b.list = v
		default:
			t.Errorf("%s: the ```yaml block is a %T, want a mapping or a list", b.where(), v)
			continue
		}
		out = append(out, b)
	}
	return out
}

// configKeys are the config's top-level keys, as schema.json lists them.
func configKeys(t *testing.T) []string {
	t.Helper()
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(config.Schema, &s); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	var keys []string
	for k := range s.Properties {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		t.Fatal("schema.json lists no top-level properties")
	}
	return keys
}

// TestDocsYAML checks every ```yaml block of README.md and docs/*.md as
// what it is. A jobs: fragment is completed with README.md's first
// workflow (the quick start's), which the fragments' text refers to.
func TestDocsYAML(t *testing.T) {
	t.Parallel()
	blocks := docsYAML(t)
	keys := configKeys(t)

	var header string // README.md's first workflow's text without its jobs
	for _, b := range blocks {
		if b.file != "README.md" {
			break
		}
		if k, _ := b.kind(keys); k == kindWorkflow {
			header = withoutJobs(b.Text)
			break
		}
	}
	usedSkips, usedIgnores := map[string]int{}, map[int]int{}
	counts := map[string]int{}
	for _, b := range blocks {
		kind, err := b.kind(keys)
		if err != nil {
			t.Errorf("%s: %v; make it one of these, or say in this test why it is none", b.where(), err)
			continue
		}
		counts[kind]++
		var problems []string
		switch kind {
		case kindWorkflow:
			problems = lint(t, b.file, b.Text, b.Line-1, nil, usedIgnores)
			guarded(t, b.where(), b.Text, "")
		case kindJobs:
			if header == "" {
				t.Errorf("%s: a jobs: fragment, but README.md has no workflow to complete it", b.where())
				continue
			}
			problems = lint(t, b.file, b.Text+header, b.Line-1, nil, usedIgnores)
			guarded(t, b.where(), b.Text, header)
		case kindSteps:
			problems = lint(t, b.file, stepsWorkflow(b.Text), b.Line-1-stepsWorkflowLines, nil, usedIgnores)
			guarded(t, b.where(), stepsWorkflow(b.Text), "")
		case kindConfig:
			if err := config.ValidateSchema([]byte(b.Text)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: does not validate against internal/config/schema.json: %v", b.where(), err))
			}
			skip := ""
			for _, s := range loadSkips {
				if strings.Contains(b.Text, s.holds) {
					skip = s.reason
					usedSkips[s.holds]++
				}
			}
			if skip != "" {
				t.Logf("%s: not loaded through config.Parse: %s", b.where(), skip)
				break
			}
			if _, err := config.Parse(b.file, []byte(b.Text)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: config.Parse refuses it (lines relative to the block):\n%v", b.where(), err))
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
	for _, s := range loadSkips {
		if usedSkips[s.holds] != 1 {
			t.Errorf("skip %q matches %d blocks of the docs, want 1: update the skip table", s.holds, usedSkips[s.holds])
		}
	}
	for i, ig := range lintIgnores {
		if usedIgnores[i] == 0 {
			t.Errorf("actionlint ignore %q (%s) matches nothing in the docs: remove it", ig.message, ig.rule)
		}
	}
	for _, k := range []string{kindWorkflow, kindConfig} {
		if counts[k] == 0 {
			t.Errorf("the docs have no %s block: the classification is broken", k)
		}
	}
}

// withoutJobs returns a workflow's text without its top-level jobs: key
// and what belongs to it.
func withoutJobs(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(text, "\n") {
		top := line != "" && line[0] != ' ' && line[0] != '#' && strings.TrimSpace(line) != ""
		if top {
			in = strings.HasPrefix(line, "jobs:")
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// stepsWorkflowLines is how many lines stepsWorkflow puts before the steps.
const stepsWorkflowLines = 9

// stepsWorkflow wraps a list of steps into a workflow where they follow
// the optr step (id optr), as the docs' examples assume.
func stepsWorkflow(steps string) string {
	var b strings.Builder
	b.WriteString("on: workflow_dispatch\n" +
		"permissions: { contents: read, id-token: write, attestations: write }\n" +
		"jobs:\n" +
		"  optr:\n" +
		"    runs-on: ubuntu-latest\n" +
		"    steps:\n" +
		"      - id: optr\n" +
		"        uses: optr-dev/optr@v1\n" +
		"      # the docs' steps follow\n")
	for _, line := range strings.SplitAfter(steps, "\n") {
		if line != "" {
			b.WriteString("      " + line)
		}
	}
	return b.String()
}
