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
		return pipeline.FileRecorder{Path: ledgerPath, Origin: ledger.Origin(j.env.Repository), Key: j.signingKey()}
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
func (r *commitRecorder) Record(ctx context.Context, rep *pipeline.Outcome, drafts []ledger.Draft, paths []string) (pipeline.Recorded, error) {
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
		Known:      j.known(r.branch, ledgerRel),
	})
	if err != nil {
		return pipeline.Recorded{}, fmt.Errorf("commit the ledger to %s: %w", r.branchName(), err)
	}
	j.log.Infof("committed %s on %s (%d attempt(s), %d conflict(s), %d request(s))",
		res.CommitSHA, res.Branch, res.Attempts, res.Conflicts, res.Requests)
	j.committedTo(r.branch, ledgerRel, res)
	if err := datalake.Replace(rep.Spec.LedgerPath, res.Ledger); err != nil {
		j.log.Warning("the run is committed, but the workspace ledger could not be updated to the committed one: " + err.Error())
	}
	j.keepCheckpoint(res)
	if res.Moved() {
		j.witness(ctx, r.branch, rep.Spec, res)
	}
	return pipeline.Recorded{Entries: res.Entries, Commit: res.CommitSHA, Checkpoint: j.checkpoint.text}, nil
}

// witness has the checkpoint of the ledger a commit-back just moved
// cosigned by the config's witnesses (cosign), from res.Previous, the
// size before the run's entries, and commits the cosigned checkpoint to
// the ledger branch in a commit of its own: the size a witness cosigns is
// known only once the run's commit landed. The cosigned checkpoint
// becomes the run's checkpoint (the output, the final comment).
func (j *Job) witness(ctx context.Context, branch string, spec pipeline.Spec, res commitback.Result) {
	ws := spec.Config.Ledger.Witnesses
	if len(ws) == 0 || j.checkpoint.text == "" {
		return
	}
	signed := []byte(j.checkpoint.text)
	head, isSigned, err := ledger.OpenCheckpoint(signed, "")
	if err != nil || !isSigned {
		j.log.Warning("the ledger checkpoint is not signed, so no witness can cosign it")
		return
	}
	cosigned, path := j.cosign(ctx, ws, spec.Datalake, signed, head, res.Previous.Seq, res.LastTree, res.Ledger)
	j.checkpoint.text = string(cosigned)
	if path == "" {
		return
	}
	rel, err := spec.WorkspacePath(path)
	if err == nil {
		var ledgerRel string
		if ledgerRel, err = spec.WorkspacePath(spec.LedgerPath); err == nil {
			committer := commitback.Committer{Store: j.gh, Sleep: j.Sleep}
			_, err = committer.Commit(ctx, commitback.Request{
				Branch:     branch,
				Message:    fmt.Sprintf("optr: the witnesses' cosignatures of the ledger at size %d", head.Size),
				LedgerPath: ledgerRel,
				Files:      map[string][]byte{rel: cosigned},
				Known:      res.Ledger,
			})
		}
	}
	if err != nil {
		j.log.Warning(fmt.Sprintf("the cosigned checkpoint is in %s, but could not be committed: %v", path, err))
	}
}

func (r *commitRecorder) branchName() string {
	if r.branch == "" {
		return "the default branch"
	}
	return "branch " + r.branch
}

func commitMessage(rep *pipeline.Outcome) string {
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
// signed with OPTR_LEDGER_KEY when that is set (architecture §4.13); "" when the
// run recorded nothing or the checkpoint cannot be made (said in the log).
// It is computed once per ledger head: from the commit-back's result
// (keepCheckpoint) when the run committed, else from the workspace's
// ledger.
func (j *Job) checkpointOf(rep *pipeline.Outcome) string {
	if rep.LedgerHash == "" {
		return ""
	}
	if j.checkpoint.head == rep.LedgerHash {
		return j.checkpoint.text
	}
	cp, err := ledger.HeadCheckpoint(rep.Spec.LedgerPath, ledger.Origin(j.env.Repository), j.signingKey())
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
// It is signed with OPTR_LEDGER_KEY when that key is named after the
// ledger's origin (checkLedgerKey warned otherwise).
func (j *Job) keepCheckpoint(res commitback.Result) {
	cp, err := res.Checkpoint(ledger.Origin(j.env.Repository), j.signingKey())
	if err != nil {
		j.log.Warning("could not make the ledger checkpoint: " + err.Error())
		return
	}
	j.checkpoint.head, j.checkpoint.text = res.Head.Hash, string(cp)
}

// ledgerKey is OPTR_LEDGER_KEY, the signed-note private key of the
// ledger's checkpoints, "" when unset.
func (j *Job) ledgerKey() string { return strings.TrimSpace(j.Getenv("OPTR_LEDGER_KEY")) }
