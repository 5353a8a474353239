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

// recorder is where the Action records a run: committed compare-and-swap
// to the ledger branch, or (commit: false) appended to the workspace
// ledger.
func (j *Job) recorder(branch string, ledgerPath string) pipeline.Recorder {
	if !j.in.Commit {
		return pipeline.FileRecorder{Path: ledgerPath}
	}
	return &commitRecorder{j: j, branch: branch}
}

// inlineMax is the largest run file read into memory for the commit; a
// larger one (an agent output of tens of MiB) is uploaded from its file.
const inlineMax = 1 << 20

// commitRecorder commits a run's ledger entries and files to the ledger
// branch in one commit. The entries are chained onto whatever the branch
// holds when the commit lands, however often it moves under us, and the
// entries returned are exactly the committed ones; afterwards the
// workspace ledger is the committed ledger.
type commitRecorder struct {
	j      *Job
	branch string
}

// Record implements pipeline.Recorder.
func (r *commitRecorder) Record(ctx context.Context, rep *pipeline.Report, drafts []ledger.Draft, paths []string) (pipeline.Recorded, error) {
	j := r.j
	files := make(map[string][]byte, len(paths))
	local := map[string]string{}
	for _, p := range paths {
		rel, err := rep.Spec.WorkspacePath(p)
		if err != nil {
			return pipeline.Recorded{}, fmt.Errorf("commit %s: %w", p, err)
		}
		if st, err := os.Stat(p); err == nil && st.Size() > inlineMax {
			local[rel] = p // streamed from the file as a blob, never read whole
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return pipeline.Recorded{}, fmt.Errorf("read %s: %w", rel, err)
		}
		files[rel] = data
	}
	ledgerRel, err := rep.Spec.WorkspacePath(rep.Spec.LedgerPath)
	if err != nil {
		return pipeline.Recorded{}, fmt.Errorf("commit the ledger: %w", err)
	}
	// The drafts are chained once, on an empty head, only to give them
	// their identity; Rechain places them on the branch's ledger.
	mine, err := ledger.Chain(ledger.Head{}, drafts...)
	if err != nil {
		return pipeline.Recorded{}, err
	}
	var placed []ledger.Entry
	res, err := j.gh.CommitBack(ctx, github.CommitRequest{
		Branch:     r.branch,
		Message:    commitMessage(rep),
		LedgerPath: ledgerRel,
		Files:      files,
		Paths:      local,
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
		return pipeline.Recorded{}, fmt.Errorf("commit the ledger to %s: %w", r.branchName(), err)
	}
	j.log.Infof("committed %s on %s (%d attempt(s), %d conflict(s), %d request(s))",
		res.CommitSHA, res.Branch, res.Attempts, res.Conflicts, res.Requests)
	j.committed = res.Ledger
	if err := datalake.Replace(rep.Spec.LedgerPath, res.Ledger); err != nil {
		j.log.Warning("the run is committed, but the workspace ledger could not be updated to the committed one: " + err.Error())
	}
	j.keepCheckpoint(res)
	return pipeline.Recorded{Entries: placed, Commit: res.CommitSHA}, nil
}

func (r *commitRecorder) branchName() string {
	if r.branch == "" {
		return "the default branch"
	}
	return "branch " + r.branch
}

func commitMessage(rep *pipeline.Report) string {
	return fmt.Sprintf("optr: record run %s of %s\n\nselected: %s, status: %s",
		rep.Spec.RunID, rep.Spec.Workflow, orNone(rep.Selected), rep.Status)
}

func (j *Job) ledgerBranch(cfgBranch string) string {
	if j.in.LedgerBranch != "" {
		return j.in.LedgerBranch
	}
	return cfgBranch
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
