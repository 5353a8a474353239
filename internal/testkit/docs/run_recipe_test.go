package docs

import (
	"testing"
)

// TestRunBehaviourWorkedExample applies CONTRIBUTING.md's worked example
// of a run-behaviour change — a tie-break, prefer: fewer-tokens — as it is
// written, to the two files it names, in a go build overlay (the tree is
// not touched), regenerates the schema as go generate does, and runs the
// tests the recipe names plus tests of the new value at work: config
// accepts it and selection applies it. A recipe that no longer builds, or
// that needs a file it does not name, fails here.
func TestRunBehaviourWorkedExample(t *testing.T) {
	t.Parallel()
	o := newOverlay(t)
	where := section(t, readRoot(t, "CONTRIBUTING.md"), "Where to add …")
	blocks := goBlocks(t, subsection(t, where, "Run behaviour"), 3)

	o.put("internal/config/enums.go", o.edited("internal/config/enums.go",
		[2]string{"\tPreferCheaper = \"cheaper\"", indent(blocks[0]) + "\n"},
		[2]string{"\tPreferCheaper,\n}", indent(blocks[1]) + "\n"}))
	o.put("internal/selection/selection.go", o.edited("internal/selection/selection.go",
		[2]string{"\tconfig.PreferCheaper: ", indent(blocks[2]) + "\n"}))
	o.put("internal/config/zz_fewertokens_test.go", fewerTokensConfigTest)
	o.put("internal/selection/zz_fewertokens_test.go", fewerTokensSelectionTest)

	o.generate("fewer-tokens")
	o.vetAndTest("^(TestPreferencesAgree|TestFewerTokensWorkedExample|TestSchemaGenerated|TestSchemaEnums|TestValidConfigs)$",
		"./internal/config/", "./internal/selection/")
}

// fewerTokensConfigTest: a config may write the new value.
const fewerTokensConfigTest = `package config

import "testing"

func TestFewerTokensWorkedExample(t *testing.T) {
	const text = "agents:\n  a: {provider: command, run: [./a.sh]}\nselection: {prefer: fewer-tokens}\n"
	cfg, err := Parse("optr.yml", []byte(text))
	if err != nil || cfg.Selection.Prefer != PreferFewerTokens {
		t.Fatalf("prefer: fewer-tokens: %v", err)
	}
}
`

// fewerTokensSelectionTest: two candidates that tie on score; the one that
// used fewer tokens goes first under fewer-tokens, the faster one under
// faster.
const fewerTokensSelectionTest = `package selection

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

func TestFewerTokensWorkedExample(t *testing.T) {
	spent := func(tokens int64) cost.Spend { return cost.Spend{Usage: agent.Usage{InputTokens: tokens}} }
	fast := Candidate{Agent: "fast", HasOutput: true, Admissible: true, Exec: ms(10), Spent: spent(900)}
	lean := Candidate{Agent: "lean", HasOutput: true, Admissible: true, Exec: ms(20), Spent: spent(300)}
	sel := config.Selection{Weights: config.Weights{Invariants: 40}, OnNoAdmissible: config.NoAdmissibleFail}
	for prefer, want := range map[string]string{config.PreferFaster: "fast", config.PreferFewerTokens: "lean"} {
		sel.Prefer = prefer
		if got := Select([]Candidate{fast, lean}, sel); got.Selected != want {
			t.Errorf("prefer %s: π* = %s, want %s", prefer, got.Selected, want)
		}
	}
}
`
