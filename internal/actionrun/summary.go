package actionrun

import (
	"context"
	"time"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/standings"
)

// standingsSpan is the window of the standings every step summary ends
// with (architecture §4.17).
const standingsSpan = 30 * 24 * time.Hour

// summary writes the job summary: score table, diagram, ledger hash, and
// the agents' standings over the last 30 days.
func (j *Job) summary(ctx context.Context, rep *pipeline.Outcome) {
	v := rep.View()
	v.Commit = rep.Commit
	if rep.Commit != "" {
		v.CommitURL = j.commitURL(rep.Commit)
	}
	text := progress.Summary(v)
	if s, err := j.standings(ctx, rep); err != nil {
		j.log.Warning("the step summary has no standings: " + err.Error())
	} else {
		text += "\n" + standings.Markdown(s, "the last 30 days")
	}
	if _, err := action.NewSummary(j.env.SummaryPath).Append(text); err != nil {
		j.log.Warning("could not write the job summary: " + err.Error())
	}
}

// standings reads the agents' standings over the last 30 days from the
// ledger runs are committed to — the one this run was just recorded in.
func (j *Job) standings(ctx context.Context, rep *pipeline.Outcome) (*standings.Standings, error) {
	now := j.Now().UTC()
	branch := j.in.LedgerBranch
	if rep.Spec.Config != nil {
		branch = j.ledgerBranch(rep.Spec.Config.Ledger.Branch)
	}
	st := j.ledgerStore(branch, rep.Spec.LedgerPath)
	if b, ok := st.(*branchLedger); ok && j.committed != nil {
		b.active = j.committed // just committed: no need to read it back
	}
	return standings.Read(ctx, st, now.Add(-standingsSpan), now)
}
