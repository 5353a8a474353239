package actionrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/commitback"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
	outcomes "github.com/optr-dev/optr/internal/outcome"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/standings"
	"github.com/optr-dev/optr/internal/status"
)

// Outcomes (architecture §4.19): what people did with the pull requests optr
// opened, recorded in the ledger from the pull_request.closed event, or,
// where the workflow does not trigger on it, read through the API at the
// next run.

// openedSkew is how long before a pull request's opening the ledger is
// read for the run that opened it: the run's entry follows the opening,
// but the runner's clock and GitHub's may disagree.
const openedSkew = 24 * time.Hour

// outcome records the outcome of the pull request a pull_request.closed
// event is about, when optr opened it: nothing runs and nothing is
// posted. Who closed it does not matter (a bot's merge is recorded as a
// bot's): the event only says where to look, and what is recorded is read
// through the API — the pull request, who merged or closed it, and the
// ledger's run that opened it. A pull request optr did not open, one open
// again, or one whose outcome is recorded already records nothing, said
// in one line of the log.
func (j *Job) outcome(ctx context.Context, trig action.Trigger) error {
	if trig.Issue == 0 {
		j.log.Infof("skipped: the %s event names no pull request", trig.EventName)
		return j.skip("")
	}
	if err := j.connect(ctx); err != nil {
		return err
	}
	cfg, err := j.defaultBranchConfig(ctx)
	if err != nil {
		j.log.Error(err.Error())
		j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: err.Error()})
		return err
	}
	pull, err := j.gh.PullRequest(ctx, trig.Issue)
	if err != nil {
		return j.outcomeFailed(err)
	}
	spec := j.outcomeSpec(cfg)
	branch := j.ledgerBranch(cfg.Ledger.Branch)
	h, err := outcomes.Read(ctx, j.ledgerStore(branch, spec.LedgerPath), pull.Created.Add(-openedSkew))
	if err != nil {
		return j.outcomeFailed(err)
	}
	o, why, err := outcomes.CloseRead(ctx, j.gh, h, pull, outcomes.FromEvent)
	if err != nil {
		return j.outcomeFailed(err)
	}
	if why != "" {
		j.log.Infof("nothing recorded: %s", why)
		return j.skip("")
	}
	rec, err := j.recordOutcomes(ctx, spec, branch, []outcomes.Outcome{o})
	if err != nil {
		return j.outcomeFailed(err)
	}
	j.log.Notice(fmt.Sprintf("recorded the outcome of %s (run %s of %s, π* %s)", o.Describe(), o.Run, o.Workflow, o.Agent))
	out := outcome{status: status.Completed, runID: j.env.RunID(), pullRequest: o.PullRequest, pullRequestURL: pull.URL,
		ledgerCommit: rec.commit, ledgerCheckpoint: j.checkpoint.text}
	if len(rec.entries) > 0 {
		out.ledgerHash = rec.entries[len(rec.entries)-1].Hash
	}
	j.setOutputs(out)
	j.outcomeSummary(ctx, spec, branch, []outcomes.Outcome{o})
	return nil
}

func (j *Job) outcomeFailed(err error) error {
	j.log.Error("could not record the pull request's outcome: " + err.Error())
	j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: err.Error()})
	return &FailedError{Err: err}
}

// defaultBranchConfig reads the config as the default branch holds it:
// an outcome's job needs no checkout, and a checkout of a pull request's
// merge would be the change's, not the repository's, config. A config
// outside the workspace is read as for any run.
func (j *Job) defaultBranchConfig(ctx context.Context) (*config.Config, error) {
	file, explicit := j.configPath()
	rel, ok := j.workspaceRel(file)
	if !ok {
		cfg, err := j.loadConfig()
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		return cfg, nil
	}
	branch, err := j.gh.DefaultBranch(ctx)
	if err != nil {
		return nil, err
	}
	tip, err := j.gh.ReadTip(ctx, branch)
	var data []byte
	switch {
	case errors.Is(err, gitdata.ErrEmptyRepository):
	case err != nil:
		return nil, fmt.Errorf("read the default branch %s: %w", branch, err)
	default:
		if data, err = j.gh.ReadFileAt(ctx, tip.SHA, rel); err != nil {
			return nil, fmt.Errorf("read %s on %s: %w", rel, branch, err)
		}
	}
	cfg, err := config.ParseOrDefault(j.inWorkspace(file), data, explicit, j.agentEnv)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("the config on %s: %w", branch, err)}
	}
	return j.settle(cfg)
}

// outcomeSpec is where outcomes under cfg are recorded: the job's datalake
// and ledger.
func (j *Job) outcomeSpec(cfg *config.Config) pipeline.Spec {
	return pipeline.Spec{Config: cfg, Dir: j.workspace(), Datalake: j.datalake(), LedgerPath: datalake.Open(j.datalake()).LedgerPath()}
}

