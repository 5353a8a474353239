package actionrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/config"
)

// The files an iteration's branch may not change: the config, every file
// a command agent's or check's run names (a word of an argument, or a
// folder holding it) and what those load, a json-schema check's schema,
// and the curated execution-entry paths (the coding agents' project files
// among them); nothing an LLM agent names, nothing beside.
func TestTrustedTouched(t *testing.T) {
	root := t.TempDir()
	for p, c := range map[string]string{
		"agents/coder.sh": ". agents/lib.sh\n", "agents/lib.sh": "", "agents/README.md": "", "agents/llm.md": "",
		"cmd/probe/main.go": "package main\n", "cmd/other/main.go": "package main\n", "go.mod": "module example.com/m\n",
		"scripts/prep.sh": "", "tools/run.py": "", "scripts/check.sh": "make -s lint\n", "Makefile": "lint:\n\tsh scripts/lint.sh\n",
		"scripts/lint.sh": "", "schemas/out.json": "{}", "greet.txt": "", "coder.sh": "",
	} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
		".github/optr.yml", "agents/coder.sh", "agents/lib.sh", "agents/README.md", "agents/llm.md", "cmd/probe/main.go", "cmd/other/main.go",
		"scripts/prep.sh", "tools/run.py", "scripts/check.sh", "scripts/lint.sh", "Makefile", "schemas/out.json", "greet.txt", "coder.sh",
		".claude/settings.json", "CLAUDE.md", "pkg/AGENTS.md", ".mcp.json", ".codex/config.toml", ".gemini/settings.json", "go.mod",
	}
	got := strings.Join(trustedTouched(root, ".github/optr.yml", cfg, changed), "\n")
	for _, want := range []string{".github/optr.yml", "agents/coder.sh", "agents/lib.sh", "cmd/probe/main.go", "scripts/check.sh", "scripts/prep.sh",
		"tools/run.py", "scripts/lint.sh", "Makefile", "schemas/out.json", ".claude/settings.json", "CLAUDE.md", "pkg/AGENTS.md", ".mcp.json",
		".codex/config.toml", ".gemini/settings.json", "go.mod"} {
		if !strings.Contains(got, "`"+want+"` (") {
			t.Errorf("trustedTouched does not name %s:\n%s", want, got)
		}
	}
	for _, not := range []string{"agents/README.md", "agents/llm.md", "cmd/other/main.go", "greet.txt", "`coder.sh`"} {
		if strings.Contains(got, not) {
			t.Errorf("trustedTouched names %s:\n%s", not, got)
		}
	}
	if got := trustedTouched(root, ".github/optr.yml", cfg, []string{"greet.txt", "agents/README.md"}); len(got) != 0 {
		t.Errorf("a change beside the programs: %q", got)
	}
}
