package actionrun

import (
	"context"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/pipeline"
)

// commitBack commits the ledger, the run's files and extra (absolute paths
// of other files, such as a checkpoint's state) to the ledger branch in one
// commit. The run's entries are re-chained onto whatever the branch
// holds, however often it moves under us; afterwards the workspace ledger
// is exactly the committed one. It returns the commit's sha ("" when commit
// is off).
func (j *Job) commitBack(ctx context.Context, rep *pipeline.Report, extra ...string) (string, error) {
	if !j.in.Commit {
		j.log.Infof("commit: false — the ledger and the run's files stay in the workspace")
		return "", nil
	}
	paths, err := rep.Run.Files()
	if err != nil {
		return "", fmt.Errorf("list the run's files: %w", err)
	}
	files := map[string][]byte{}
	for _, p := range append(paths, extra...) {
		rel, err := rep.Spec.WorkspacePath(p)
		if err != nil {
			return "", fmt.Errorf("commit %s: %w", p, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", rel, err)
		}
		files[rel] = data
	}
	ledgerRel, err := rep.Spec.WorkspacePath(rep.Spec.LedgerPath)
	if err != nil {
		return "", fmt.Errorf("commit the ledger: %w", err)
	}
	mine := rep.Entries
	var placed []ledger.Entry
	res, err := j.gh.CommitBack(ctx, github.CommitRequest{
		Branch:     j.ledgerBranch(rep),
		Message:    fmt.Sprintf("optr: record run %s of %s\n\nselected: %s, status: %s", rep.Spec.RunID, rep.Spec.Workflow, orNone(rep.Selected), rep.Status),
		LedgerPath: ledgerRel,
		Files:      files,
		Rechain: func(remote []byte) ([]byte, error) {
			appended, re, err := ledger.Rechain(remote, mine)
			if err != nil {
				return nil, err
			}
			placed = re
			return append(append([]byte(nil), remote...), appended...), nil
		},
	})
	if err != nil {
		return "", fmt.Errorf("commit the ledger: %w", err)
	}
	j.log.Infof("committed %s on %s (%d attempt(s), %d conflict(s), %d request(s))",
		res.CommitSHA, res.Branch, res.Attempts, res.Conflicts, res.Requests)
	if len(placed) > 0 {
		rep.Entries = placed
		rep.LedgerHash = placed[len(placed)-1].Hash
	}
	if err := datalake.Replace(rep.Spec.LedgerPath, res.Ledger); err != nil {
		return res.CommitSHA, fmt.Errorf("update the workspace ledger to the committed one: %w", err)
	}
	return res.CommitSHA, nil
}

func (j *Job) ledgerBranch(rep *pipeline.Report) string {
	if j.in.LedgerBranch != "" {
		return j.in.LedgerBranch
	}
	return rep.Spec.Config.Ledger.Branch
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
