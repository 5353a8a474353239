package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/ledger/attest"
	"github.com/optr-dev/optr/internal/testkit/demotest"

	"github.com/optr-dev/optr/internal/ledger"
)

// demoWorkspace copies the offline demo into a temporary workspace and
// makes it the working directory (command agents run there).
func demoWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	demotest.Copy(t, ws)
	t.Chdir(ws)
	return ws
}

type run struct {
	code           int
	stdout, stderr string
}

func optr(t *testing.T, args ...string) run {
	t.Helper()
	return optrEnv(t, nil, args...)
}

// optrEnv is optr with env as the environment (USER is tester).
func optrEnv(t *testing.T, env map[string]string, args ...string) run {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := New()
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
	c.Getenv = func(k string) string {
		if k == "USER" {
			return "tester"
		}
		return env[k]
	}
	c.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
	c.IsTerminal = func(any) bool { return false }
	code := c.Run(t.Context(), args)
	return run{code, stdout.String(), stderr.String()}
}

func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		sum := sha256.Sum256(data)
		out[p] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDemoRunSelectsGoodAndChainsRuns(t *testing.T) {
	demoWorkspace(t)
	first := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "Explain hash chains", "--run-id", "r1")
	if first.code != 0 {
		t.Fatalf("demo run exit %d\nstdout:\n%s\nstderr:\n%s", first.code, first.stdout, first.stderr)
	}
	for _, want := range []string{"π* = good", "sloppy", "broken", "slow", "no-todo"} {
		if !strings.Contains(first.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, first.stdout)
		}
	}
	runDir := filepath.Join(".optr", "workflows", "local", "runs", "r1")
	for _, f := range []string{"workflow-optr.yaml", "optr-selection.json", "result.md",
		"agent-outputs/good.json", "agent-outputs/sloppy.json", "agent-outputs/broken.json", "agent-outputs/slow.json"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Errorf("run file missing: %v", err)
		}
	}
	var sel struct {
		Selected string `json:"selected"`
		Table    []struct {
			Agent      string `json:"agent"`
			Admissible bool   `json:"admissible"`
		} `json:"table"`
	}
	data, _ := os.ReadFile(filepath.Join(runDir, "optr-selection.json"))
	if err := json.Unmarshal(data, &sel); err != nil || sel.Selected != "good" || len(sel.Table) != 4 {
		t.Fatalf("optr-selection.json = %s (%v)", data, err)
	}
	before := hashTree(t, runDir)
	if v := optr(t, "ledger", "verify"); v.code != 0 {
		t.Fatalf("verify after run 1: exit %d %s", v.code, v.stderr)
	}
	second := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "Again", "--run-id", "r2")
	if second.code != 0 {
		t.Fatalf("second run exit %d\n%s", second.code, second.stderr)
	}
	if diff := hashTree(t, runDir); len(diff) != len(before) {
		t.Fatalf("run 1's files changed in number: %d → %d", len(before), len(diff))
	} else {
		for p, h := range before {
			if diff[p] != h {
				t.Errorf("run 1's file %s was rewritten", p)
			}
		}
	}
	// Each demo run records the watcher's decision about the broken agent
	// (an escalation entry) and then the run itself.
	var kinds []string
	prev := strings.Repeat("0", 64)
	for i, line := range strings.Split(strings.TrimSpace(readFile(t, ".optr/ledger.jsonl")), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e["prev"] != prev || e["seq"].(float64) != float64(i+1) {
			t.Fatalf("entry %d is not chained to the one before: %v", i+1, e)
		}
		prev = e["hash"].(string)
		kinds = append(kinds, e["kind"].(string)+"/"+e["run"].(string))
	}
	if got := strings.Join(kinds, " "); got != "escalation/r1 run/r1 escalation/r2 run/r2" {
		t.Fatalf("ledger entries = %s", got)
	}
	if v := optr(t, "ledger", "verify"); v.code != 0 || !strings.Contains(v.stdout, "4 entries") {
		t.Fatalf("verify after run 2: exit %d %s %s", v.code, v.stdout, v.stderr)
	}
	if again := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "x", "--run-id", "r1"); again.code != 2 {
		t.Fatalf("reusing run id r1: exit %d, want 2", again.code)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestBadInputWritesNothing(t *testing.T) {
	tests := []struct {
		name   string
		config string
		args   []string
		want   string
	}{
		{"unknown key", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n    colour: blue\n", nil, "bad.yml:5"},
		{"wrong type", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n    timeout: [1]\n", nil, "agents.a.timeout"},
		{"unknown agent in preference", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\nselection:\n  preference: [b]\n", nil, "selection.preference"},
		{"traversal workflow", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n", []string{"--workflow", "../x"}, "workflow"},
		{"absolute workflow", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n", []string{"--workflow", "/etc"}, "workflow"},
		{"unknown agent flag", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n", []string{"--agents", "zz"}, "zz"},
		{"missing config", "", []string{"--config", "nope.yml"}, "nope.yml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			args := []string{"run", "--intent", "x", "--config", "bad.yml"}
			if tt.config != "" {
				os.WriteFile("bad.yml", []byte(tt.config), 0o644)
			}
			args = append(args, tt.args...)
			got := optr(t, args...)
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 naming %q", got.code, got.stderr, tt.want)
			}
			if _, err := os.Stat(".optr"); err == nil {
				t.Fatal("a refused run wrote .optr")
			}
		})
	}
}

func TestLedgerVerifyNamesTheBrokenLine(t *testing.T) {
	demoWorkspace(t)
	for _, id := range []string{"a", "b", "c"} {
		if r := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "x", "--run-id", id, "--agents", "good"); r.code != 0 {
			t.Fatalf("run %s: %d %s", id, r.code, r.stderr)
		}
	}
	data := readFile(t, ".optr/ledger.jsonl")
	lines := strings.SplitAfter(data, "\n")
	lines[1] = strings.Replace(lines[1], `"selected":"good"`, `"selected":"evil"`, 1)
	os.WriteFile(".optr/ledger.jsonl", []byte(strings.Join(lines, "")), 0o644)
	got := optr(t, "ledger", "verify")
	if got.code != 1 || !strings.Contains(got.stderr, "line 2") {
		t.Fatalf("verify of a tampered ledger: exit %d, %q; want 1 naming line 2", got.code, got.stderr)
	}
}

func TestHelpAndUsage(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"ledger", "--help"}, {"resume", "-h"}, {"action", "--help"}, {"version"}} {
		if got := optr(t, args...); got.code != 0 || got.stdout == "" {
			t.Errorf("optr %v: exit %d, stdout %q", args, got.code, got.stdout)
		}
	}
	for _, args := range [][]string{{}, {"frobnicate"}, {"run", "--bogus"}, {"run", "--interactive", "maybe", "--intent", "x"}, {"ledger"}} {
		if got := optr(t, args...); got.code != 2 {
			t.Errorf("optr %v: exit %d, want 2", args, got.code)
		}
	}
}

func TestPausedRunResumes(t *testing.T) {
	demoWorkspace(t)
	cfg := strings.Replace(readFile(t, "testdata/demo/optr.yml"), "on-no-admissible: fail", "on-no-admissible: checkpoint", 1)
	os.WriteFile("cp.yml", []byte(cfg), 0o644)
	paused := optr(t, "run", "--config", "cp.yml", "--intent", "x", "--run-id", "p1", "--agents", "sloppy", "--json")
	if paused.code != ExitPaused { // a script must never mistake a pause for success
		t.Fatalf("paused run: exit %d, want %d: %s", paused.code, ExitPaused, paused.stderr)
	}
	var out Outcome
	if err := json.Unmarshal([]byte(paused.stdout), &out); err != nil || out.Status != "paused" || out.CheckpointID == "" || out.Version == "" {
		t.Fatalf("--json of a paused run = %s (%v)", paused.stdout, err)
	}
	text := optr(t, "run", "--config", "cp.yml", "--intent", "x", "--run-id", "p2", "--agents", "sloppy", "--datalake", "other")
	// Without a terminal (issue 22 item 10) the options still say which one
	// is recommended, and why.
	for _, want := range []string{"1  Proceed", "4  Pause", "(recommended)", "recommendation: ", "optr resume --checkpoint cp-p2-1 --choose N", "--config cp.yml --datalake other"} {
		if text.code != ExitPaused || !strings.Contains(text.stdout, want) {
			t.Fatalf("paused run's text (exit %d) lacks %q:\n%s", text.code, want, text.stdout)
		}
	}
	if r := optr(t, "resume", "--config", "cp.yml", "--checkpoint", out.CheckpointID, "--choose", "7"); r.code != 2 {
		t.Fatalf("an invalid option: exit %d", r.code)
	}
	done := optr(t, "resume", "--config", "cp.yml", "--checkpoint", out.CheckpointID, "--choose", "1", "--note", "ok", "--json")
	if done.code != 0 {
		t.Fatalf("resume: exit %d %s", done.code, done.stderr)
	}
	var fin Outcome
	json.Unmarshal([]byte(done.stdout), &fin)
	if fin.Status != "completed" || fin.Selected != "sloppy" {
		t.Fatalf("resumed outcome = %+v", fin)
	}
	if r := optr(t, "resume", "--config", "cp.yml", "--checkpoint", out.CheckpointID, "--choose", "2"); r.code != 2 || !strings.Contains(r.stderr, "already decided") {
		t.Fatalf("second answer: exit %d %q", r.code, r.stderr)
	}
	kinds := []string{}
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, ".optr/ledger.jsonl")), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(l), &e)
		kinds = append(kinds, e["kind"].(string))
	}
	if strings.Join(kinds, ",") != "checkpoint,decision,run" {
		t.Fatalf("ledger kinds = %v", kinds)
	}
}

