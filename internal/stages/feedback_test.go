package stages

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// runEntry is the ledger run entry a driver writes for out.
func runEntry(run *datalake.Run, out *Outcome) ledger.Draft {
	f := out.LedgerFields()
	f["status"] = string(out.Status)
	return ledger.Draft{Kind: ledger.KindRun, Run: run.ID, Workflow: run.Workflow, Time: time.Unix(1e9, 0), Fields: f}
}

// TestFeedbackLoop runs the demo twice in one datalake: the second run's
// first stage gets, through the ledger, the last stage's output of the
// first run.
func TestFeedbackLoop(t *testing.T) {
	t.Parallel()
	lake := datalake.Open(t.TempDir())
	c, factory, _ := demo(t)
	first := newRun(t, lake, "r1")
	out1, err := Run(t.Context(), input(first, c, factory, nil, nil))
	if err != nil || out1.Status != status.Completed {
		t.Fatalf("first run: %v, %+v", err, out1)
	}
	if strings.Contains(out1.Stages[0].output, "Last time") {
		t.Errorf("the first run's first stage got feedback:\n%s", out1.Stages[0].output)
	}

	// The ledger as the driver writes it: an unrelated run, the demo run,
	// then a failed run of the same pipeline that must not count.
	other := runEntry(first, out1)
	other.Run, other.Fields["pipeline"] = "x1", "other"
	failed := runEntry(first, out1)
	failed.Run, failed.Fields["status"] = "r0", "failed"
	entries, err := ledger.Chain(ledger.Head{}, other, runEntry(first, out1), failed)
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(line)
	}
	finder := FeedbackFinder{Pipeline: "decide"}
	if err := ledger.Scan(&lines, finder.Visit); err != nil {
		t.Fatal(err)
	}
	src, ok := finder.Source()
	want := FeedbackSource{Run: "r1", Workflow: "wf", Stage: "mind", SHA256: out1.OutputSHA256,
		Path: "workflows/wf/runs/r1/stages/04_mind.out"}
	if diff := cmp.Diff(want, src); !ok || diff != "" {
		t.Fatalf("feedback source (-want +got):\n%s", diff)
	}
	if got, _ := LatestFeedback(entries, "decide"); got != src {
		t.Errorf("LatestFeedback = %+v, the finder %+v", got, src)
	}

	second := newRun(t, lake, "r2")
	in := input(second, c, factory, nil, nil)
	in.Feedback = &Feedback{Source: src, Content: readFile(t, filepath.Join(lake.Root, src.Path))}
	out2, err := Run(t.Context(), in)
	if err != nil || out2.Status != status.Completed {
		t.Fatalf("second run: %v, %+v", err, out2)
	}
	if got := out2.Stages[0].output; !strings.Contains(got, "Last time the mind stage noted:\n- Splitting the change") {
		t.Errorf("the second run's first stage did not get the feedback:\n%s", got)
	}
	if got := readFile(t, second.Path(FeedbackPath)); got != in.Feedback.Content {
		t.Errorf("feedback file = %q", got)
	}
}

func TestFeedbackFinderSkips(t *testing.T) {
	t.Parallel()
	good := map[string]any{"stage": "mind", "status": "completed", "output_sha256": strings.Repeat("a", 64)}
	entry := func(edit func(map[string]any, *ledger.Entry)) ledger.Entry {
		last := map[string]any{}
		for k, v := range good {
			last[k] = v
		}
		e := ledger.Entry{Kind: "run", Run: "r1", Workflow: "wf", Fields: map[string]any{
			"mode": "stages", "pipeline": "decide", "status": "completed", "stages": []any{map[string]any{"stage": "a"}, last},
		}}
		edit(last, &e)
		return e
	}
	tests := map[string]ledger.Entry{
		"select run":         entry(func(_ map[string]any, e *ledger.Entry) { e.Fields["mode"] = "select" }),
		"another pipeline":   entry(func(_ map[string]any, e *ledger.Entry) { e.Fields["pipeline"] = "other" }),
		"paused run":         entry(func(_ map[string]any, e *ledger.Entry) { e.Fields["status"] = "paused" }),
		"escalation entry":   entry(func(_ map[string]any, e *ledger.Entry) { e.Kind = "escalation" }),
		"no stages":          entry(func(_ map[string]any, e *ledger.Entry) { delete(e.Fields, "stages") }),
		"last not completed": entry(func(l map[string]any, _ *ledger.Entry) { l["status"] = "failed" }),
		"bad hash":           entry(func(l map[string]any, _ *ledger.Entry) { l["output_sha256"] = "zz" }),
		"path in the stage":  entry(func(l map[string]any, _ *ledger.Entry) { l["stage"] = "../../etc" }),
		"path in the run":    entry(func(_ map[string]any, e *ledger.Entry) { e.Run = "../r" }),
		"path in workflow":   entry(func(_ map[string]any, e *ledger.Entry) { e.Workflow = "a/b" }),
	}
	for name, e := range tests {
		if src, ok := LatestFeedback([]ledger.Entry{e}, "decide"); ok {
			t.Errorf("%s: found %+v", name, src)
		}
	}
	if _, ok := LatestFeedback([]ledger.Entry{entry(func(map[string]any, *ledger.Entry) {})}, "decide"); !ok {
		t.Error("the well-formed entry was not found")
	}
}
