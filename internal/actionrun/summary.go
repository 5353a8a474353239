package actionrun

import (
	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
)

// summary writes the job summary: score table, diagram, ledger hash.
func (j *Job) summary(rep *pipeline.Report) {
	v := rep.View()
	v.Commit = rep.Commit
	if rep.Commit != "" {
		v.CommitURL = j.commitURL(rep.Commit)
	}
	if _, err := action.NewSummary(j.env.SummaryPath).Append(progress.Summary(v)); err != nil {
		j.log.Warning("could not write the job summary: " + err.Error())
	}
}
