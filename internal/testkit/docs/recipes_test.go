package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkedExamples applies CONTRIBUTING.md's worked examples — a check
// kind (min-length) and an OpenAI-compatible provider (mistral) — as they
// are written, to the two files each names, in a go build overlay (the
// tree is not touched), regenerates the schema as go generate does, and
// runs the tests the recipes name plus a test of the new kind or provider
// at work. A recipe that no longer builds, or that needs a file it does
// not name, fails here.
func TestWorkedExamples(t *testing.T) {
	t.Parallel()
	o := newOverlay(t)
	where := section(t, readRoot(t, "CONTRIBUTING.md"), "Where to add …")
	kind := goBlocks(t, subsection(t, where, "A check kind"), 3)
	prov := goBlocks(t, subsection(t, where, "A provider"), 4)

	// A check kind: the constant and the entry in checks.go, the checker in
	// its own file; then a test of each side.
	o.put("internal/config/checks.go", o.edited("internal/config/checks.go",
		[2]string{"\tCheckJSON       = \"json\"", kind[0] + "\n"},
		[2]string{"\t{name: CheckJSON, ", indent(kind[1]) + "\n"}))
	o.put("internal/check/minlength.go", kind[2])
	o.put("internal/config/zz_minlength_test.go", minLengthConfigTest)
	o.put("internal/check/zz_minlength_test.go", minLengthCheckTest)

	// A provider: the constant and the entry in providers.go, its prices.
	o.put("internal/provider/providers.go", o.edited("internal/provider/providers.go",
		[2]string{"\tCommand     = \"command\"", prov[0] + "\n"},
		[2]string{"\t{\n\t\tName:    Command,", indent(prov[1]) + "\n"}))
	o.put("internal/cost/prices.go", o.edited("internal/cost/prices.go",
		[2]string{"}\n\nvar openAI = ", indent(prov[2]) + "\n"})+"\n"+prov[3]+"\n")
	o.put("internal/agent/llm/zz_mistral_test.go", mistralTest)

	o.generate("min-length", "mistral")
	o.vetAndTest("^(TestKindsAgree|TestMinLengthWorkedExample|TestSchemaGenerated|TestSchemaEnums|TestSchemaKindKeys|TestSchemaNamesKeyVariables|TestValidConfigs|TestRegistry|TestDerived|TestEveryLLMProviderHasACaller|TestMistralWorkedExample|TestBuiltinTable)$",
		"./internal/config/", "./internal/check/", "./internal/provider/", "./internal/cost/", "./internal/agent/llm/")
}

// subsection returns the text of the ### section called title.
func subsection(t *testing.T, text, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n### "+title+"\n")
	if !ok {
		t.Fatalf("CONTRIBUTING.md has no section %q", title)
	}
	body, _, _ := strings.Cut(rest, "\n### ")
	return body
}

// goBlocks returns the first n ```go blocks of text, unindented from the
// list item they are written in.
func goBlocks(t *testing.T, text string, n int) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(text, "```go\n")[1:] {
		code, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatal("an unclosed ```go block")
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(code, " \n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "   "))
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	if len(out) < n {
		t.Fatalf("found %d go blocks, want at least %d: the worked example changed shape; update the test", len(out), n)
	}
	return out[:n]
}

// indent puts a block one tab in, as an entry in a table literal is.
func indent(code string) string {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Join(lines, "\n")
}

func writeOverlay(t *testing.T, dir string, replace map[string]string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", args[0], err, out)
	}
}

// minLengthConfigTest is what the recipe's "then the tests" asks of the
// config side: a min-length constraint validates, and a bad value is
// refused with the recipe's message.
const minLengthConfigTest = `package config

import (
	"strings"
	"testing"
)

func TestMinLengthWorkedExample(t *testing.T) {
	const agents = "agents:\n  a: {provider: command, run: [./a.sh]}\n"
	if _, err := Parse("optr.yml", []byte(agents+"constraints:\n  long: {check: min-length, value: 200}\n")); err != nil {
		t.Fatalf("a min-length constraint: %v", err)
	}
	_, err := Parse("optr.yml", []byte(agents+"constraints:\n  long: {check: min-length, value: 0}\n"))
	if err == nil || !strings.Contains(err.Error(), "min-length checks need a value that is a positive whole number") {
		t.Errorf("value 0: %v", err)
	}
	_, err = Parse("optr.yml", []byte(agents+"constraints:\n  long: {check: min-length, value: 5, pattern: x}\n"))
	if err == nil || !strings.Contains(err.Error(), "pattern is not used by min-length checks") {
		t.Errorf("a key of another kind: %v", err)
	}
}
`

// minLengthCheckTest checks the checker at work.
const minLengthCheckTest = `package check

import (
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

func TestMinLengthWorkedExample(t *testing.T) {
	ch := mustNew(t, "long", config.Constraint{Check: config.CheckMinLength, Value: "3"}, Options{})
	if got, _ := run(t, ch, "héllo"); !got.Pass {
		t.Errorf("5 characters against 3: %+v", got)
	}
	if got, _ := run(t, ch, "日本"); got.Pass || got.Reason != "output is 2 characters long; at least 3 are needed" {
		t.Errorf("2 characters against 3: %+v", got)
	}
}
`

// mistralTest runs a mistral agent against a server that speaks Chat
// Completions, as Mistral's API does: the provider works from its entry.
const mistralTest = `package llm_test

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

func TestMistralWorkedExample(t *testing.T) {
	fake := llmtest.NewChatCompletions(t)
	env := map[string]string{"MISTRAL_API_KEY": fake.Key, "MISTRAL_BASE_URL": fake.URL}
	a, err := llm.New("le-chat", config.Agent{Provider: "mistral", Model: "mistral-large-latest"},
		llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), agent.Request{Intent: "x"})
	if err != nil || res.Output != "ok" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	r := fake.Requests()[0]
	if r.Path != "/compat/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+fake.Key {
		t.Errorf("request %s with %q", r.Path, r.Header.Get("Authorization"))
	}
}
`
