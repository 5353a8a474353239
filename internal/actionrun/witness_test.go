package actionrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/tlogwitness"
	"github.com/optr-dev/optr/internal/tlogwitness/witnesstest"
)

// witnessConfig is the agents' config with ledger.witnesses (YAML list
// items, indented four spaces) on line 2 and after.
func (j *job) witnessConfig(witnesses string) {
	j.t.Helper()
	cfg := strings.Replace(agentsConfig, "%s", "least-bad", 1)
	cfg = strings.Replace(cfg, "ledger: { branch: main }\n", "", 1)
	j.File(".github/optr.yml", "ledger:\n  witnesses:\n"+witnesses+"  branch: main\n"+cfg)
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
			j.Env["OPTR_LEDGER_KEY"] = key
		}
		j.Env["INPUT_INTENT"], j.Env["INPUT_WORKFLOW"] = "say hello", "nightly"
		j.Event("workflow_dispatch", "workflow_dispatch.json", nil)
		outs, err := j.run()
		var ue *UsageError
		if !errors.As(err, &ue) || outs["status"] != "failed" {
			t.Fatalf("key %q: Run = %v, %v, want a usage error", key, err, outs)
		}
		if !strings.Contains(err.Error(), filepath.Join(".github", "optr.yml")+":2: ledger.witnesses") || !strings.Contains(err.Error(), "OPTR_LEDGER_KEY") {
			t.Errorf("key %q: the error does not name the file, line and key: %v", key, err)
		}
		if _, err := os.Stat(filepath.Join(j.Workspace, ".optr", "workflows")); err == nil {
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
	j.Env["OPTR_LEDGER_KEY"] = skey
	j.Env["INPUT_INTENT"], j.Env["INPUT_WORKFLOW"] = "say hello", "nightly"
	j.Event("workflow_dispatch", "workflow_dispatch.json", nil)
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

// TestRunsAreCosigned: with ledger.witnesses, two runs in a row are each
// cosigned by the reference witness, which checked the second against the
// first with a consistency proof; each cosigned checkpoint is the output,
// is in the final comment and is committed as
// checkpoints/ledger-<size>.cosigned; a third run with the witness down
// completes with a warning naming it, its checkpoint signed only by optr.
func TestRunsAreCosigned(t *testing.T) {
	t.Parallel()
	origin := "optr/" + repo
	skey, vkey, err := ledger.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	w, err := witnesstest.Start(t.Context(), "witness.example/w1", map[string]string{origin: vkey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 7, "Say hello", "", "ada")
	gh.SetPermission(repo, "ada", "write")
	run := func(id string) (*job, map[string]string) {
		j := newJob(t, gh, id)
		j.agents("least-bad", `# Answer\n\nhello\n`)
		j.witnessConfig(fmt.Sprintf("    - url: %s\n      key: %s\n", w.URL, w.Key))
		j.Env["OPTR_LEDGER_KEY"] = skey
		j.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "ada"))
		outs, err := j.run()
		if err != nil || outs["status"] != "completed" {
			t.Fatalf("run %s: %v %v\n%s", id, err, outs, j.log.String())
		}
		return j, outs
	}
	for i, id := range []string{"840", "841"} {
		_, outs := run(id)
		cp := outs["ledger-checkpoint"]
		if names, err := tlogwitness.Cosigners([]byte(cp), []string{w.Key}, 1); err != nil || len(names) != 1 {
			t.Fatalf("run %s: the checkpoint is not cosigned: %v\n%s", id, err, cp)
		}
		head, _, err := ledger.OpenCheckpoint([]byte(cp), vkey)
		if err != nil || head.Size != int64(i+1) {
			t.Fatalf("run %s: checkpoint %+v: %v", id, head, err)
		}
		committed, ok := gh.File(repo, "main", fmt.Sprintf(".optr/checkpoints/ledger-%d.cosigned", head.Size))
		if !ok || committed != cp {
			t.Errorf("run %s: the cosigned checkpoint is not committed (%v):\n%s", id, ok, committed)
		}
		if !strings.Contains(finalComment(t, gh, id), cp) {
			t.Errorf("run %s: the final comment does not carry the cosigned checkpoint", id)
		}
		if got := w.Requests(); got != int64(i+1) {
			t.Errorf("after run %s the witness got %d requests, want %d", id, got, i+1)
		}
	}
	w.SetDown(true)
	j, outs := run("842")
	if names, _ := tlogwitness.Cosigners([]byte(outs["ledger-checkpoint"]), []string{w.Key}, 1); len(names) != 0 {
		t.Errorf("a checkpoint cosigned by a witness that is down")
	}
	if !strings.Contains(j.log.String(), "::warning::the ledger checkpoint is not cosigned by witness witness.example/w1") {
		t.Errorf("no warning naming the witness:\n%s", j.log.String())
	}
}

// finalComment is the body of run id's progress comment on issue 7.
func finalComment(t *testing.T, gh *githubtest.Server, id string) string {
	t.Helper()
	for _, c := range gh.Comments(repo, 7) {
		if strings.Contains(c.Body, "<!-- optr:run="+id+"-1 -->") {
			return c.Body
		}
	}
	t.Fatalf("no progress comment of run %s", id)
	return ""
}