// At a terminal (here --interactive always) a paused run asks; Enter takes
// the recommended option and the run finishes in the same process.
func TestInteractiveCheckpointTakesTheRecommendedOption(t *testing.T) {
	demoWorkspace(t)
	cfg := strings.Replace(readFile(t, "testdata/demo/optr.yml"), "on-no-admissible: fail", "on-no-admissible: checkpoint", 1)
	os.WriteFile("cp.yml", []byte(cfg), 0o644)
	var stdout, stderr bytes.Buffer
	c := New()
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader("\n\n"), &stdout, &stderr
	c.Getenv = func(k string) string { return map[string]string{"USER": "ada"}[k] }
	c.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH")} }
	c.IsTerminal = func(any) bool { return false }
	code := c.Run(t.Context(), []string{"run", "--config", "cp.yml", "--intent", "x", "--run-id", "i1", "--agents", "sloppy", "--interactive", "always"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "(recommended)") || !strings.Contains(stdout.String(), "π* = sloppy") {
		t.Fatalf("prompt or outcome missing:\nstderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, ".optr/ledger.jsonl")), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(l), &e)
		kinds = append(kinds, fmt.Sprint(e["kind"], ":", e["by"]))
	}
	if got := strings.Join(kinds, " "); got != "checkpoint:<nil> decision:ada run:<nil>" {
		t.Fatalf("ledger = %s", got)
	}
}

// A command agent inherits the environment; a key it prints must not reach
// the datalake, the ledger or the terminal.
func TestInheritedKeysAreRedacted(t *testing.T) {
	t.Chdir(t.TempDir())
	const key = "sk-test-0123456789abcdef"
	os.WriteFile("optr.yml", []byte(`agents:
  leaky:
    provider: command
    pass-env: [OPENAI_API_KEY]
    run: [sh, -c, "cat >/dev/null; echo \"# Key\"; echo \"key=$OPENAI_API_KEY\"; echo \"stderr=$OPENAI_API_KEY\" >&2; exit 0"]
detection: { on-finding: warn }  # the printed key is a finding; this test is about where it does not go
`), 0o644)
	var stdout, stderr bytes.Buffer
	c := New()
	c.Stdin, c.Stdout, c.Stderr = strings.NewReader(""), &stdout, &stderr
	c.Getenv = func(k string) string { return map[string]string{"OPENAI_API_KEY": key}[k] }
	c.Environ = func() []string { return []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=" + key} }
	c.IsTerminal = func(any) bool { return false }
	if code := c.Run(t.Context(), []string{"run", "--config", "optr.yml", "--intent", "x", "--run-id", "k1"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), key) {
		t.Fatal("the key reached the terminal")
	}
	found := 0
	filepath.WalkDir(".optr", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), key) {
				t.Errorf("the key is in %s", p)
			}
			found += strings.Count(string(data), "[redacted]")
		}
		return nil
	})
	if found == 0 {
		t.Fatal("no [redacted] placeholder anywhere: the agent's output was not where the test expects")
	}
}

