package check

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

// bound describes a resolved constraint for comparison.
type bound struct {
	Name, Kind, Description string
	Hard                    bool
}

func describeAll(cs []Constraint) []bound {
	out := make([]bound, len(cs))
	for i, c := range cs {
		kind := "unverified"
		switch ch := c.Checker.(type) {
		case nil:
		case *judgeCheck:
			kind = "judge by " + ch.agent.Name() + ": " + ch.criterion
		default:
			kind = fmtType(ch)
		}
		out[i] = bound{Name: c.Name, Kind: kind, Description: c.Description, Hard: c.Hard}
	}
	return out
}

// fmtType names a checker's kind.
func fmtType(v Checker) string {
	switch v := v.(type) {
	case cachedCheck:
		return fmtType(v.Checker)
	case containsCheck:
		return "contains"
	case regexCheck:
		return "regex"
	case maxLengthCheck:
		return "maxLength"
	case jsonCheck:
		return "json"
	case *schemaCheck:
		return "schema"
	case *commandCheck:
		return "command"
	}
	return "other"
}

func testConfig() *config.Config {
	return &config.Config{
		Constraints: map[string]config.Constraint{
			"short":       {Check: "max-length", Value: "100", Hard: false},
			"valid-json":  {Check: "json", Hard: true},
			"no-secrets":  {Check: "not-regex", Pattern: `sk-[A-Za-z0-9]{20,}`, Hard: true, Description: "no API keys"},
			"polite":      {Check: "judge", Agent: "claude", Criterion: "The reply is polite.", Hard: false},
			"tests-green": {Check: "command", Run: []string{"make", "test"}, Hard: true},
		},
		ConstraintNames: []string{"valid-json", "no-secrets", "short", "polite", "tests-green"},
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	claude := ruleJudge("claude", "x")
	gpt := ruleJudge("gpt", "x")
	factory := func(name string) (agent.Agent, error) {
		switch name {
		case "claude":
			return claude, nil
		case "gpt":
			return gpt, nil
		}
		return nil, errors.New("no agent " + name)
	}
	configured := []bound{
		{Name: "valid-json", Kind: "json", Description: "the output is one valid JSON value and nothing else", Hard: true},
		{Name: "no-secrets", Kind: "regex", Description: "no API keys", Hard: true},
		{Name: "short", Kind: "maxLength", Description: "the output is at most 100 characters long"},
		{Name: "polite", Kind: "judge by claude: The reply is polite.", Description: "The reply is polite."},
		{Name: "tests-green", Kind: "command", Description: `the command "make test" exits 0 with the output on its stdin`, Hard: true},
	}
	tests := []struct {
		name  string
		cfg   *config.Config
		extra []string
		opts  Options
		want  []bound
	}{
		{"config only, file order", testConfig(), nil, Options{Judge: factory}, configured},
		{"extra already defined is not repeated", testConfig(), []string{"short", " valid-json ", ""}, Options{Judge: factory}, configured},
		{"undefined with a default judge", testConfig(), []string{"cites-sources", "short", "cites-sources"}, Options{Judge: factory, DefaultJudge: "gpt"},
			append(configured[:len(configured):len(configured)], bound{Name: "cites-sources", Kind: "judge by gpt: cites-sources", Description: "cites-sources", Hard: true})},
		{"undefined without a judge is unverified", testConfig(), []string{"cites-sources"}, Options{Judge: factory},
			append(configured[:len(configured):len(configured)], bound{Name: "cites-sources", Kind: "unverified", Description: "cites-sources", Hard: true})},
		{"default judge without a factory is unverified", nil, []string{"b", "a"}, Options{DefaultJudge: "gpt"},
			[]bound{{Name: "b", Kind: "unverified", Description: "b", Hard: true}, {Name: "a", Kind: "unverified", Description: "a", Hard: true}}},
		{"no config, nothing asked", nil, nil, Options{}, []bound{}},
		{"names missing from ConstraintNames follow sorted", &config.Config{Constraints: map[string]config.Constraint{
			"z": {Check: "json"}, "b": {Check: "json"}, "a": {Check: "json"}}, ConstraintNames: []string{"z", "ghost"}}, nil, Options{},
			[]bound{
				{Name: "z", Kind: "json", Description: "the output is one valid JSON value and nothing else"},
				{Name: "a", Kind: "json", Description: "the output is one valid JSON value and nothing else"},
				{Name: "b", Kind: "json", Description: "the output is one valid JSON value and nothing else"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, err := Resolve(tt.cfg, tt.extra, tt.opts)
			if err != nil {
				t.Fatalf("Resolve error: %v", err)
			}
			if diff := cmp.Diff(tt.want, describeAll(cs)); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveMakesEachJudgeOnce(t *testing.T) {
	t.Parallel()
	var made atomic.Int64
	factory := func(name string) (agent.Agent, error) {
		made.Add(1)
		return ruleJudge(name, "x"), nil
	}
	cfg := &config.Config{Constraints: map[string]config.Constraint{
		"a": {Check: "judge", Agent: "gpt"}, "b": {Check: "judge"}}}
	if _, err := Resolve(cfg, []string{"c", "d"}, Options{Judge: factory, DefaultJudge: "gpt"}); err != nil {
		t.Fatal(err)
	}
	if made.Load() != 1 {
		t.Errorf("the judge agent was made %d times for 4 constraints, want once", made.Load())
	}
}

func TestResolveReportsEveryProblem(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{
		Constraints: map[string]config.Constraint{
			"fmt":   {Check: "regex", Pattern: "(x"},
			"limit": {Check: "max-length", Value: "many"},
			"ok":    {Check: "json"},
			"tone":  {Check: "judge", Agent: "nobody"},
		},
		ConstraintNames: []string{"fmt", "limit", "ok", "tone"},
	}
	factory := func(name string) (agent.Agent, error) { return nil, errors.New("no agent called " + name) }
	cs, err := Resolve(cfg, []string{"Bad Name", "fine", "../etc"}, Options{Judge: factory, DefaultJudge: "ghost"})
	if err == nil {
		t.Fatalf("Resolve = %d constraints, want an error", len(cs))
	}
	for _, want := range []string{
		`constraint "fmt"`, `constraint "limit"`, `constraint "tone"`, `no agent called nobody`,
		`constraint name "Bad Name" is not a slug`, `constraint name "../etc" is not a slug`,
		`constraint "fine" (not defined in the config, judged by the default judge): judge agent "ghost": no agent called ghost`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), `"ok"`) {
		t.Errorf("error blames a good constraint:\n%v", err)
	}
}

func TestNamesAndDescriptions(t *testing.T) {
	t.Parallel()
	cs, err := Resolve(testConfig(), []string{"extra"}, Options{Judge: func(n string) (agent.Agent, error) { return ruleJudge(n, "x"), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"valid-json", "no-secrets", "short", "polite", "tests-green", "extra"}, Names(cs)); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if got := Descriptions(cs); len(got) != len(cs) || got[1] != "no API keys" || got[5] != "extra" {
		t.Errorf("Descriptions = %q", got)
	}
}