// recorded is what recordOutcomes committed.
type recorded struct {
	entries []ledger.Entry
	commit  string
}

// recordOutcomes appends the outcomes to the ledger in one commit on the
// ledger branch (or, with commit: false, to the workspace's ledger), as a
// run's entries are: chained onto whatever the branch holds when the
// commit lands (an outcome another job recorded meanwhile is not
// recorded again), sealed, checkpointed and witnessed.
func (j *Job) recordOutcomes(ctx context.Context, spec pipeline.Spec, branch string, os []outcomes.Outcome) (recorded, error) {
	now := j.Now().UTC()
	drafts := make([]ledger.Draft, len(os))
	names := make([]string, len(os))
	for i, o := range os {
		drafts[i] = o.Draft(now)
		names[i] = o.Describe()
	}
	if !j.in.Commit {
		entries, err := ledger.Append(spec.LedgerPath, drafts...)
		return recorded{entries: entries}, err
	}
	ledgerRel, err := spec.WorkspacePath(spec.LedgerPath)
	if err != nil {
		return recorded{}, err
	}
	committer := commitback.Committer{Store: j.gh, Sleep: j.Sleep}
	res, err := committer.Commit(ctx, commitback.Request{
		Branch:     branch,
		Message:    "optr: record what became of " + strings.Join(names, ", "),
		LedgerPath: ledgerRel,
		Drafts:     drafts,
		Known:      j.known(branch, ledgerRel),
	})
	if err != nil {
		return recorded{}, fmt.Errorf("commit the ledger to %s: %w", orDefault(branch), err)
	}
	j.log.Infof("committed %s on %s (%d attempt(s), %d conflict(s), %d request(s))", res.CommitSHA, res.Branch, res.Attempts, res.Conflicts, res.Requests)
	j.committedTo(branch, ledgerRel, res)
	if err := datalake.Replace(spec.LedgerPath, res.Ledger); err != nil {
		j.log.Warning("the outcome is committed, but the workspace ledger could not be updated to the committed one: " + err.Error())
	}
	j.keepCheckpoint(res)
	if res.Moved() {
		j.witness(ctx, branch, spec, res)
	}
	return recorded{entries: res.Entries, commit: res.CommitSHA}, nil
}

func orDefault(branch string) string {
	if branch == "" {
		return "the default branch"
	}
	return branch
}

// sweepOutcomes is the next run's read of what became of optr's pull
// requests (outcome.Sweep), recorded before the run starts, so that its
// standings and recommendations count them. It never stops the run: what
// goes wrong is a warning, and the next run tries again.
func (j *Job) sweepOutcomes(ctx context.Context, spec pipeline.Spec) {
	branch := j.ledgerBranch(spec.Config.Ledger.Branch)
	now := j.Now().UTC()
	h, err := outcomes.Read(ctx, j.ledgerStore(branch, spec.LedgerPath), now.Add(-outcomes.SweepWindow))
	if err == nil {
		var found []outcomes.Outcome
		var notes []string
		found, notes, err = outcomes.Sweep(ctx, j.gh, h, now)
		for _, n := range notes {
			j.log.Infof("outcomes: %s", n)
		}
		if len(found) > 0 {
			if _, rerr := j.recordOutcomes(ctx, spec, branch, found); rerr != nil {
				err = errors.Join(err, rerr)
			} else {
				for _, o := range found {
					j.log.Infof("recorded the outcome of %s (run %s of %s, π* %s)", o.Describe(), o.Run, o.Workflow, o.Agent)
				}
			}
		}
	}
	if err != nil {
		j.log.Warning("could not read what became of optr's earlier pull requests; the next run tries again: " + err.Error())
	}
}

// outcomeSummary writes an outcome job's step summary: what was recorded,
// and the standings it moved.
func (j *Job) outcomeSummary(ctx context.Context, spec pipeline.Spec, branch string, os []outcomes.Outcome) {
	var b strings.Builder
	b.WriteString("## optr: outcomes recorded\n\n")
	for _, o := range os {
		fmt.Fprintf(&b, "- %s — run `%s` of `%s`, π* %s\n", o.Describe(), o.Run, o.Workflow, o.Agent)
	}
	now := j.Now().UTC()
	if s, err := standings.Read(ctx, j.ledgerStore(branch, spec.LedgerPath), now.Add(-standingsSpan), now); err != nil {
		j.log.Warning("the step summary has no standings: " + err.Error())
	} else {
		b.WriteString("\n" + standings.Markdown(s, "the last 30 days"))
	}
	if _, err := action.NewSummary(j.env.SummaryPath).Append(b.String()); err != nil {
		j.log.Warning("could not write the job summary: " + err.Error())
	}
}