// The seed's manual test: escalate.md with **Trigger:** stuck → optr handle
// → decision.md says restart, the trigger is archived, the log has it.
func TestHandleSeedManualTest(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll(".coordination", 0o755)
	os.WriteFile(".coordination/escalate.md", []byte("# Escalation: esc-7\n\n**Reason:** worker-2 shows no progress\n**Trigger:** stuck\n"), 0o644)
	got := optr(t, "handle")
	if got.code != 0 {
		t.Fatalf("exit %d %s", got.code, got.stderr)
	}
	if d := readFile(t, ".coordination/decision.md"); !strings.Contains(d, "**Decision:** restart") {
		t.Fatalf("decision.md:\n%s", d)
	}
	if _, err := os.Stat(".coordination/escalate.md"); err == nil {
		t.Fatal("the trigger was not moved to the archive")
	}
	archived, _ := filepath.Glob(".coordination/archive/escalations/escalate-*.md")
	if len(archived) != 1 || !strings.Contains(readFile(t, ".coordination/watcher-log.md"), "esc-7") {
		t.Fatalf("archive %v, log:\n%s", archived, readFile(t, ".coordination/watcher-log.md"))
	}
	if !strings.Contains(got.stderr, "[optr] escalation esc-7") {
		t.Fatalf("log lines on stderr: %q", got.stderr)
	}
	if again := optr(t, "handle"); again.code != 0 {
		t.Fatalf("nothing to do must exit 0, got %d", again.code)
	}
}

