package stages

import (
	"encoding/json"
	"fmt"
	"path"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// FeedbackSource is where the previous completed run of a pipeline left
// its last stage's output.
type FeedbackSource struct {
	// Run and Workflow name the run.
	Run, Workflow string
	// Stage is its last stage.
	Stage string
	// Path is the output file, relative to the datalake root:
	// workflows/<workflow>/runs/<run>/stages/NN_<stage>.out.
	Path string
	// SHA256 is the output's hash, as the ledger recorded it.
	SHA256 string
}

// FeedbackFinder finds, in a ledger read from the start, the last
// completed run of one stages pipeline. Feed it every entry in order
// (Visit fits ledger.Scan), then ask Source. It reads only run entries
// with mode "stages", the pipeline's name and status "completed", so it
// never scans folders and never trusts a run that did not finish.
type FeedbackFinder struct {
	// Pipeline is the pipeline's name.
	Pipeline string
	found    *FeedbackSource
}

var sha256RE = lazyregexp.New(`^[0-9a-f]{64}$`)

// Visit looks at one ledger entry. It never fails: an entry that does not
// fit is skipped.
func (f *FeedbackFinder) Visit(e ledger.Entry) error {
	if e.Kind != ledger.KindRun || str(e.Fields["mode"]) != Mode || str(e.Fields["pipeline"]) != f.Pipeline ||
		str(e.Fields["status"]) != string(status.Completed) {
		return nil
	}
	list, _ := e.Fields["stages"].([]any)
	if len(list) == 0 {
		return nil
	}
	last, _ := list[len(list)-1].(map[string]any)
	stage, sum := str(last["stage"]), str(last["output_sha256"])
	if str(last["status"]) != string(status.Completed) || !sha256RE.MatchString(sum) {
		return nil
	}
	if datalake.ValidateWorkflow(e.Workflow) != nil || datalake.ValidateRunID(e.Run) != nil || datalake.ValidateAgent(stage) != nil {
		return nil
	}
	f.found = &FeedbackSource{
		Run: e.Run, Workflow: e.Workflow, Stage: stage, SHA256: sum,
		Path: path.Join("workflows", e.Workflow, "runs", e.Run, DirStages, fmt.Sprintf("%02d_%s.out", len(list), stage)),
	}
	return nil
}

// Source returns the last completed run seen so far.
func (f *FeedbackFinder) Source() (FeedbackSource, bool) {
	if f.found == nil {
		return FeedbackSource{}, false
	}
	return *f.found, true
}

// LatestFeedback returns the last completed run of pipeline among entries
// (in ledger order).
func LatestFeedback(entries []ledger.Entry, pipeline string) (FeedbackSource, bool) {
	f := FeedbackFinder{Pipeline: pipeline}
	for _, e := range entries {
		_ = f.Visit(e)
	}
	return f.Source()
}

// str returns v when it is a string (or a JSON number's text), else "".
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}
