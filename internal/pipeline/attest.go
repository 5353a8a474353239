package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger/attest"
)

// attest writes optr-attestation.json into the run folder once the run is
// recorded: an in-toto Statement whose subjects are the ledger file and the
// result file by SHA-256, and whose predicate holds the run id, the intent
// hash, every candidate's digest and score and the ledger head (DESIGN
// §4.13; docs/ledger-and-provenance.md shows how to hand it to
// actions/attest). It is written after the commit, so it stays in the
// workspace for the job's later steps.
// A ledger or result outside the workspace has no repository-relative name,
// so such a run gets no attestation.
func (rep *Report) attest() error {
	if len(rep.Entries) == 0 {
		return nil
	}
	var subjects []attest.Subject
	for _, path := range []string{rep.Spec.LedgerPath, rep.resultFile()} {
		if path == "" {
			continue
		}
		name := rep.Spec.DisplayPath(path)
		if filepath.IsAbs(name) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("attest %s: %w", name, err)
		}
		subjects = append(subjects, attest.FileSubject(filepath.ToSlash(name), data))
	}
	run := attest.Run{
		RunID: rep.Spec.RunID, Workflow: rep.Spec.Workflow, Selected: rep.Selected, Commit: rep.Spec.Commit,
		IntentSHA256: executor.SHA256Hex(rep.Spec.Intent), Ledger: attest.HeadOf(rep.Entries[len(rep.Entries)-1].Head()),
	}
	for _, row := range rep.Selection.Rows {
		c := attest.Candidate{Agent: row.Agent, Admissible: row.Admissible, Score: row.Score}
		if r := rep.result(row.Agent); r != nil {
			c.OutputSHA256 = r.OutputSHA256
		}
		run.Candidates = append(run.Candidates, c)
	}
	st, err := attest.New(run, subjects...)
	if err != nil {
		return err
	}
	data, err := st.JSON()
	if err != nil {
		return err
	}
	return rep.Run.WriteFile(attest.FileName, data)
}

// resultFile is the absolute path of the run's result file (result.md, or
// a mode's own such as OVERVIEW.md), "" when there is none.
func (rep *Report) resultFile() string {
	if rep.ResultPath == "" {
		return ""
	}
	if filepath.IsAbs(rep.ResultPath) {
		return rep.ResultPath
	}
	return filepath.Join(rep.Spec.Dir, rep.ResultPath)
}
