package actionrun

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/optr-dev/optr/internal/commitback"
	"github.com/optr-dev/optr/internal/datalake"
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
	committer := commitback.Committer{Store: j.gh, Sleep: j.Sleep}
	res, err := committer.Commit(ctx, commitback.Request{
		Branch:     r.branch,
		Message:    commitMessage(rep),
		LedgerPath: ledgerRel,
		Drafts:     drafts,
		Files:      files,
		Paths:      local,
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
	return pipeline.Recorded{Entries: res.Entries, Commit: res.CommitSHA}, nil
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

// checkpointOf is the C2SP checkpoint of the ledger the run recorded,
// signed with OPTR_LEDGER_KEY when that is set (DESIGN §4.13); "" when the
// run recorded nothing or the checkpoint cannot be made (said in the log).
// It is computed once per ledger head: from the commit-back's result
// (keepCheckpoint) when the run committed, else from the workspace's
// ledger.
func (j *Job) checkpointOf(rep *pipeline.Report) string {
	if rep.LedgerHash == "" {
		return ""
	}
	if j.checkpoint.head == rep.LedgerHash {
		return j.checkpoint.text
	}
	cp, err := ledger.HeadCheckpoint(rep.Spec.LedgerPath, ledger.Origin(j.env.Repository), j.ledgerKey())
	if err != nil {
		j.log.Warning("could not make the ledger checkpoint: " + err.Error())
		return ""
	}
	j.checkpoint.head, j.checkpoint.text = rep.LedgerHash, string(cp)
	return j.checkpoint.text
}

// keepCheckpoint keeps the checkpoint of the ledger a commit-back
// committed, made from what it committed (commitback.Result.Checkpoint).
//
// This is where a commit-back that moved the ledger (res.Moved()) hands
// its signed checkpoint to the C2SP witnesses (DESIGN §4.13), with
// res.Previous.Seq as the size they last saw.
func (j *Job) keepCheckpoint(res commitback.Result) {
	cp, err := res.Checkpoint(ledger.Origin(j.env.Repository), j.ledgerKey())
	if err != nil {
		j.log.Warning("could not make the ledger checkpoint: " + err.Error())
		return
	}
	j.checkpoint.head, j.checkpoint.text = res.Head.Hash, string(cp)
}

// ledgerKey is OPTR_LEDGER_KEY, the signed-note private key of the
// ledger's checkpoints, "" when unset.
func (j *Job) ledgerKey() string { return strings.TrimSpace(j.Getenv("OPTR_LEDGER_KEY")) }
