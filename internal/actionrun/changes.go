package actionrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/changes"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/redact"
)

// deliverer is the Action's pipeline.Deliverer (architecture §4.12, §4.16). For
// changes.mode pull-request it pushes π*'s patch as one commit on
// optr/<workflow>/<run-id> from the base's tip and opens the pull request
// — with the pr-token when there is one, so that the repository's
// pull_request workflows run, else starting the changes.ci workflows on
// the branch — or, for an iteration, pushes it as one new commit on the
// pull request's branch; for apply it applies the patch to the runner's
// workspace, for the workflow's later steps. The Driver calls it after
// threat detection and before recording the run, so the `run` entry
// records the pull request's number.
type deliverer struct {
	j      *Job
	trig   action.Trigger
	branch string // the ledger branch ("" = the default branch)
	// from is the commit an iteration's agents started from ("" when
	// unknown: a resumed run).
	from string
}

// Deliver implements pipeline.Deliverer.
func (d *deliverer) Deliver(ctx context.Context, rep *pipeline.Outcome, patch []byte) (pipeline.Delivery, error) {
	j := d.j
	cfg := rep.Spec.Config.Changes
	if cfg.Mode == config.ChangesApply {
		return pipeline.ApplyChange{}.Deliver(ctx, rep, patch)
	}
	if rep.Spec.PullRequest != 0 {
		return d.iterate(ctx, rep, patch)
	}
	branch, err := changes.BranchName(rep.Spec.Workflow, rep.Spec.RunID)
	if err != nil {
		return pipeline.Delivery{}, err
	}
	push, err := j.pushClient(ctx)
	if err != nil {
		return pipeline.Delivery{}, err
	}
	red := d.redactor(rep.Spec.Config)
	title := red.String(fmt.Sprintf("optr: %s (π* = %s)", title(d.trig), rep.Selected))
	opened, err := changes.OpenPullRequest(ctx, push, patch, changes.PullRequest{
		Base:    cfg.Base,
		Branch:  branch,
		Message: red.String(attribution(rep).Message(title, fmt.Sprintf("The change of %s, selected by optr run %s of %s.", rep.Selected, rep.Spec.RunID, rep.Spec.Workflow))),
		Title:   title,
		Body:    red.String(d.body(ctx, rep)),
		Draft:   cfg.Draft,
		Pushed:  func(ctx context.Context, branch string) string { return red.String(d.ci(ctx, cfg.CI, branch)) },
	})
	if err != nil {
		return pipeline.Delivery{}, err
	}
	j.log.Notice(fmt.Sprintf("opened pull request #%d from %s into %s: %s", opened.Number, opened.Branch, opened.Base, opened.URL))
	return pipeline.Delivery{PullRequest: opened.Number, URL: opened.URL, Branch: opened.Branch}, nil
}

// attribution is who wrote π*'s change: the run, π* and the model it
// answered with (architecture §4.19).
func attribution(rep *pipeline.Outcome) changes.Attribution {
	a := changes.Attribution{Run: rep.Spec.RunID, Agent: rep.Selected}
	if r := rep.Result(rep.Selected); r != nil {
		a.Model = r.Model
	}
	return a
}

// writtenBy names π*'s agent and model for a pull request's body, as its
// commits' Assisted-by trailer does.
func writtenBy(rep *pipeline.Outcome) string {
	a := attribution(rep)
	if a.Model == "" {
		return fmt.Sprintf("agent `%s` (its model is not known: `Assisted-by: %s:%s`)", a.Agent, a.Agent, changes.UnknownModel)
	}
	return fmt.Sprintf("agent `%s` with model `%s` (`Assisted-by: %s:%s`)", a.Agent, a.Model, a.Agent, a.Model)
}

// scores writes what a pull request's body says of rep after its opening
// line: a link to the Actions run, the score table (when it is longer
// than limit characters, where to find it instead) and π*'s change.
func (d *deliverer) scores(b *strings.Builder, rep *pipeline.Outcome, limit int) {
	if u := d.j.runURL(); u != "" {
		fmt.Fprintf(b, " [Actions run](%s)", u)
	}
	b.WriteString("\n\n")
	table := progress.Table(rep.View())
	if utf8.RuneCountInString(table) > limit {
		table = fmt.Sprintf("The score table of %d agents is too long for a pull request; it is in the run's optr-selection.json.\n", len(rep.Results))
	}
	b.WriteString(table)
	if r := rep.Result(rep.Selected); r != nil && r.Change != nil {
		fmt.Fprintf(b, "\n%d files changed, +%d −%d · patch sha256 `%s`\n", len(r.Change.Files), r.Change.Added, r.Change.Removed, r.Change.PatchSHA256)
	}
}

// maxBodyTable bounds the score table in a pull request's body, well
// within GitHub's 65,536 characters for the whole body.
const maxBodyTable = 50_000

// body is the pull request's description: what optr selected and why (the
// score table), the ledger head the run's entry will follow, and Closes #N
// for an issue run.
func (d *deliverer) body(ctx context.Context, rep *pipeline.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "optr run `%s` of `%s` selected **%s** (π*) among %d agents; this is its change, written by %s.", rep.Spec.RunID, rep.Spec.Workflow, rep.Selected, len(rep.Results), writtenBy(rep))
	d.scores(&b, rep, maxBodyTable)
	if head, err := d.ledgerHead(ctx, rep); err != nil {
		d.j.log.Warning("could not read the ledger head for the pull request: " + err.Error())
	} else if head.Seq > 0 {
		fmt.Fprintf(&b, "\nLedger head when this pull request was opened: `%s` (seq %d); the run's `run` entry, which records this pull request, is chained after it.\n", head.Hash, head.Seq)
	} else {
		b.WriteString("\nThe ledger was empty when this pull request was opened; the run's `run` entry, which records it, is its first.\n")
	}
	if d.trig.Issue != 0 {
		fmt.Fprintf(&b, "\nCloses #%d\n", d.trig.Issue)
	}
	return b.String()
}

// ledgerHead is the head of the ledger the run will be recorded in: the
// ledger branch's, or the workspace ledger's with commit: false.
func (d *deliverer) ledgerHead(ctx context.Context, rep *pipeline.Outcome) (ledger.Head, error) {
	if !d.j.in.Commit {
		h, err := ledger.TailHead(rep.Spec.LedgerPath)
		if errors.Is(err, fs.ErrNotExist) {
			return ledger.Head{}, nil
		}
		return h, err
	}
	data, err := d.j.store(d.branch).ReadFile(ctx, rep.Spec.LedgerPath)
	if err != nil || len(data) == 0 {
		return ledger.Head{}, err
	}
	return ledger.HeadOf(data)
}

// redactor knows the secret values of the job's environment, every value
// the config hands an agent (redact.ForConfig) and the tokens: nothing
// optr posts may hold them.
func (d *deliverer) redactor(cfg *config.Config) *redact.Redactor {
	return redact.ForConfig(cfg, d.j.Getenv, d.j.in.GitHubToken, d.j.in.PRToken)
}
