package actionrun

import (
	"slices"
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

// The files an iteration's branch may not change: the config, and every
// file a command agent's or check's argv names, as a word of an argument
// or a folder holding it; nothing an LLM agent or another check names.
func TestTrustedTouched(t *testing.T) {
	cfg, err := config.Parse(".github/optr.yml", []byte(`agents:
  coder: { provider: command, run: [sh, ./agents/coder.sh, --fast] }
  builder: { provider: command, run: [go, run, ./cmd/probe] }
  shell: { provider: command, run: [bash, -c, "scripts/prep.sh && exec tools/run.py 'x'"] }
  writer: { provider: openai, model: gpt-4.1, role: "see agents/llm.md" }
constraints:
  tests: { check: command, run: [sh, -c, "./scripts/check.sh --quick"] }
  shaped: { check: json-schema, schema: schemas/out.json }
`))
	if err != nil {
		t.Fatal(err)
	}
	changed := []string{
		".github/optr.yml", "agents/coder.sh", "agents/README.md", "agents/llm.md", "cmd/probe/main.go", "cmd/other/main.go",
		"scripts/prep.sh", "tools/run.py", "scripts/check.sh", "schemas/out.json", "greet.txt", "coder.sh",
	}
	got := trustedTouched(".github/optr.yml", cfg, changed)
	want := []string{".github/optr.yml", "agents/coder.sh", "cmd/probe/main.go", "scripts/check.sh", "scripts/prep.sh", "tools/run.py"}
	if !slices.Equal(got, want) {
		t.Errorf("trustedTouched = %q, want %q", got, want)
	}
	if got := trustedTouched(".github/optr.yml", cfg, []string{"greet.txt", "agents/README.md"}); len(got) != 0 {
		t.Errorf("a change beside the programs: %q", got)
	}
}