// A datalake or ledger anywhere the user can write: outside the working
// directory, absolute or relative with "..", the run is recorded.
func TestDatalakeAnywhere(t *testing.T) {
	ws := demoWorkspace(t)
	outside := t.TempDir()
	for i, lake := range []string{outside, filepath.Join("..", filepath.Base(ws)+"-lake")} {
		r := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "x", "--agents", "good", "--datalake", lake, "--run-id", fmt.Sprintf("anywhere-%d", i))
		if r.code != 0 {
			t.Fatalf("--datalake %s: exit %d: %s", lake, r.code, r.stderr)
		}
		s, err := ledger.VerifyFile(filepath.Join(lake, "ledger.jsonl"))
		if err != nil || s.Entries != 1 {
			t.Fatalf("--datalake %s: ledger %+v %v", lake, s, err)
		}
		abs, _ := filepath.Abs(filepath.Join(lake, "workflows", "local", "runs", fmt.Sprintf("anywhere-%d", i), "result.md"))
		if !strings.Contains(r.stdout, "π* = good → "+abs) {
			t.Fatalf("--datalake %s: the result path is not shown as %s:\n%s", lake, abs, r.stdout)
		}
		// The attestation is written there too, of files that do not
		// change: the result and the ledger entry's line, not the ledger.
		var st attest.Statement
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(filepath.Dir(abs), attest.FileName))), &st); err != nil {
			t.Fatalf("--datalake %s: %v", lake, err)
		}
		line := readFile(t, filepath.Join(lake, "ledger.jsonl"))
		want := []attest.Subject{
			attest.FileSubject(fmt.Sprintf("workflows/local/runs/anywhere-%d/result.md", i), []byte(readFile(t, abs))),
			attest.EntrySubject("ledger.jsonl", 1, []byte(line)),
		}
		if diff := cmp.Diff(want, st.Subject); diff != "" {
			t.Errorf("--datalake %s: attestation subjects (-want +got):\n%s", lake, diff)
		}
		if cp, err := ledger.ParseCheckpoint([]byte(st.Predicate.Checkpoint)); err != nil || cp.Size != 1 || cp.Origin != ledger.LocalOrigin {
			t.Errorf("--datalake %s: the attestation's checkpoint %q: %v", lake, st.Predicate.Checkpoint, err)
		}
	}
}

// The seed's executor took `--constraints a,b`; optr accepts it beside
// the repeatable --constraint.
func TestSeedConstraintsFlag(t *testing.T) {
	demoWorkspace(t)
	r := optr(t, "run", "--config", "testdata/demo/optr.yml", "--intent", "x", "--agents", "good", "--constraints", "no-todo,short", "--constraint", "has-title", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out Outcome
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Table) != 1 || out.Table[0].Invariants == nil {
		t.Fatalf("table = %+v", out.Table)
	}
	// invariants is the list of passed constraints, as in the ledger.
	var raw struct {
		Table []map[string]any `json:"table"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if got, ok := raw.Table[0]["invariants"].([]any); !ok || len(got) != 4 {
		t.Fatalf("table[0].invariants = %#v, want the four passed constraints", raw.Table[0]["invariants"])
	}
}
