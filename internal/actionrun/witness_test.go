package actionrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// witnessConfig is the agents' config with ledger.witnesses (YAML list
// items, indented four spaces) on line 2 and after.
func (j *job) witnessConfig(witnesses string) {
	j.t.Helper()
	cfg := strings.Replace(agentsConfig, "%s", "least-bad", 1)
	cfg = strings.Replace(cfg, "ledger: { branch: main }\n", "", 1)
	j.file(".github/optr.yml", "ledger:\n  witnesses:\n"+witnesses+"  branch: main\n"+cfg)
}

// TestWitnessesNeedTheLedgerKey: ledger.witnesses without OPTR_LEDGER_KEY,
// or with a key named after another origin, is a configuration error (exit
// 2) naming the file, line and key, before any agent runs.
func TestWitnessesNeedTheLedgerKey(t *testing.T) {
	t.Parallel()
	other, _, err := ledger.GenerateKey(ledger.LocalOrigin)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", other} {
		gh := githubtest.NewServer(t)
		j := newJob(t, gh, "830")
		j.agents("least-bad", `# Answer\n`)
		j.witnessConfig("    - url: https://witness.example/\n      key: witness.example/w1+1e774ee4+BExY9Nfu8WBBAaoRs6PlEPQX2cl4WCO3B3NI552YKq+Z\n")
		if key != "" {
			j.env["OPTR_LEDGER_KEY"] = key
		}
		j.env["INPUT_INTENT"], j.env["INPUT_WORKFLOW"] = "say hello", "nightly"
		j.event("workflow_dispatch", "workflow_dispatch.json", nil)
		outs, err := j.run()
		var ue *UsageError
		if !errors.As(err, &ue) || outs["status"] != "failed" {
			t.Fatalf("key %q: Run = %v, %v, want a usage error", key, err, outs)
		}
		if !strings.Contains(err.Error(), filepath.Join(".github", "optr.yml")+":2: ledger.witnesses") || !strings.Contains(err.Error(), "OPTR_LEDGER_KEY") {
			t.Errorf("key %q: the error does not name the file, line and key: %v", key, err)
		}
		if _, err := os.Stat(filepath.Join(j.ws, ".optr", "workflows")); err == nil {
			t.Errorf("key %q: a run started", key)
		}
	}
}

// TestALedgerKeyOfAnotherName: without witnesses, OPTR_LEDGER_KEY named
// after another origin (as `optr ledger keygen` named every key before)
// costs the checkpoint its signature, with a warning that says how to
// fix it, not the run.
func TestALedgerKeyOfAnotherName(t *testing.T) {
	t.Parallel()
	skey, _, err := ledger.GenerateKey(ledger.LocalOrigin)
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.NewServer(t)
	j := newJob(t, gh, "831")
	j.agents("least-bad", `# Answer\n\nhello\n`)
	j.env["OPTR_LEDGER_KEY"] = skey
	j.env["INPUT_INTENT"], j.env["INPUT_WORKFLOW"] = "say hello", "nightly"
	j.event("workflow_dispatch", "workflow_dispatch.json", nil)
	outs, err := j.run()
	if err != nil || outs["status"] != "completed" {
		t.Fatalf("Run: %v %v\n%s", err, outs, j.log.String())
	}
	cp, signed, err := ledger.OpenCheckpoint([]byte(outs["ledger-checkpoint"]), "")
	if err != nil || signed || cp.Origin != "optr/"+repo {
		t.Errorf("ledger-checkpoint %q: signed %v, %v", outs["ledger-checkpoint"], signed, err)
	}
	if !strings.Contains(j.log.String(), "::warning::OPTR_LEDGER_KEY: ") || !strings.Contains(j.log.String(), "optr ledger keygen --origin optr/"+repo) {
		t.Errorf("no warning about the key's name:\n%s", j.log.String())
	}
}
