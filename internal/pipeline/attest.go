package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger/attest"
)

// attest writes optr-attestation.json into the run folder once the run is
// recorded: an in-toto Statement whose subjects, by SHA-256, are only what
// never changes after the run — the result file and the line of the run's
// ledger entry (ledger.jsonl keeps growing) — and whose predicate holds the
// run id, the intent hash, every candidate's digest and score, the ledger
// head and the ledger's checkpoint (architecture §4.13;
// docs/ledger-and-provenance.md shows how to hand it to actions/attest). It
// is written after the commit, so it stays in the workspace for the job's
// later steps. Subjects are named relative to the
// workspace, or to the datalake when it lies outside the workspace.
func (rep *report) attest() error {
	if len(rep.Entries) == 0 {
		return nil
	}
	var subjects []attest.Subject
	if path := rep.resultFile(); path != "" {
		// Hashed as it is read: the result may be an output of many MiB.
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("attest %s: %w", rep.Spec.DisplayPath(path), err)
		}
		sub, err := attest.ReaderSubject(rep.subjectName(path), f)
		f.Close()
		if err != nil {
			return fmt.Errorf("attest %s: %w", rep.Spec.DisplayPath(path), err)
		}
		subjects = append(subjects, sub)
	}
	last := rep.Entries[len(rep.Entries)-1]
	line, err := last.Line()
	if err != nil {
		return fmt.Errorf("attest the ledger entry: %w", err)
	}
	subjects = append(subjects, attest.EntrySubject(rep.subjectName(rep.Spec.LedgerPath), last.Seq, line))
	run := attest.Run{
		RunID: rep.Spec.RunID, Workflow: rep.Spec.Workflow, Selected: rep.Selected, Commit: rep.Spec.Commit,
		IntentSHA256: executor.SHA256Hex(rep.Spec.Intent), Ledger: attest.HeadOf(last.Head()),
		Checkpoint: rep.LedgerCheckpoint,
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
	return rep.run.WriteFile(attest.FileName, data)
}

// subjectName names a file in the attestation: relative to the workspace,
// else to the datalake, else by its base name.
func (rep *report) subjectName(path string) string {
	if name := rep.Spec.DisplayPath(path); !filepath.IsAbs(name) {
		return filepath.ToSlash(name)
	}
	lake, err1 := filepath.Abs(rep.Spec.Datalake)
	abs, err2 := filepath.Abs(path)
	if rel, err := filepath.Rel(lake, abs); err1 == nil && err2 == nil && err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// resultFile is the absolute path of the run's result file (result.md, or
// a mode's own such as OVERVIEW.md), "" when there is none.
func (rep *report) resultFile() string {
	if rep.ResultPath == "" {
		return ""
	}
	if filepath.IsAbs(rep.ResultPath) {
		return rep.ResultPath
	}
	return filepath.Join(rep.Spec.Dir, rep.ResultPath)
}
